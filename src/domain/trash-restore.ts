import type { Kysely } from 'kysely';
import type { TicketsTable } from '../db/types.js';
import { recordUploadRefsFromText } from '../db/upload-refs.js';
import { ERR } from '../shared/errors.js';
import { projectAccess, roleAtLeast } from './access.js';
import { audit } from './audit.js';
import { lockColumn, rankAtEnd } from './board-ranks.js';
import type { Ctx, Tx } from './context.js';
import { AppError, notFound } from './errors.js';
import { nowIso } from './ids.js';
import { linkReader } from './link-visibility.js';
import { presentTicketsFull } from './presenters/tickets.js';
import { transactWrite } from './races.js';
import { writeHistoryOf } from './ticket-history.js';
import { emitTickets } from './ticket-updates.js';
import { firstColumn } from './tickets.js';
import { trashedInProject } from './trash.js';
import { insertChunked, type TrashSnapshot } from './trash-snapshot.js';

/** The ids of `ids` that exist in `table` (optionally of one project). */
async function existing(
  tx: Tx,
  table: 'users' | 'labels' | 'sprints' | 'tickets' | 'columns',
  ids: (string | null)[],
  projectId?: string,
): Promise<Set<string>> {
  const wanted = [...new Set(ids.filter((x): x is string => !!x))];
  if (wanted.length === 0) return new Set();
  let q = tx
    .selectFrom(table)
    .select(`${table}.id as id` as 'id')
    .where('id', 'in', wanted);
  if (projectId && table !== 'users') q = q.where('project_id' as never, '=', projectId as never);
  return new Set((await q.execute()).map((r) => r.id));
}

async function members(tx: Tx, projectId: string, ids: (string | null)[]): Promise<Set<string>> {
  const wanted = [...new Set(ids.filter((x): x is string => !!x))];
  if (wanted.length === 0) return new Set();
  const rows = await tx
    .selectFrom('project_members')
    .select('user_id')
    .where('project_id', '=', projectId)
    .where('user_id', 'in', wanted)
    .execute();
  return new Set(rows.map((r) => r.user_id));
}

/**
 * The uploaded files its description and comments showed, for those files that still exist; a
 * snapshot made before migration 115 has none, and they are recorded from its texts then.
 */
async function restoreUploadRefs(tx: Tx, snap: TrashSnapshot) {
  if (!snap.uploads) {
    await recordUploadRefsFromText(tx as unknown as Kysely<any>, [snap.ticket.id]);
    return;
  }
  const ids = [...new Set(snap.uploads.map((u) => u.upload_id))];
  if (ids.length === 0) return;
  const found = new Set(
    (await tx.selectFrom('uploads').select('id').where('id', 'in', ids).execute()).map((u) => u.id),
  );
  await insertChunked(
    tx,
    'upload_refs',
    snap.uploads.filter((u) => found.has(u.upload_id)),
  );
}

/**
 * POST /api/projects/:projectId/trash/:trashId/restore: puts a trashed ticket back with the same
 * id, number and key, its comments, labels, watchers, links, attachments (their files never left
 * the store), history and sprint record, at the end of its column. What changed meanwhile is
 * tolerated and said in `notes`: a deleted column puts it in the first one; a deleted label, link
 * target or sprint is dropped; a user who is gone (or no longer a member, for the assignee and
 * watchers) is cleared. Subtasks detached by the deletion that have no parent now are attached
 * again. Allowed to project admins and owners, and to the user who deleted it (the undo of a delete).
 */
export async function restoreTrashed(ctx: Ctx, projectRef: string, trashId: string) {
  return transactWrite(ctx, async (tx, emit) => {
    const access = await projectAccess(ctx, tx, projectRef);
    const { project, actor } = access;
    const entry = await trashedInProject(tx, project, trashId);
    if (!roleAtLeast(access.role, 'admin') && entry.deleted_by !== actor.userId)
      throw new AppError(403, ERR.trashRestoreForbidden);
    // Claim the entry first: of two restores at once, the second finds nothing (on PostgreSQL it
    // waits for the first's row lock, then sees the row gone).
    const claimed = await tx.deleteFrom('trashed_tickets').where('id', '=', entry.id).executeTakeFirst();
    if (Number(claimed.numDeletedRows) !== 1) throw notFound(ERR.trashedTicketNotFound);
    const snap = JSON.parse(entry.snapshot) as TrashSnapshot;
    const t = snap.ticket;
    const notes: string[] = [];
    const now = nowIso();

    const columns = await existing(tx, 'columns', [t.column_id], project.id);
    const column = columns.has(t.column_id)
      ? await tx.selectFrom('columns').selectAll().where('id', '=', t.column_id).executeTakeFirstOrThrow()
      : await firstColumn(tx, project.id);
    if (column.id !== t.column_id) notes.push(`Its column was deleted: placed in ${column.name}`);
    await lockColumn(ctx, tx, column.id);
    const rank = await rankAtEnd(tx, { table: 'tickets', scope: 'column_id', id: column.id });

    const userIds = [
      t.reporter_id,
      ...snap.comments.map((c) => c.author_id),
      ...snap.attachments.map((a) => a.uploader_id),
      ...snap.history.map((h) => h.changed_by),
      ...snap.links.map((l) => l.created_by),
    ];
    const users = await existing(tx, 'users', userIds);
    const userOrNull = (id: string | null) => (id && users.has(id) ? id : null);
    const memberIds = await members(tx, project.id, [t.assignee_id, ...snap.watchers]);
    const sprints = await tx
      .selectFrom('sprints')
      .select(['id', 'status', 'name'])
      .where('project_id', '=', project.id)
      .where('id', 'in', [
        ...snap.sprints.map((s) => s.sprint_id),
        t.sprint_id ?? '',
        t.carried_from_sprint_id ?? '',
      ])
      .execute();
    const sprintById = new Map(sprints.map((s) => [s.id, s]));
    const parents = await existing(tx, 'tickets', [t.parent_id], project.id);

    const row: TicketsTable = {
      ...t,
      column_id: column.id,
      rank,
      assignee_id: t.assignee_id && memberIds.has(t.assignee_id) ? t.assignee_id : null,
      reporter_id: userOrNull(t.reporter_id),
      sprint_id:
        t.sprint_id &&
        sprintById.get(t.sprint_id)?.status !== undefined &&
        sprintById.get(t.sprint_id)?.status !== 'completed'
          ? t.sprint_id
          : null,
      carried_from_sprint_id:
        t.carried_from_sprint_id && sprintById.has(t.carried_from_sprint_id)
          ? t.carried_from_sprint_id
          : null,
      parent_id: t.parent_id && parents.has(t.parent_id) ? t.parent_id : null,
      updated_at: now,
    };
    if (t.assignee_id && !row.assignee_id) notes.push('Its assignee is no longer a member: unassigned');
    if (t.sprint_id && !row.sprint_id)
      notes.push('Its sprint was deleted or completed: moved to the backlog');
    if (t.parent_id && !row.parent_id) notes.push('Its parent was deleted: no parent now');
    await tx.insertInto('tickets').values(row).execute();

    const labels = await existing(
      tx,
      'labels',
      snap.labels.map((l) => l.id),
      project.id,
    );
    const keptLabels = snap.labels.filter((l) => labels.has(l.id));
    for (const l of snap.labels.filter((l) => !labels.has(l.id)))
      notes.push(`Label ${l.name} was deleted: dropped`);
    if (keptLabels.length)
      await tx
        .insertInto('ticket_labels')
        .values(keptLabels.map((l) => ({ ticket_id: t.id, label_id: l.id })))
        .execute();
    const watchers = snap.watchers.filter((w) => memberIds.has(w));
    if (watchers.length)
      await tx
        .insertInto('ticket_watchers')
        .values(watchers.map((user_id) => ({ ticket_id: t.id, user_id })))
        .execute();

    const others = snap.links.map((l) =>
      l.source_ticket_id === t.id ? l.target_ticket_id : l.source_ticket_id,
    );
    const linked = await existing(
      tx,
      'tickets',
      others.filter((o) => o !== t.id),
    );
    const links = snap.links.filter((_l, i) => others[i] === t.id || linked.has(others[i]));
    if (links.length < snap.links.length)
      notes.push(`${snap.links.length - links.length} linked ticket(s) no longer exist: link(s) dropped`);
    for (const l of links)
      await tx
        .insertInto('ticket_links')
        .values({ ...l, created_by: userOrNull(l.created_by) })
        .onConflict((oc) => oc.doNothing())
        .execute();

    const byUser = <R>(rows: R[], key: keyof R) =>
      rows.map((r) => ({ ...r, [key]: userOrNull(r[key] as string | null) }));
    await insertChunked(tx, 'comments', byUser(snap.comments, 'author_id'));
    await insertChunked(tx, 'attachments', byUser(snap.attachments, 'uploader_id'));
    await insertChunked(tx, 'ticket_history', byUser(snap.history, 'changed_by'));
    const sprintRows = snap.sprints.filter((s) => sprintById.has(s.sprint_id));
    await insertChunked(tx, 'sprint_ticket_history', sprintRows);
    await restoreUploadRefs(tx, snap);
    if (snap.imports.length)
      await tx
        .insertInto('import_sources')
        .values(snap.imports)
        .onConflict((oc) => oc.doNothing())
        .execute();

    // Subtasks detached by the deletion that still exist and have no parent get it back.
    const children = snap.children.length
      ? await tx
          .selectFrom('tickets')
          .select('id')
          .where('id', 'in', snap.children)
          .where('project_id', '=', project.id)
          .where('parent_id', 'is', null)
          .execute()
      : [];
    if (children.length) {
      const ids = children.map((c) => c.id);
      await tx
        .updateTable('tickets')
        .set({ parent_id: t.id, updated_at: now })
        .where('id', 'in', ids)
        .execute();
      const key = `${project.key}-${t.number}`;
      await writeHistoryOf(
        tx,
        ids.map((ticketId) => ({ ticketId, changes: [{ field: 'parent', oldValue: null, newValue: key }] })),
        actor.userId,
        now,
      );
    }

    await audit(tx, ctx, {
      action: 'ticket.restored',
      target: { type: 'ticket', id: t.id },
      details: { key: `${project.key}-${t.number}`, title: t.title },
    });
    const [forEvent] = await presentTicketsFull(tx, project.key, [t.id]);
    emit({ scope: 'project', type: 'ticket.created', projectId: project.id, data: forEvent });
    await emitTickets(
      tx,
      emit,
      project,
      children.map((c) => ({ id: c.id, moved: false })),
      { userId: '', readsAll: false },
    );
    const [ticket] = await presentTicketsFull(tx, project.key, [t.id], linkReader(actor));
    return { ticket, notes };
  });
}
