import { sql } from 'kysely';
import { ERR } from '../shared/errors.js';
import type { AuditQuery } from '../shared/security.js';
import type { Ctx, Services, Tx } from './context.js';
import { badRequest } from './errors.js';
import { newId, nowIso } from './ids.js';
import { presentAuditEntry } from './presenters/security.js';

/**
 * The audit log (docs/security.md): who did what to what, when and from where. Entries are
 * appended in the transaction of the change they record (a change that rolls back leaves no
 * entry), never updated, and deleted only when older than DOCKET_AUDIT_DAYS.
 */
export type AuditAction =
  | 'auth.login'
  | 'auth.login_failed'
  | 'auth.logout'
  | 'account.password_changed'
  | 'account.email_changed'
  | 'account.deleted'
  | 'account.two_factor_enabled'
  | 'account.two_factor_disabled'
  | 'account.password_reset_requested'
  | 'account.password_reset'
  | 'account.sso_linked'
  | 'account.sso_created'
  | 'session.ended'
  | 'api_key.created'
  | 'api_key.revoked'
  | 'oauth.client_registered'
  | 'oauth.grant_approved'
  | 'oauth.grant_revoked'
  | 'admin.user_created'
  | 'admin.user_updated'
  | 'admin.user_deleted'
  | 'admin.settings_updated'
  | 'admin.database_exported'
  | 'admin.database_imported'
  | 'admin.database_wiped'
  | 'admin.projects_wiped'
  | 'project.deleted'
  | 'member.added'
  | 'member.role_changed'
  | 'member.removed'
  | 'ticket.deleted'
  | 'template.created'
  | 'template.updated'
  | 'template.deleted'
  | 'ticket.restored'
  | 'ticket.purged'
  | 'webhook.created'
  | 'webhook.updated'
  | 'webhook.deleted';

export interface AuditEntry {
  action: AuditAction;
  /** Who acted; defaults to the context's actor. Null for nobody signed in (a failed sign-in). */
  actor?: { id: string; name?: string } | null;
  target?: { type: string; id: string | null };
  details?: Record<string, unknown>;
}

type Who = Pick<Ctx, 'actor'> & { address?: string | null };

/** Appends one entry, in the caller's transaction. */
export async function audit(tx: Tx, ctx: Who, entry: AuditEntry): Promise<void> {
  await auditMany(tx, ctx, [entry]);
}

/** Appends entries, in the caller's transaction. */
export async function auditMany(tx: Tx, ctx: Who, entries: AuditEntry[]): Promise<void> {
  if (entries.length === 0) return;
  const at = nowIso();
  const names = new Map<string, string | null>();
  const rows = [];
  for (const e of entries) {
    const actorId = e.actor !== undefined ? (e.actor?.id ?? null) : (ctx.actor?.userId ?? null);
    if (e.actor?.name !== undefined) names.set(e.actor.id, e.actor.name);
    if (actorId && !names.has(actorId)) {
      const u = await tx.selectFrom('users').select('username').where('id', '=', actorId).executeTakeFirst();
      names.set(actorId, u?.username ?? null);
    }
    const name = actorId ? (names.get(actorId) ?? null) : null;
    rows.push({
      id: newId(),
      at,
      actor_id: actorId,
      actor_name: name,
      action: e.action,
      target_type: e.target?.type ?? null,
      target_id: e.target?.id ?? null,
      address: ctx.address ?? null,
      details: e.details ? JSON.stringify(e.details) : null,
    });
  }
  for (let i = 0; i < rows.length; i += 500)
    await tx
      .insertInto('audit_log')
      .values(rows.slice(i, i + 500))
      .execute();
}

/** GET /api/admin/audit: newest first, filtered, paged by an opaque cursor (the last id seen). */
export async function listAudit(ctx: Ctx, q: AuditQuery) {
  const db = ctx.db.kysely;
  const limit = q.limit ?? 50;
  let query = db.selectFrom('audit_log').selectAll();
  if (q.actor) {
    const a = q.actor.toLowerCase();
    query = query.where((eb) => eb.or([eb('actor_id', '=', a), eb(sql`lower(actor_name)`, '=', a)]));
  }
  if (q.action) {
    // `escape` is spelled out: SQLite's LIKE has no escape character otherwise (`account.password_*`).
    const prefix = `${q.action.slice(0, -1).replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    query = q.action.endsWith('*')
      ? query.where(sql<boolean>`action like ${prefix} escape '\\'`)
      : query.where('action', '=', q.action);
  }
  if (q.since) query = query.where('at', '>=', q.since);
  if (q.cursor) {
    if (!/^[0-9a-f-]{36}$/.test(q.cursor))
      throw badRequest(ERR.validation, { details: [{ path: 'query.cursor', message: 'Invalid cursor' }] });
    query = query.where('id', '<', q.cursor);
  }
  const rows = await query
    .orderBy('id', 'desc')
    .limit(limit + 1)
    .execute();
  const page = rows.slice(0, limit);
  return {
    items: page.map(presentAuditEntry),
    nextCursor: rows.length > limit ? page[page.length - 1].id : null,
  };
}

/** Deletes entries older than DOCKET_AUDIT_DAYS. */
export async function pruneAudit(s: Services, now = Date.now()): Promise<number> {
  const cutoff = new Date(now - s.config.auditDays * 86_400_000).toISOString();
  const res = await s.db.kysely.deleteFrom('audit_log').where('at', '<', cutoff).executeTakeFirst();
  return Number(res.numDeletedRows ?? 0);
}
