import { sql } from 'kysely';
import type { UsersTable } from '../db/types.js';
import { ERR } from '../shared/errors.js';
import { attemptLimiter, nameAccount, userAccount } from './attempts.js';
import type { Actor, Ctx, Services, Tx } from './context.js';
import { AppError, badRequest, forbidden, unauthorized } from './errors.js';
import { newId, nowIso } from './ids.js';
import { verifyPassword } from './passwords.js';
import { arg, runPrepared } from './prepared.js';
import { readCache } from './read-cache.js';
import { hashToken, newApiKey, newSessionToken } from './tokens.js';

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

/**
 * Checks credentials: 401 for wrong ones; 403 for a disabled account whatever the password (the
 * answer tells nothing about the password of a disabled account). The attempt is counted before
 * the hash check, per account and per address (src/domain/attempts.ts).
 */
export async function checkCredentials(ctx: Ctx, login: string, password: string): Promise<UsersTable> {
  const user = await findUserByLogin(ctx.db.kysely, login);
  const attempt = attemptLimiter(ctx).begin(user ? userAccount(user.id) : nameAccount(login), ctx.address);
  const ok = await verifyPassword(user?.password_hash, password);
  if (user && user.is_active !== 1) throw forbidden(ERR.accountDisabled);
  if (!user || !ok) throw unauthorized(ERR.invalidCredentials);
  attempt.succeeded();
  return user;
}

export async function login(ctx: Ctx, loginName: string, password: string) {
  const user = await checkCredentials(ctx, loginName, password);
  const session = await createSession(ctx, ctx.db.kysely, user.id);
  return { user, session };
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
            ])
            .where('sessions.token_hash', '=', arg(0)),
        [tokenHash],
      );
      if (!found) return null;
      const { session_id, session_expires, session_used, ...user } = found;
      return {
        actor: {
          userId: user.id,
          isSystemAdmin: user.is_system_admin === 1,
          via: 'session',
          sessionId: session_id,
          mustChangePassword: user.must_change_password === 1,
        },
        user,
        expires: session_expires,
        sessionId: session_id,
        expiresAt: Date.parse(session_expires),
        lastUsedAt: session_used ? Date.parse(session_used) : 0,
        active: user.is_active === 1,
      };
    },
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
      .execute();
  }
  return session;
}

/** Resolves a Bearer API key; 401 `Invalid API key` for a wrong or revoked key or an inactive user. */
export async function resolveApiKey(s: Services, key: string): Promise<Actor> {
  const keyHash = hashToken(key);
  const row = await readCache(s.db).get(s, `api-key:${keyHash}`, async () => {
    const [found] = await runPrepared(
      s.db.kysely,
      'api-key-resolve',
      (db) =>
        db
          .selectFrom('api_keys')
          .innerJoin('users', 'users.id', 'api_keys.user_id')
          .select([
            'api_keys.id as key_id',
            'api_keys.last_used_at',
            'users.id',
            'users.is_active',
            'users.is_system_admin',
            'users.must_change_password',
          ])
          .where('api_keys.key_hash', '=', arg(0)),
      [keyHash],
    );
    return found ?? null;
  });
  if (row?.is_active !== 1) throw new AppError(401, ERR.invalidApiKey);
  const now = nowIso();
  // Record use at most once a minute, so that reads stay reads.
  if (!row.last_used_at || Date.parse(now) - Date.parse(row.last_used_at) > 60_000) {
    await s.db.kysely
      .updateTable('api_keys')
      .set({ last_used_at: now })
      .where('id', '=', row.key_id)
      .execute();
  }
  return {
    userId: row.id,
    isSystemAdmin: row.is_system_admin === 1,
    via: 'apiKey',
    sessionId: null,
    mustChangePassword: row.must_change_password === 1,
  };
}

export async function deleteSessionByToken(s: Services, token: string): Promise<string | null> {
  const row = await s.db.kysely
    .deleteFrom('sessions')
    .where('token_hash', '=', hashToken(token))
    .returning('user_id')
    .executeTakeFirst();
  return row?.user_id ?? null;
}

/** Ends every session of a user (password change, disabling, deletion). */
export async function endAllSessions(tx: Tx, userId: string): Promise<void> {
  await tx.deleteFrom('sessions').where('user_id', '=', userId).execute();
}

/** Creates the user's API key, replacing any earlier one; the key itself is returned only here. */
export async function createApiKey(ctx: Ctx, userId: string) {
  const apiKey = newApiKey();
  const createdAt = nowIso();
  await ctx.db.kysely.transaction().execute(async (tx) => {
    await tx.deleteFrom('api_keys').where('user_id', '=', userId).execute();
    await tx
      .insertInto('api_keys')
      .values({
        id: newId(),
        user_id: userId,
        key_hash: hashToken(apiKey),
        created_at: createdAt,
        last_used_at: null,
      })
      .execute();
  });
  return { apiKey, createdAt };
}

export async function apiKeyStatus(ctx: Ctx, userId: string) {
  const row = await ctx.db.kysely
    .selectFrom('api_keys')
    .select(['created_at', 'last_used_at'])
    .where('user_id', '=', userId)
    .executeTakeFirst();
  return { hasKey: !!row, createdAt: row?.created_at ?? null, lastUsedAt: row?.last_used_at ?? null };
}

export async function revokeApiKey(ctx: Ctx, userId: string) {
  await ctx.db.kysely.deleteFrom('api_keys').where('user_id', '=', userId).execute();
  return { success: true as const };
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
  const attempt = attemptLimiter(ctx).begin(userAccount(userId), ctx.address);
  const user = await ctx.db.kysely
    .selectFrom('users')
    .selectAll()
    .where('id', '=', userId)
    .executeTakeFirst();
  if (!user || !(await verifyPassword(user.password_hash, password))) throw badRequest(message);
  attempt.succeeded();
  return user;
}
