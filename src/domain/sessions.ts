import type { SessionUserOut } from '../shared/accounts.js';
import { ERR } from '../shared/errors.js';
import type { SessionItemOut } from '../shared/security.js';
import { audit } from './audit.js';
import { actorOf, type Ctx } from './context.js';
import { notFound } from './errors.js';
import { nowIso } from './ids.js';
import { presentSession } from './presenters/security.js';
import { presentSessionUser } from './presenters/users.js';

/**
 * GET /api/auth/session: the user of the session this request came with, or null (no session: signed
 * out, or signed in with an API key; or the user is gone).
 */
export async function sessionUser(ctx: Ctx): Promise<SessionUserOut | null> {
  const actor = ctx.actor;
  if (actor?.via !== 'session') return null;
  const user = await ctx.db.kysely
    .selectFrom('users')
    .select(['id', 'username', 'name', 'email', 'avatar', 'is_system_admin', 'must_change_password'])
    .where('id', '=', actor.userId)
    .executeTakeFirst();
  return user ? presentSessionUser(user, actor.twoFactorSetupRequired === true) : null;
}

/** My sessions that have not expired, newest first; `current` marks the one this request uses. */
export async function listSessions(ctx: Ctx): Promise<SessionItemOut[]> {
  const actor = actorOf(ctx);
  const rows = await ctx.db.kysely
    .selectFrom('sessions')
    .select(['id', 'created_at', 'last_used_at', 'expires_at', 'user_agent', 'address'])
    .where('user_id', '=', actor.userId)
    .where('expires_at', '>', nowIso())
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .execute();
  return rows.map((r) => presentSession(r, actor.sessionId));
}

export interface EndedSessions {
  userId: string;
  /** Token hashes of the ended sessions, so this instance's streams of them close now. */
  hashes: string[];
  current: boolean;
}

/** Ends one of my sessions (404 for anyone else's or an unknown id). */
export async function endSession(ctx: Ctx, sessionId: string): Promise<EndedSessions> {
  const actor = actorOf(ctx);
  const row = await ctx.db.kysely.transaction().execute(async (tx) => {
    const found = await tx
      .deleteFrom('sessions')
      .where('id', '=', sessionId.toLowerCase())
      .where('user_id', '=', actor.userId)
      .returning(['id', 'token_hash'])
      .executeTakeFirst();
    if (found) await audit(tx, ctx, { action: 'session.ended', target: { type: 'session', id: found.id } });
    return found;
  });
  if (!row) throw notFound(ERR.sessionNotFound);
  return { userId: actor.userId, hashes: [row.token_hash], current: row.id === actor.sessionId };
}

/** Ends every session of mine but the one this request uses. */
export async function endOtherSessions(ctx: Ctx): Promise<EndedSessions> {
  const actor = actorOf(ctx);
  const rows = await ctx.db.kysely.transaction().execute(async (tx) => {
    let q = tx.deleteFrom('sessions').where('user_id', '=', actor.userId);
    if (actor.sessionId) q = q.where('id', '!=', actor.sessionId);
    const ended = await q.returning('token_hash').execute();
    if (ended.length > 0)
      await audit(tx, ctx, {
        action: 'session.ended',
        details: { allButCurrent: true, count: ended.length },
      });
    return ended;
  });
  return { userId: actor.userId, hashes: rows.map((r) => r.token_hash), current: false };
}
