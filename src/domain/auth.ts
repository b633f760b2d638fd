import { sql } from 'kysely';
import { scopesMarker } from '../db/changes.js';
import type { UsersTable } from '../db/types.js';
import type { UserSummaryOut } from '../shared/common.js';
import { ERR } from '../shared/errors.js';
import { type Attempt, attemptLimiter, nameAccount, userAccount } from './attempts.js';
import { audit } from './audit.js';
import type { Actor, Ctx, Services, Tx } from './context.js';
import { AppError, badRequest, forbidden, unauthorized } from './errors.js';
import { newId } from './ids.js';
import { verifyPassword } from './passwords.js';
import { arg, runPrepared } from './prepared.js';
import { presentSessionUser } from './presenters/users.js';
import { readCache } from './read-cache.js';
import { hashToken, newSessionToken } from './tokens.js';
import { isTwoFactorOn, spendSecondFactor, twoFactorRequired } from './two-factor.js';

export interface NewSession {
  token: string;
  expires: string;
}

/**
 * Creates a session and returns its token (only the hash is stored), with the browser and address
 * that signed in when the context has them (shown in GET /api/me/sessions).
 */
export async function createSession(
  s: Services & { address?: string | null; userAgent?: string | null },
  tx: Tx,
  userId: string,
): Promise<NewSession> {
  const token = newSessionToken();
  const now = new Date();
  const expires = new Date(now.getTime() + s.config.sessionDays * 86_400_000).toISOString();
  await tx
    .insertInto('sessions')
    .values({
      id: newId(),
      user_id: userId,
      token_hash: hashToken(token),
      created_at: now.toISOString(),
      expires_at: expires,
      last_used_at: now.toISOString(),
      user_agent: s.userAgent ?? null,
      address: s.address ?? null,
    })
    .execute();
  return { token, expires };
}

export async function findUserByLogin(tx: Tx, login: string): Promise<UsersTable | undefined> {
  const l = login.trim().toLowerCase();
  return tx
    .selectFrom('users')
    .selectAll()
    .where((eb) => eb.or([eb(sql`lower(username)`, '=', l), eb(sql`lower(email)`, '=', l)]))
    .executeTakeFirst();
}

/** Records a failed sign-in (outside any transaction: there is no change to join). */
function loginFailed(ctx: Ctx, user: UsersTable | undefined, login: string, reason: string) {
  return audit(ctx.db.kysely, ctx, {
    action: 'auth.login_failed',
    actor: user ? { id: user.id, name: user.username } : null,
    details: { login: login.trim().slice(0, 320), reason },
  });
}

/**
 * Checks a password: 401 for a wrong one; 403 for a disabled account whatever the password (the
 * answer tells nothing about the password of a disabled account). The attempt is counted before
 * the hash check, per account and per address (src/domain/attempts.ts); the caller takes it back
 * when the whole sign-in succeeded.
 */
async function checkPassword(
  ctx: Ctx,
  login: string,
  password: string,
): Promise<{ user: UsersTable; attempt: Attempt }> {
  const user = await findUserByLogin(ctx.db.kysely, login);
  const attempt = await attemptLimiter(ctx).begin(
    user ? userAccount(user.id) : nameAccount(login),
    ctx.address,
  );
  const ok = await verifyPassword(user?.password_hash, password);
  if (user && user.is_active !== 1) {
    await loginFailed(ctx, user, login, 'disabled');
    throw forbidden(ERR.accountDisabled);
  }
  if (!user || !ok) {
    await loginFailed(ctx, user, login, user ? 'password' : 'unknown user');
    throw unauthorized(ERR.invalidCredentials);
  }
  // Single sign-on only (DOCKET_OIDC_ONLY): passwords stay for system administrators.
  if (ctx.config.oidc?.only && user.is_system_admin !== 1) {
    attempt.succeeded();
    await loginFailed(ctx, user, login, 'single sign-on only');
    throw forbidden(ERR.ssoOnly);
  }
  return { user, attempt };
}

/** Checks credentials (the password only: verify-credentials); answers who they belong to. */
export async function checkCredentials(
  ctx: Ctx,
  login: string,
  password: string,
): Promise<Pick<UserSummaryOut, 'id' | 'username' | 'name'>> {
  const { user, attempt } = await checkPassword(ctx, login, password);
  await attempt.succeeded();
  return { id: user.id, username: user.username, name: user.name };
}

/**
 * Signs in. With two-factor sign-in on, the password alone answers 401 `Two-factor code required`
 * (`twoFactor: true`) and creates no session; with `code` (a TOTP code not used before, or an
 * unused recovery code) it signs in. A wrong code counts as a failed attempt.
 */
export async function login(ctx: Ctx, loginName: string, password: string, code?: string) {
  const { user, attempt } = await checkPassword(ctx, loginName, password);
  const twoFactor = isTwoFactorOn(user);
  if (twoFactor && !code) {
    await attempt.succeeded();
    throw twoFactorRequired();
  }
  const session = await ctx.db.kysely.transaction().execute(async (tx) => {
    if (twoFactor && !(await spendSecondFactor(tx, user, code as string))) return null;
    const created = await createSession(ctx, tx, user.id);
    await audit(tx, ctx, {
      action: 'auth.login',
      actor: { id: user.id, name: user.username },
      ...(twoFactor ? { details: { twoFactor: true } } : {}),
    });
    return created;
  });
  if (!session) {
    await loginFailed(ctx, user, loginName, 'two-factor code');
    throw new AppError(401, ERR.invalidTwoFactorCode, { twoFactor: true });
  }
  await attempt.succeeded();
  return { user: presentSessionUser(user), session };
}

export interface ResolvedSession {
  actor: Actor;
  user: UsersTable;
  expires: string;
}

/** A session as the read cache keeps it: split once, shared by the requests that use it. */
interface KeptSession extends ResolvedSession {
  sessionId: string;
  expiresAt: number;
  lastUsedAt: number;
  active: boolean;
}

/** What a kept session shows: the session, its user, and whether the system requires 2FA. */
export const SESSION_SCOPES = ['auth', 'users', 'settings'] as const;

/**
 * Resolves a session cookie to its user; expired sessions and disabled users resolve to null. The
 * answer is shared between requests (read cache): callers must not change it.
 */
export async function resolveSession(s: Services, token: string): Promise<ResolvedSession | null> {
  // Compiled once and kept while the database is unchanged: it runs on every signed-in request.
  const tokenHash = hashToken(token);
  const session = await readCache(s.db).get(
    s,
    `session:${tokenHash}`,
    async (): Promise<KeptSession | null> => {
      const [found] = await runPrepared(
        s.db.kysely,
        'session-resolve',
        (db) =>
          db
            .selectFrom('sessions')
            .innerJoin('users', 'users.id', 'sessions.user_id')
            .selectAll('users')
            .select([
              'sessions.id as session_id',
              'sessions.expires_at as session_expires',
              'sessions.last_used_at as session_used',
              (eb) =>
                eb
                  .selectFrom('system_settings')
                  .select('require_two_factor')
                  .where('id', '=', 'system')
                  .as('require_two_factor'),
            ])
            .where('sessions.token_hash', '=', arg(0)),
        [tokenHash],
      );
      if (!found) return null;
      const { session_id, session_expires, session_used, require_two_factor, ...user } = found;
      return {
        actor: {
          userId: user.id,
          isSystemAdmin: user.is_system_admin === 1,
          via: 'session',
          sessionId: session_id,
          mustChangePassword: user.must_change_password === 1,
          twoFactorSetupRequired: require_two_factor === 1 && user.two_factor_enabled !== 1,
        },
        user,
        expires: session_expires,
        sessionId: session_id,
        expiresAt: Date.parse(session_expires),
        lastUsedAt: session_used ? Date.parse(session_used) : 0,
        active: user.is_active === 1,
      };
    },
    () => SESSION_SCOPES,
  );
  if (!session) return null;
  if (session.expiresAt <= Date.now()) {
    await s.db.kysely.deleteFrom('sessions').where('id', '=', session.sessionId).execute();
    return null;
  }
  if (!session.active) return null;
  // Record use at most once a minute, so that reads stay reads.
  const now = Date.now();
  if (now - session.lastUsedAt > 60_000) {
    session.lastUsedAt = now;
    await s.db.kysely
      .updateTable('sessions')
      .set({ last_used_at: new Date(now).toISOString() })
      .where('id', '=', session.sessionId)
      // The kept session has its new time already; no cached answer shows it.
      .modifyEnd(sql.raw(scopesMarker([])))
      .execute();
  }
  return session;
}

export async function deleteSessionByToken(ctx: Ctx, token: string): Promise<string | null> {
  return ctx.db.kysely.transaction().execute(async (tx) => {
    const row = await tx
      .deleteFrom('sessions')
      .where('token_hash', '=', hashToken(token))
      .returning('user_id')
      .executeTakeFirst();
    if (row) await audit(tx, ctx, { action: 'auth.logout', actor: { id: row.user_id } });
    return row?.user_id ?? null;
  });
}

/**
 * Ends every session of a user (password change or reset, disabling, deletion), and voids their
 * unused forgotten-password links.
 */
export async function endAllSessions(tx: Tx, userId: string): Promise<void> {
  await tx.deleteFrom('sessions').where('user_id', '=', userId).execute();
  await tx.deleteFrom('password_resets').where('user_id', '=', userId).execute();
}

/**
 * Checks the acting user's own password for sensitive operations; wrong ones count toward the
 * same limit as failed sign-ins (per account and per address, before the hash check).
 */
export async function requirePassword(
  ctx: Ctx,
  userId: string,
  password: string,
  message: string,
): Promise<UsersTable> {
  const attempt = await attemptLimiter(ctx).begin(userAccount(userId), ctx.address);
  const user = await ctx.db.kysely
    .selectFrom('users')
    .selectAll()
    .where('id', '=', userId)
    .executeTakeFirst();
  if (!user || !(await verifyPassword(user.password_hash, password))) throw badRequest(message);
  await attempt.succeeded();
  return user;
}
