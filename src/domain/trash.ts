import type { ProjectsTable, TrashedTicketsTable } from '../db/types.js';
import { removeStoredFiles } from '../files/uploads.js';
import { ERR } from '../shared/errors.js';
import { parseTicketKey } from '../shared/rules.js';
import { TRASH_DAYS } from '../shared/trash.js';
import { projectAccess, roleAtLeast } from './access.js';
import { auditMany } from './audit.js';
import { actorOf, type Ctx, type Services, type Tx, transact } from './context.js';
import { notFound } from './errors.js';
import { pageOf } from './paging.js';
import { presentTrashed } from './presenters/trash.js';
import { transactWrite } from './races.js';

/**
 * The trash (docs/decisions/048-trash-and-undo.md): listing and purging. A deleted ticket stays
 * TRASH_DAYS days; restoring it is src/domain/trash-restore.ts.
 */

const DAY_MS = 86_400_000;

const purgeAtOf = (deletedAt: string) => new Date(Date.parse(deletedAt) + TRASH_DAYS * DAY_MS).toISOString();

/**
 * GET /api/projects/:projectId/trash, newest first. Project admins and owners (system
 * administrators act as owners) see every entry; any other member only what they deleted.
 */
export async function listTrash(
  ctx: Ctx,
  projectRef: string,
  q: { limit?: number; offset?: number; ticket?: string },
) {
  const db = ctx.db.kysely;
  const access = await projectAccess(ctx, db, projectRef);
  const { project } = access;
  let base = db.selectFrom('trashed_tickets').where('trashed_tickets.project_id', '=', project.id);
  if (!roleAtLeast(access.role, 'admin'))
    base = base.where('trashed_tickets.deleted_by', '=', access.actor.userId);
  if (q.ticket) {
    const key = parseTicketKey(q.ticket);
    base = key
      ? base.where('trashed_tickets.number', '=', key.projectKey === project.key ? key.number : -1)
      : base.where('trashed_tickets.ticket_id', '=', q.ticket.toLowerCase());
  }
  const { limit, offset } = pageOf(q);
  const total = await base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  const rows = await base
    .leftJoin('users', 'users.id', 'trashed_tickets.deleted_by')
    .select([
      'trashed_tickets.id',
      'trashed_tickets.ticket_id',
      'trashed_tickets.number',
      'trashed_tickets.title',
      'trashed_tickets.type',
      'trashed_tickets.deleted_at',
      'users.id as user_id',
      'users.username',
      'users.name',
      'users.avatar',
    ])
    .orderBy('trashed_tickets.deleted_at', 'desc')
    .orderBy('trashed_tickets.id', 'desc')
    .limit(limit)
    .offset(offset)
    .execute();
  return {
    total: Number(total.n),
    items: rows.map((r) => presentTrashed(r, project.key, purgeAtOf(r.deleted_at))),
  };
}

/** The trash entry `trashId` of the project, or 404. */
export async function trashedInProject(tx: Tx, project: ProjectsTable, trashId: string) {
  const row = await tx
    .selectFrom('trashed_tickets')
    .selectAll()
    .where('project_id', '=', project.id)
    .where('id', '=', trashId.toLowerCase())
    .executeTakeFirst();
  if (!row) throw notFound(ERR.trashedTicketNotFound);
  return row;
}

/**
 * Deletes trash entries with their `trashed_files` rows, returning the entries and the stored
 * names of their files. Each `delete … returning` answers only the rows it removed itself, so two
 * instances purging at once never both claim a row: each file is removed by exactly one of them.
 */
async function deleteEntries(tx: Tx, ids: string[]) {
  if (ids.length === 0) return { entries: [] as TrashedTicketsTable[], files: [] as string[] };
  const files = await tx
    .deleteFrom('trashed_files')
    .where('trash_id', 'in', ids)
    .returning('stored_name')
    .execute();
  const entries = await tx.deleteFrom('trashed_tickets').where('id', 'in', ids).returningAll().execute();
  return { entries, files: files.map((f) => f.stored_name) };
}

function auditPurges(
  tx: Tx,
  ctx: Pick<Ctx, 'actor'>,
  keyOf: (e: TrashedTicketsTable) => string,
  entries: TrashedTicketsTable[],
  automatic: boolean,
) {
  return auditMany(
    tx,
    ctx,
    entries.map((e) => ({
      action: 'ticket.purged' as const,
      ...(automatic ? { actor: null } : {}),
      target: { type: 'ticket', id: e.ticket_id },
      details: { key: keyOf(e), title: e.title, ...(automatic ? { expired: true } : {}) },
    })),
  );
}

/** DELETE /api/projects/:projectId/trash/:trashId: removes it for good now (project admins). */
export async function purgeTrashed(ctx: Ctx, projectRef: string, trashId: string) {
  actorOf(ctx);
  const files = await transactWrite(ctx, async (tx) => {
    const { project } = await projectAccess(ctx, tx, projectRef, 'admin');
    const row = await trashedInProject(tx, project, trashId);
    const { entries, files } = await deleteEntries(tx, [row.id]);
    if (entries.length === 0) throw notFound(ERR.trashedTicketNotFound);
    await auditPurges(tx, ctx, (e) => `${project.key}-${e.number}`, entries, false);
    return files;
  });
  await removeStoredFiles(ctx, 'attachments', files);
  return { success: true as const };
}

/**
 * The periodic purge: removes every entry older than TRASH_DAYS and, after the commit, its files.
 * Safe with several instances running it at once (see deleteEntries). Returns how many it removed.
 */
export async function purgeExpiredTrash(s: Services, now = Date.now()): Promise<number> {
  const cutoff = new Date(now - TRASH_DAYS * DAY_MS).toISOString();
  let removed = 0;
  for (;;) {
    const ids = (
      await s.db.kysely
        .selectFrom('trashed_tickets')
        .select('id')
        .where('deleted_at', '<', cutoff)
        .orderBy('deleted_at')
        .limit(200)
        .execute()
    ).map((r) => r.id);
    if (ids.length === 0) return removed;
    const { files, count } = await transact(s, async (tx) => {
      const { entries, files } = await deleteEntries(tx, ids);
      const keys = new Map(
        (
          await tx
            .selectFrom('projects')
            .select(['id', 'key'])
            .where('id', 'in', [...new Set(entries.map((e) => e.project_id)), ''])
            .execute()
        ).map((p) => [p.id, p.key]),
      );
      await auditPurges(
        tx,
        { actor: null },
        (e) => `${keys.get(e.project_id) ?? '?'}-${e.number}`,
        entries,
        true,
      );
      return { files, count: entries.length };
    });
    removed += count;
    await removeStoredFiles(s, 'attachments', files);
    if (ids.length < 200) return removed;
  }
}
