import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import * as oidc from 'openid-client';
import type { OidcConfig } from '../config.js';
import type { UsersTable } from '../db/types.js';
import { ERR } from '../shared/errors.js';
import { LIMITS } from '../shared/limits.js';
import { audit } from './audit.js';
import { createSession, type NewSession } from './auth.js';
import type { Ctx, Services, Tx } from './context.js';
import { AppError, isUniqueViolation, notFound } from './errors.js';
import { newId, nowIso } from './ids.js';
import { publicBase } from './notifications/mail.js';
import { hashToken } from './tokens.js';
import { createUserDirect } from './users.js';

/**
 * Single sign-on with OpenID Connect (docs/security.md, docs/decisions/043-sso-and-password-reset.md),
 * with openid-client: the authorization code flow with PKCE (S256), state and nonce.
 *
 * 1. `startSignOn` makes a state, a nonce and a PKCE verifier, keeps them in `oidc_logins` under
 *    the state's hash (shared by every instance), and answers the provider's authorization URL and
 *    the state, which the route also puts in a cookie: the callback must come back to the browser
 *    that started it (no login CSRF).
 * 2. `finishSignOn` spends the row (deleted by the statement that reads it: once), lets
 *    openid-client exchange the code and check the ID token (signature, issuer, audience, expiry,
 *    nonce), then finds the user: the provider account linked before; else the account with the
 *    same e-mail address when the provider says it is verified (and links it); else a new account
 *    when DOCKET_OIDC_CREATE_ACCOUNTS allows. A session is made as for a password sign-in.
 */

/** How long a sign-in may stay at the provider. */
export const SSO_PENDING_MS = 10 * 60_000;

/** Why a single sign-on was refused; the route turns it into `/sign-in?sso=<reason>`. */
export type SsoFailure = 'failed' | 'no-account' | 'domain' | 'unverified' | 'disabled';

export class SsoError extends Error {
  constructor(
    readonly reason: SsoFailure,
    message: string,
  ) {
    super(message);
  }
}

const clients = new WeakMap<OidcConfig, Promise<oidc.Configuration>>();

/** The provider's configuration (discovery), fetched once and kept; a failed fetch is retried next time. */
function provider(cfg: OidcConfig): Promise<oidc.Configuration> {
  let found = clients.get(cfg);
  if (!found) {
    const issuer = new URL(cfg.issuer);
    // Plain http only for a provider on this machine (a development or test provider).
    const loopback = ['127.0.0.1', 'localhost', '[::1]'].includes(issuer.hostname);
    found = oidc.discovery(
      issuer,
      cfg.clientId,
      cfg.clientSecret,
      cfg.clientSecret ? undefined : oidc.None(),
      {
        timeout: 10,
        ...(loopback && issuer.protocol === 'http:' ? { execute: [oidc.allowInsecureRequests] } : {}),
      },
    );
    found.catch(() => clients.delete(cfg));
    clients.set(cfg, found);
  }
  return found;
}

function requireOidc(s: Services): OidcConfig {
  if (!s.config.oidc) throw notFound(ERR.ssoOff);
  return s.config.oidc;
}

/** Where the provider sends the browser back. */
export const ssoRedirectUri = (s: Services) => `${publicBase(s.config)}/api/auth/oidc/callback`;

/** Begins a sign-in: answers the provider URL to send the browser to, and the state for its cookie. */
export async function startSignOn(ctx: Ctx, returnTo: string): Promise<{ url: string; state: string }> {
  const cfg = requireOidc(ctx);
  let client: oidc.Configuration;
  try {
    client = await provider(cfg);
  } catch (err) {
    ctx.log.warn({ err: String(err) }, 'single sign-on: the provider did not answer discovery');
    throw new SsoError('failed', ERR.ssoFailed);
  }
  const state = oidc.randomState();
  const nonce = oidc.randomNonce();
  const verifier = oidc.randomPKCECodeVerifier();
  const now = Date.now();
  const db = ctx.db.kysely;
  await db
    .deleteFrom('oidc_logins')
    .where('created_at', '<', new Date(now - SSO_PENDING_MS).toISOString())
    .execute();
  await db
    .insertInto('oidc_logins')
    .values({
      state_hash: hashToken(state),
      code_verifier: verifier,
      nonce,
      return_to: returnTo,
      created_at: new Date(now).toISOString(),
    })
    .execute();
  const url = oidc.buildAuthorizationUrl(client, {
    redirect_uri: ssoRedirectUri(ctx),
    scope: 'openid email profile',
    code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    state,
    nonce,
  });
  return { url: url.href, state };
}

interface Claims {
  sub: string;
  email?: string;
  emailVerified: boolean;
  name?: string;
  preferredUsername?: string;
}

const str = (v: unknown) => (typeof v === 'string' && v.trim() ? v.trim() : undefined);

/**
 * Ends a sign-in at the callback: `query` is the callback's query string, `cookieState` the state
 * the browser kept. Answers the new session and the path to return to; throws SsoError.
 */
export async function finishSignOn(
  ctx: Ctx,
  query: string,
  cookieState: string | undefined,
): Promise<{ session: NewSession; returnTo: string; user: UsersTable }> {
  const cfg = requireOidc(ctx);
  const params = new URLSearchParams(query);
  const state = params.get('state');
  const fail = async (reason: SsoFailure, message: string, login: string, why: string, user?: UsersTable) => {
    await audit(ctx.db.kysely, ctx, {
      action: 'auth.login_failed',
      actor: user ? { id: user.id, name: user.username } : null,
      details: { login: login.slice(0, 320), reason: `single sign-on: ${why}` },
    });
    return new SsoError(reason, message);
  };
  // A callback that no sign-in of this browser started is refused before anything is written:
  // anyone can send one, so it must not fill the audit log (the process log has it).
  const refuseUnstarted = (why: string) => {
    ctx.log.info({ address: ctx.address, why }, 'single sign-on: callback refused');
    return new SsoError('failed', ERR.ssoFailed);
  };
  if (!state || !cookieState || state !== cookieState)
    throw refuseUnstarted('state does not match this browser');
  const pending = await ctx.db.kysely
    .deleteFrom('oidc_logins')
    .where('state_hash', '=', hashToken(state))
    .returningAll()
    .executeTakeFirst();
  if (!pending || Date.parse(pending.created_at) < Date.now() - SSO_PENDING_MS)
    throw refuseUnstarted('unknown, used or expired state');
  if (params.get('error')) throw await fail('failed', ERR.ssoFailed, '', `provider: ${params.get('error')}`);

  let claims: Claims;
  try {
    const client = await provider(cfg);
    const callback = new URL(ssoRedirectUri(ctx));
    callback.search = query;
    const tokens = await oidc.authorizationCodeGrant(client, callback, {
      pkceCodeVerifier: pending.code_verifier,
      expectedState: state,
      expectedNonce: pending.nonce,
      idTokenExpected: true,
    });
    const id = tokens.claims();
    if (!id) throw new Error('no ID token');
    let all: Record<string, unknown> = { ...id };
    // Providers may keep e-mail and profile claims for the userinfo endpoint.
    if (!id.email && client.serverMetadata().userinfo_endpoint)
      all = { ...(await oidc.fetchUserInfo(client, tokens.access_token, id.sub)), ...all };
    claims = {
      sub: id.sub,
      email: str(all.email)?.toLowerCase(),
      emailVerified: all.email_verified === true || all.email_verified === 'true',
      name: str(all.name),
      preferredUsername: str(all.preferred_username) ?? str(all.nickname),
    };
  } catch (err) {
    ctx.log.warn({ err: String(err) }, 'single sign-on: the code exchange or the ID token was refused');
    throw await fail('failed', ERR.ssoFailed, '', 'code exchange or ID token refused');
  }

  const login = claims.email ?? claims.sub;
  if (cfg.allowedDomains.length > 0) {
    if (!claims.email || !claims.emailVerified)
      throw await fail('unverified', ERR.ssoUnverified, login, 'e-mail not verified');
    const domain = claims.email.slice(claims.email.lastIndexOf('@') + 1);
    if (!cfg.allowedDomains.includes(domain))
      throw await fail('domain', ERR.ssoDomain, login, 'domain not allowed');
  }

  const db = ctx.db.kysely;
  const issuer = cfg.issuer;
  let user = await db
    .selectFrom('oidc_identities')
    .innerJoin('users', 'users.id', 'oidc_identities.user_id')
    .selectAll('users')
    .where('oidc_identities.issuer', '=', issuer)
    .where('oidc_identities.subject', '=', claims.sub)
    .executeTakeFirst();
  let how: 'linked before' | 'linked now' | 'created' = 'linked before';
  if (!user && claims.email && claims.emailVerified) {
    user = await db
      .selectFrom('users')
      .selectAll()
      .where(sql`lower(email)`, '=', claims.email)
      .executeTakeFirst();
    if (user) how = 'linked now';
  }
  if (user && user.is_active !== 1)
    throw await fail('disabled', ERR.accountDisabled, login, 'disabled', user);

  const signIn = async (tx: Tx, u: UsersTable, created: boolean) => {
    const now = nowIso();
    if (how === 'linked before') {
      await tx
        .updateTable('oidc_identities')
        .set({ last_login_at: now, email: claims.email ?? null })
        .where('issuer', '=', issuer)
        .where('subject', '=', claims.sub)
        .execute();
    } else {
      await tx
        .insertInto('oidc_identities')
        .values({
          id: newId(),
          user_id: u.id,
          issuer,
          subject: claims.sub,
          email: claims.email ?? null,
          created_at: now,
          last_login_at: now,
        })
        .execute();
      await audit(tx, ctx, {
        action: created ? 'account.sso_created' : 'account.sso_linked',
        actor: { id: u.id, name: u.username },
        target: { type: 'user', id: u.id },
        details: { issuer, subject: claims.sub, email: claims.email ?? null },
      });
    }
    const session = await createSession(ctx, tx, u.id);
    await audit(tx, ctx, {
      action: 'auth.login',
      actor: { id: u.id, name: u.username },
      details: { method: 'single sign-on' },
    });
    return session;
  };

  try {
    if (user) {
      const found = user;
      const session = await db.transaction().execute((tx) => signIn(tx, found, false));
      return { session, returnTo: pending.return_to, user: found };
    }
    if (!cfg.createAccounts) throw await fail('no-account', ERR.ssoNoAccount, login, 'no matching account');
    how = 'created';
    let session: NewSession | undefined;
    const created = await createWithFreeUsername(ctx, claims, async (tx, row) => {
      session = await signIn(tx, row, true);
    });
    return { session: session as NewSession, returnTo: pending.return_to, user: created };
  } catch (err) {
    // Two first sign-ins of one provider account at once: the second finds the link taken.
    if (isUniqueViolation(err)) throw await fail('failed', ERR.ssoFailed, login, 'concurrent first sign-in');
    throw err;
  }
}

/** A username from the provider's claims: letters, digits, dash and underscore, within the limits. */
function baseUsername(c: Claims): string {
  const from = c.preferredUsername ?? c.email?.split('@')[0] ?? c.name ?? 'user';
  let name = from
    .normalize('NFKD')
    .replace(/[^A-Za-z0-9_-]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, LIMITS.usernameMax - 5);
  if (name.length < LIMITS.usernameMin) name = `user-${name}`.slice(0, LIMITS.usernameMax - 5);
  return name;
}

/**
 * Creates the account of a first sign-in: the provider's username, or that with a number when it
 * is taken. Its password is random and never shown (a forgotten-password e-mail can set one); its
 * e-mail address is kept only when verified.
 */
async function createWithFreeUsername(
  ctx: Ctx,
  claims: Claims,
  also: (tx: Tx, row: UsersTable) => Promise<void>,
): Promise<UsersTable> {
  const base = baseUsername(claims);
  for (let i = 0; i < 20; i++) {
    const username = i === 0 ? base : `${base}-${i < 10 ? i + 1 : randomBytes(2).toString('hex')}`;
    try {
      return await createUserDirect(
        ctx,
        {
          username,
          password: randomBytes(32).toString('base64url'),
          email: claims.emailVerified ? (claims.email ?? null) : null,
          name: claims.name ?? null,
          isSystemAdmin: false,
        },
        also,
      );
    } catch (err) {
      if (err instanceof AppError && err.message === ERR.usernameTaken) continue;
      throw err;
    }
  }
  throw new SsoError('failed', ERR.ssoFailed);
}
