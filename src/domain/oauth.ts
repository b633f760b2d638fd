import { createHash, timingSafeEqual } from 'node:crypto';
import type { z } from 'zod';
import { ERR } from '../shared/errors.js';
import {
  type AuthorizationRequest,
  type authorizationCheckOut,
  type authorizationDecisionBody,
  OAUTH_SCOPES,
  type OAuthScope,
  type registerClientBody,
  type registeredClientOut,
  TOKEN_AUTH_METHODS,
  type tokenOut,
} from '../shared/oauth.js';
import { audit } from './audit.js';
import { type Actor, actorOf, type Ctx, type Tx } from './context.js';
import { AppError, badRequest } from './errors.js';
import { newId, randomToken } from './ids.js';
import { redirectUriMatches, redirectUriProblem } from './oauth-redirects.js';
import { hashToken } from './tokens.js';

/**
 * OAuth 2.1 sign-in for remote MCP clients (docs/mcp.md, docs/decisions/044-oauth-for-mcp.md):
 * dynamic client registration, the authorization code flow with PKCE (S256 only) and a consent
 * page, refresh tokens that rotate, revocation. An access token acts like a scoped API key
 * (src/domain/api-keys.ts): as its user, `read` or `write`, never with administrator powers, and
 * not on the account-management endpoints. Codes, tokens and client secrets are stored only as
 * SHA-256 hashes.
 */

export const OAUTH_ACCESS_PREFIX = 'dkoa_';
export const OAUTH_REFRESH_PREFIX = 'dkor_';
export const ACCESS_TOKEN_SECONDS = 3600;
export const REFRESH_TOKEN_DAYS = 30;
export const CODE_SECONDS = 300;

/** Where this server is, as the client sees it: the issuer and the MCP endpoint (the resource). */
export interface OAuthSite {
  /** The authorization server's issuer: the public origin and base path. */
  issuer: string;
  /** The protected resource: `<issuer>/api/mcp`. */
  resource: string;
}

/** An OAuth error answered to the client: `{error, error_description}` with a status. */
export class OAuthError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    readonly description: string,
  ) {
    super(description);
  }
}

/** The scopes of a request: `read`, `write` or both; null for an unknown scope. */
function parseScopes(scope: string | undefined): OAuthScope[] | null {
  const words = (scope ?? '').split(' ').filter(Boolean);
  if (words.some((w) => !(OAUTH_SCOPES as readonly string[]).includes(w))) return null;
  return words as OAuthScope[];
}

/** What the user may grant for a request: `read` only if that is all it asked for. */
function grantable(asked: OAuthScope[]): OAuthScope[] {
  return asked.length > 0 && !asked.includes('write') ? ['read'] : ['read', 'write'];
}

const sameResource = (given: string, site: OAuthSite) => {
  try {
    return new URL(given).href.replace(/\/$/, '') === new URL(site.resource).href.replace(/\/$/, '');
  } catch {
    return false;
  }
};

const sha256b64url = (s: string) => createHash('sha256').update(s).digest('base64url');

function secretMatches(given: string, hash: string): boolean {
  const a = Buffer.from(hashToken(given), 'hex');
  const b = Buffer.from(hash, 'hex');
  return a.length === b.length && timingSafeEqual(a, b);
}

// ---------------------------------------------------------------------------------------------
// Dynamic client registration (RFC 7591)

/** Registers a client; a confidential one gets its secret in this answer only. */
export async function registerClient(
  ctx: Ctx,
  body: z.infer<typeof registerClientBody>,
): Promise<z.infer<typeof registeredClientOut>> {
  const bad = (description: string) => new OAuthError(400, 'invalid_client_metadata', description);
  for (const uri of body.redirect_uris) {
    const problem = redirectUriProblem(uri);
    if (problem) throw new OAuthError(400, 'invalid_redirect_uri', problem);
  }
  const grantTypes = body.grant_types ?? ['authorization_code', 'refresh_token'];
  const unsupportedGrant = grantTypes.find((g) => g !== 'authorization_code' && g !== 'refresh_token');
  if (unsupportedGrant)
    throw bad(`grant_types: "${unsupportedGrant}" is not supported (authorization_code, refresh_token)`);
  if (!grantTypes.includes('authorization_code')) throw bad('grant_types must include authorization_code');
  const unsupportedResponse = (body.response_types ?? ['code']).find((r) => r !== 'code');
  if (unsupportedResponse) throw bad(`response_types: "${unsupportedResponse}" is not supported (code)`);
  // RFC 7591 section 2: the default method is client_secret_basic.
  const method = body.token_endpoint_auth_method ?? 'client_secret_basic';
  if (!(TOKEN_AUTH_METHODS as readonly string[]).includes(method))
    throw bad(`token_endpoint_auth_method must be ${TOKEN_AUTH_METHODS.join(', ')}`);
  if (body.scope !== undefined && parseScopes(body.scope) === null)
    throw bad(`scope: only ${OAUTH_SCOPES.join(' and ')} are offered`);
  if (body.client_uri !== undefined && !/^https?:\/\//i.test(body.client_uri))
    throw bad('client_uri must be an http(s) URL');

  const secret = method === 'none' ? null : randomToken(32);
  const now = new Date();
  const row = {
    id: newId(),
    name: (body.client_name ?? '').trim() || 'Unnamed client',
    client_uri: body.client_uri ?? null,
    redirect_uris: JSON.stringify(body.redirect_uris),
    auth_method: method,
    secret_hash: secret ? hashToken(secret) : null,
    created_at: now.toISOString(),
  };
  await ctx.db.kysely.transaction().execute(async (tx) => {
    await tx.insertInto('oauth_clients').values(row).execute();
    await audit(
      tx,
      { actor: null, address: ctx.address },
      {
        action: 'oauth.client_registered',
        target: { type: 'oauth_client', id: row.id },
        details: { name: row.name, redirectUris: body.redirect_uris, authMethod: method },
      },
    );
  });
  return {
    client_id: row.id,
    client_id_issued_at: Math.floor(now.getTime() / 1000),
    ...(secret ? { client_secret: secret, client_secret_expires_at: 0 } : {}),
    client_name: row.name,
    ...(row.client_uri ? { client_uri: row.client_uri } : {}),
    redirect_uris: body.redirect_uris,
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: method as (typeof TOKEN_AUTH_METHODS)[number],
    scope: OAUTH_SCOPES.join(' '),
  };
}

async function findClient(ctx: Pick<Ctx, 'db'>, clientId: string) {
  const row = await ctx.db.kysely
    .selectFrom('oauth_clients')
    .selectAll()
    .where('id', '=', clientId.toLowerCase())
    .executeTakeFirst();
  return row ? { ...row, redirectUris: JSON.parse(row.redirect_uris) as string[] } : undefined;
}

// ---------------------------------------------------------------------------------------------
// The authorization request and the consent page

type Checked =
  | {
      kind: 'consent';
      client: NonNullable<Awaited<ReturnType<typeof findClient>>>;
      redirectUri: string;
      scopes: OAuthScope[];
      challenge: string;
    }
  | { kind: 'redirect'; redirectTo: string };

/** The client's redirect URI with the answer's parameters (and `iss`, RFC 9207). */
function answerUrl(redirectUri: string, site: OAuthSite, params: Record<string, string | undefined>) {
  const u = new URL(redirectUri);
  for (const [k, v] of Object.entries(params)) if (v !== undefined) u.searchParams.set(k, v);
  u.searchParams.set('iss', site.issuer);
  return u.href;
}

/**
 * Checks an authorization request. An unknown client or a redirect URI it did not register is a
 * 400 shown on the consent page (never a redirect); any other fault is sent back to the client's
 * redirect URI as an OAuth error.
 */
async function checkRequest(ctx: Ctx, req: AuthorizationRequest, site: OAuthSite): Promise<Checked> {
  const client = await findClient(ctx, req.client_id);
  if (!client) throw badRequest(ERR.oauthUnknownClient);
  let redirectUri: string;
  if (req.redirect_uri !== undefined) {
    const given = req.redirect_uri;
    if (!client.redirectUris.some((r) => redirectUriMatches(given, r)))
      throw badRequest(ERR.oauthBadRedirect);
    redirectUri = given;
  } else if (client.redirectUris.length === 1) {
    redirectUri = client.redirectUris[0];
  } else {
    throw badRequest(ERR.oauthBadRedirect);
  }
  const fail = (error: string, description: string): Checked => ({
    kind: 'redirect',
    redirectTo: answerUrl(redirectUri, site, { error, error_description: description, state: req.state }),
  });
  if (req.response_type !== 'code') return fail('unsupported_response_type', 'response_type must be code');
  if (!req.code_challenge) return fail('invalid_request', 'code_challenge is required (PKCE)');
  if (req.code_challenge_method !== 'S256')
    return fail('invalid_request', 'code_challenge_method must be S256');
  if (!/^[A-Za-z0-9_-]{43}$/.test(req.code_challenge))
    return fail('invalid_request', 'code_challenge must be the base64url SHA-256 of the verifier');
  const asked = parseScopes(req.scope);
  if (asked === null) return fail('invalid_scope', `Only ${OAUTH_SCOPES.join(' and ')} are offered`);
  if (req.resource !== undefined && !sameResource(req.resource, site))
    return fail('invalid_target', `resource must be ${site.resource}`);
  return { kind: 'consent', client, redirectUri, scopes: grantable(asked), challenge: req.code_challenge };
}

function signedInUser(ctx: Ctx): Actor {
  const actor = actorOf(ctx);
  // The route refuses keys and tokens already; a grant is made by a person in the web app.
  if (actor.via !== 'session') throw new AppError(403, ERR.notWithApiKey);
  return actor;
}

/** GET /api/oauth/authorization: what the consent page shows, or where to send the browser back. */
export async function checkAuthorization(
  ctx: Ctx,
  req: AuthorizationRequest,
  site: OAuthSite,
): Promise<z.infer<typeof authorizationCheckOut>> {
  signedInUser(ctx);
  const checked = await checkRequest(ctx, req, site);
  if (checked.kind === 'redirect') return checked;
  return {
    kind: 'consent',
    client: { id: checked.client.id, name: checked.client.name, uri: checked.client.client_uri },
    redirectUri: checked.redirectUri,
    scopes: checked.scopes,
  };
}

/**
 * POST /api/oauth/authorization: the user allows the client with a scope (a grant and a one-time
 * code, sent back to the client) or denies it (`access_denied`).
 */
export async function decideAuthorization(
  ctx: Ctx,
  body: z.infer<typeof authorizationDecisionBody>,
  site: OAuthSite,
): Promise<{ redirectTo: string }> {
  const actor = signedInUser(ctx);
  const checked = await checkRequest(ctx, body, site);
  if (checked.kind === 'redirect') return checked;
  if (!body.approve)
    return {
      redirectTo: answerUrl(checked.redirectUri, site, {
        error: 'access_denied',
        error_description: 'The user denied access',
        state: body.state,
      }),
    };
  const scope = body.grantScope;
  if (!scope) throw badRequest(ERR.validation, { details: [{ path: 'grantScope', message: 'Required' }] });
  if (!checked.scopes.includes(scope))
    throw badRequest(`The client asked for ${checked.scopes.join(' ')} access only`);
  const code = randomToken(32);
  const now = new Date();
  const grant = {
    id: newId(),
    user_id: actor.userId,
    client_id: checked.client.id,
    scope,
    created_at: now.toISOString(),
    last_used_at: null,
  };
  await ctx.db.kysely.transaction().execute(async (tx) => {
    await tx.insertInto('oauth_grants').values(grant).execute();
    await tx
      .insertInto('oauth_codes')
      .values({
        code_hash: hashToken(code),
        grant_id: grant.id,
        redirect_uri: checked.redirectUri,
        code_challenge: checked.challenge,
        expires_at: new Date(now.getTime() + CODE_SECONDS * 1000).toISOString(),
        used_at: null,
      })
      .execute();
    await audit(tx, ctx, {
      action: 'oauth.grant_approved',
      target: { type: 'oauth_grant', id: grant.id },
      details: { clientId: checked.client.id, clientName: checked.client.name, scope },
    });
  });
  return { redirectTo: answerUrl(checked.redirectUri, site, { code, state: body.state }) };
}

// ---------------------------------------------------------------------------------------------
// The token and revocation endpoints

type Form = Record<string, string | undefined>;

/**
 * The client of a token or revocation request: HTTP Basic or `client_secret` in the form for a
 * confidential client, `client_id` alone for a public one (401 `invalid_client` otherwise).
 */
async function authenticateClient(ctx: Ctx, form: Form, authorization: string | undefined) {
  let id = form.client_id;
  let secret = form.client_secret;
  if (authorization && /^basic\s/i.test(authorization)) {
    const decoded = Buffer.from(authorization.slice(6).trim(), 'base64').toString('utf8');
    const at = decoded.indexOf(':');
    if (at < 0) throw new OAuthError(401, 'invalid_client', 'Malformed Basic credentials');
    const [basicId, basicSecret] = [decoded.slice(0, at), decoded.slice(at + 1)].map((s) => {
      try {
        return decodeURIComponent(s.replace(/\+/g, ' '));
      } catch {
        return s;
      }
    });
    if (id !== undefined && id !== basicId)
      throw new OAuthError(400, 'invalid_request', 'client_id differs from the Basic credentials');
    id = basicId;
    secret = basicSecret;
  }
  if (!id) throw new OAuthError(401, 'invalid_client', 'client_id is required');
  const client = id.length <= 200 ? await findClient(ctx, id) : undefined;
  if (!client) throw new OAuthError(401, 'invalid_client', 'Unknown client');
  // A confidential client may send its secret either way (both methods are in the metadata).
  if (client.secret_hash && (!secret || !secretMatches(secret, client.secret_hash)))
    throw new OAuthError(401, 'invalid_client', 'Wrong or missing client secret');
  return client;
}

async function issueTokens(tx: Tx, grantId: string, scope: OAuthScope, now: Date) {
  const access = `${OAUTH_ACCESS_PREFIX}${randomToken(32)}`;
  const refresh = `${OAUTH_REFRESH_PREFIX}${randomToken(32)}`;
  const created = now.toISOString();
  await tx
    .insertInto('oauth_tokens')
    .values([
      {
        token_hash: hashToken(access),
        grant_id: grantId,
        kind: 'access',
        scope,
        created_at: created,
        expires_at: new Date(now.getTime() + ACCESS_TOKEN_SECONDS * 1000).toISOString(),
        used_at: null,
      },
      {
        token_hash: hashToken(refresh),
        grant_id: grantId,
        kind: 'refresh',
        scope,
        created_at: created,
        expires_at: new Date(now.getTime() + REFRESH_TOKEN_DAYS * 86_400_000).toISOString(),
        used_at: null,
      },
    ])
    .execute();
  await tx.updateTable('oauth_grants').set({ last_used_at: created }).where('id', '=', grantId).execute();
  // Expired codes and tokens are of no further use (a used refresh token is kept until it expires,
  // to recognise its reuse).
  await tx.deleteFrom('oauth_tokens').where('expires_at', '<', created).execute();
  await tx.deleteFrom('oauth_codes').where('expires_at', '<', created).execute();
  return {
    access_token: access,
    token_type: 'Bearer' as const,
    expires_in: ACCESS_TOKEN_SECONDS,
    refresh_token: refresh,
    scope,
  };
}

export async function revokeGrantTx(
  tx: Tx,
  who: Pick<Ctx, 'actor' | 'address'>,
  grantId: string,
  reason: string,
) {
  const gone = await tx
    .deleteFrom('oauth_grants')
    .where('id', '=', grantId)
    .returning(['id', 'user_id', 'client_id'])
    .executeTakeFirst();
  if (gone)
    await audit(tx, who, {
      action: 'oauth.grant_revoked',
      // A client's own request has no actor: the grant's user is the one concerned.
      ...(who.actor ? {} : { actor: { id: gone.user_id } }),
      target: { type: 'oauth_grant', id: gone.id },
      details: { clientId: gone.client_id, reason },
    });
  return gone;
}

type Outcome = { tokens: z.infer<typeof tokenOut> } | { error: OAuthError };

/** POST /api/oauth/token: the authorization code grant (with PKCE) and the refresh token grant. */
export async function exchangeToken(
  ctx: Ctx,
  form: Form,
  authorization: string | undefined,
  site: OAuthSite,
): Promise<z.infer<typeof tokenOut>> {
  const client = await authenticateClient(ctx, form, authorization);
  if (form.resource !== undefined && !sameResource(form.resource, site))
    throw new OAuthError(400, 'invalid_target', `resource must be ${site.resource}`);
  const grantError = (d: string) => ({ error: new OAuthError(400, 'invalid_grant', d) });
  let outcome: Outcome;
  if (form.grant_type === 'authorization_code') {
    const { code, code_verifier: verifier } = form;
    if (!code) throw new OAuthError(400, 'invalid_request', 'code is required');
    if (!verifier) throw new OAuthError(400, 'invalid_request', 'code_verifier is required (PKCE)');
    if (!/^[A-Za-z0-9._~-]{43,128}$/.test(verifier))
      throw new OAuthError(400, 'invalid_request', 'code_verifier must be 43-128 unreserved characters');
    outcome = await ctx.db.kysely.transaction().execute(async (tx): Promise<Outcome> => {
      const now = new Date();
      const codeHash = hashToken(code);
      // Used once: the database decides which of two concurrent exchanges wins.
      const used = await tx
        .updateTable('oauth_codes')
        .set({ used_at: now.toISOString() })
        .where('code_hash', '=', codeHash)
        .where('used_at', 'is', null)
        .returning(['grant_id', 'redirect_uri', 'code_challenge', 'expires_at'])
        .executeTakeFirst();
      if (!used) {
        const earlier = await tx
          .selectFrom('oauth_codes')
          .innerJoin('oauth_grants', 'oauth_grants.id', 'oauth_codes.grant_id')
          .select(['oauth_codes.grant_id', 'oauth_grants.client_id'])
          .where('code_hash', '=', codeHash)
          .executeTakeFirst();
        if (earlier?.client_id !== client.id) return grantError('Invalid authorization code');
        // A code used twice was stolen or replayed: everything issued from it is revoked (OAuth 2.1 4.1.3).
        await revokeGrantTx(tx, ctx, earlier.grant_id, 'code_reused');
        return grantError('Authorization code already used: the tokens issued for it are revoked');
      }
      const grant = await tx
        .selectFrom('oauth_grants')
        .select(['id', 'client_id', 'scope'])
        .where('id', '=', used.grant_id)
        .executeTakeFirstOrThrow();
      let fault: string | null = null;
      if (grant.client_id !== client.id) fault = 'Invalid authorization code';
      else if (used.expires_at <= now.toISOString()) fault = 'Authorization code expired';
      else if (form.redirect_uri !== undefined && form.redirect_uri !== used.redirect_uri)
        fault = 'redirect_uri differs from the authorization request';
      else if (sha256b64url(verifier) !== used.code_challenge)
        fault = 'code_verifier does not match the code_challenge';
      if (fault) {
        // The code is spent; its grant never issued a token, so it goes too.
        if (grant.client_id === client.id) await revokeGrantTx(tx, ctx, grant.id, 'code_rejected');
        return grantError(fault);
      }
      return { tokens: await issueTokens(tx, grant.id, grant.scope as OAuthScope, now) };
    });
  } else if (form.grant_type === 'refresh_token') {
    const token = form.refresh_token;
    if (!token) throw new OAuthError(400, 'invalid_request', 'refresh_token is required');
    const narrowed = form.scope !== undefined ? parseScopes(form.scope) : [];
    if (narrowed === null)
      throw new OAuthError(400, 'invalid_scope', `Only ${OAUTH_SCOPES.join(' and ')} exist`);
    outcome = await ctx.db.kysely.transaction().execute(async (tx): Promise<Outcome> => {
      const now = new Date();
      const tokenHash = hashToken(token);
      // Every check comes before the token is spent: a refresh refused for its client, its scope
      // or its age leaves the token as it was, so its owner's next refresh still works.
      const found = await tx
        .selectFrom('oauth_tokens')
        .innerJoin('oauth_grants', 'oauth_grants.id', 'oauth_tokens.grant_id')
        .select([
          'oauth_tokens.grant_id',
          'oauth_tokens.scope',
          'oauth_tokens.expires_at',
          'oauth_tokens.used_at',
          'oauth_grants.client_id',
        ])
        .where('oauth_tokens.token_hash', '=', tokenHash)
        .where('oauth_tokens.kind', '=', 'refresh')
        .executeTakeFirst();
      if (!found || found.client_id !== client.id) return grantError('Invalid refresh token');
      const reused = async () => {
        // Rotation: a refresh token works once; its reuse means it leaked (OAuth 2.1 section 4.3.1).
        await revokeGrantTx(tx, ctx, found.grant_id, 'refresh_reused');
        return grantError('Refresh token already used: the grant is revoked');
      };
      if (found.used_at !== null) return reused();
      if (found.expires_at <= now.toISOString()) return grantError('Refresh token expired');
      let scope = found.scope as OAuthScope;
      if (narrowed.length > 0) {
        if (scope === 'read' && narrowed.includes('write'))
          return { error: new OAuthError(400, 'invalid_scope', 'The grant is read-only') };
        if (!narrowed.includes('write')) scope = 'read';
      }
      // Used once: the database decides which of two concurrent refreshes wins; the loser is a reuse.
      const spent = await tx
        .updateTable('oauth_tokens')
        .set({ used_at: now.toISOString() })
        .where('token_hash', '=', tokenHash)
        .where('kind', '=', 'refresh')
        .where('used_at', 'is', null)
        .returning('grant_id')
        .executeTakeFirst();
      if (!spent) return reused();
      return { tokens: await issueTokens(tx, found.grant_id, scope, now) };
    });
  } else {
    throw new OAuthError(
      400,
      form.grant_type ? 'unsupported_grant_type' : 'invalid_request',
      form.grant_type
        ? `grant_type "${form.grant_type}" is not supported (authorization_code, refresh_token)`
        : 'grant_type is required',
    );
  }
  if ('error' in outcome) throw outcome.error;
  return outcome.tokens;
}

/**
 * POST /api/oauth/revoke (RFC 7009): a refresh token revokes its whole grant, an access token
 * itself. Unknown tokens and other clients' tokens are answered the same (200), and change nothing.
 */
export async function revokeToken(ctx: Ctx, form: Form, authorization: string | undefined): Promise<void> {
  const client = await authenticateClient(ctx, form, authorization);
  const token = form.token;
  if (!token) throw new OAuthError(400, 'invalid_request', 'token is required');
  await ctx.db.kysely.transaction().execute(async (tx) => {
    const row = await tx
      .selectFrom('oauth_tokens')
      .innerJoin('oauth_grants', 'oauth_grants.id', 'oauth_tokens.grant_id')
      .select(['oauth_tokens.kind', 'oauth_tokens.grant_id', 'oauth_grants.client_id'])
      .where('oauth_tokens.token_hash', '=', hashToken(token))
      .executeTakeFirst();
    if (!row || row.client_id !== client.id) return;
    if (row.kind === 'refresh') await revokeGrantTx(tx, ctx, row.grant_id, 'client');
    else await tx.deleteFrom('oauth_tokens').where('token_hash', '=', hashToken(token)).execute();
  });
}
