import type { ColumnsTable, ProjectsTable, TicketsTable } from '../db/types.js';
import { LIMITS } from '../shared/limits.js';
import { fillFromTemplate } from '../shared/templates.js';
import type { CreateTicketBody } from '../shared/tickets.js';
import { assertMayDeleteTickets, projectAccess, ticketInProject } from './access.js';
import { auditMany } from './audit.js';
import { lockColumn, nextTicketNumber, rankAtEnd } from './board-ranks.js';
import { actorOf, type Ctx, type Emit, type Tx } from './context.js';
import { invalidField } from './errors.js';
import { newId, nowIso } from './ids.js';
import type { LinkReader } from './link-visibility.js';
import { notifyTicketCreated } from './notifications/index.js';
import { presentTicketsFull } from './presenters/tickets.js';
import { defaultColumnRows } from './projects.js';
import { transactWrite } from './races.js';
import { recordSprintChange } from './sprint-membership.js';
import { templateForTicket } from './templates.js';
import { writeHistoryOf } from './ticket-history.js';
import { resolveRefs, unique } from './ticket-refs.js';
import { emitTickets, ticketsForBulk } from './ticket-updates.js';
import { trashTickets } from './trash-snapshot.js';

export { bulkUpdateTickets, updateTicket } from './ticket-updates.js';

// --- create ----------------------------------------------------------------------------------

export async function firstColumn(tx: Tx, projectId: string): Promise<ColumnsTable> {
  const col = await tx
    .selectFrom('columns')
    .selectAll()
    .where('project_id', '=', projectId)
    .orderBy('rank')
    .executeTakeFirst();
  if (col) return col;
  const rows = defaultColumnRows(projectId, nowIso());
  await tx.insertInto('columns').values(rows).execute();
  return rows[0];
}

/**
 * Creates a ticket at the end of its column. The number comes from the project's counter,
 * incremented in this transaction (`update … returning`, which holds the project row's lock on
 * PostgreSQL until commit), so numbers are strictly increasing, never reused, and unique under
 * concurrent creation; the unique (project_id, number) constraint backs it. The number is taken
 * last, after the references are resolved and the rank chosen, so that concurrent creates wait
 * for each other as briefly as they can. Locks are taken column first, then project, as everywhere.
 */
export async function createTicket(ctx: Ctx, projectRef: string, body: CreateTicketBody) {
  const actor = actorOf(ctx);
  return transactWrite(ctx, async (tx, emit) => {
    const { project } = await projectAccess(ctx, tx, projectRef);
    // The template's fields fill what the request left out (decision 050).
    const fields = body.templateId
      ? fillFromTemplate(body, await templateForTicket(tx, project, body.templateId))
      : body;
    const title = fields.title?.trim();
    if (!title) throw invalidField('title', 'Must not be blank');
    // The column named is checked by the statement that locks it (nextTicketNumber).
    const refs = await resolveRefs(tx, project, { ...fields, columnId: undefined });
    const columnId = fields.columnId?.toLowerCase() ?? (await firstColumn(tx, project.id)).id;
    // The column's lock and the number first, in one round trip; then the rank at the column's end,
    // read once the lock is held. Both locks last to the COMMIT, so little follows them.
    const number = await nextTicketNumber(ctx, tx, project.id, columnId);
    const rank = await rankAtEnd(tx, { table: 'tickets', scope: 'column_id', id: columnId });
    const now = nowIso();
    const row: TicketsTable = {
      id: newId(),
      project_id: project.id,
      number,
      title: title.slice(0, LIMITS.ticketTitleMax),
      description: fields.description ?? null,
      type: fields.type ?? 'Task',
      priority: fields.priority ?? 'Medium',
      column_id: columnId,
      rank,
      assignee_id: refs.assignee?.id ?? null,
      reporter_id: actor.userId,
      sprint_id: refs.sprint?.id ?? null,
      parent_id: refs.parent?.id ?? null,
      story_points: fields.storyPoints ?? null,
      estimate: body.estimate || null,
      start_date: body.startDate ?? null,
      due_date: body.dueDate ?? null,
      environment: body.environment || null,
      affected_version: body.affectedVersion || null,
      fix_version: body.fixVersion || null,
      is_carried_over: 0,
      carried_from_sprint_id: null,
      carried_over_count: 0,
      created_at: now,
      updated_at: now,
    };
    const watchers = unique([...(refs.watcherIds ?? []), actor.userId]);
    await insertTicket(
      ctx,
      tx,
      row,
      (refs.labels ?? []).map((l) => ({ ticket_id: row.id, label_id: l.id })),
      watchers.map((user_id) => ({ ticket_id: row.id, user_id })),
    );
    await recordSprintChange(tx, row, null, row.sprint_id, now);
    await notifyTicketCreated(ctx, tx, emit, project, row);
    const [out] = await presentTicketsFull(tx, project.key, [row.id]);
    emit({ scope: 'project', type: 'ticket.created', projectId: project.id, data: out });
    return out;
  });
}

/**
 * Writes a new ticket with its labels and watchers: on PostgreSQL in one statement (the ticket and
 * its labels as data-modifying CTEs), as it runs under the create's locks.
 */
async function insertTicket(
  s: Pick<Ctx, 'db'>,
  tx: Tx,
  row: TicketsTable,
  labels: { ticket_id: string; label_id: string }[],
  watchers: { ticket_id: string; user_id: string }[],
) {
  if (s.db.dialect === 'postgres') {
    const withTicket = tx.with('t', (db) => db.insertInto('tickets').values(row).returning('id'));
    if (labels.length === 0) await withTicket.insertInto('ticket_watchers').values(watchers).execute();
    else
      await withTicket
        .with('l', (db) => db.insertInto('ticket_labels').values(labels).returning('ticket_id'))
        .insertInto('ticket_watchers')
        .values(watchers)
        .execute();
    return;
  }
  await tx.insertInto('tickets').values(row).execute();
  if (labels.length > 0) await tx.insertInto('ticket_labels').values(labels).execute();
  await tx.insertInto('ticket_watchers').values(watchers).execute();
}

// --- delete ----------------------------------------------------------------------------------

/**
 * Deletes tickets inside the caller's transaction: puts each in the trash (decision 048; their
 * attachment files stay in the store until purge), detaches subtasks, and returns the trash ids.
 * The others' ranks stay.
 */
async function removeTickets(
  tx: Tx,
  emit: Emit,
  project: ProjectsTable,
  tickets: TicketsTable[],
  by: string,
) {
  const ids = tickets.map((t) => t.id);
  const now = nowIso();
  const trashIds = await trashTickets(tx, tickets, by, now);
  const children = await tx
    .selectFrom('tickets')
    .select(['id', 'parent_id'])
    .where('parent_id', 'in', ids)
    .where('id', 'not in', ids)
    .execute();
  if (children.length > 0) {
    await tx
      .updateTable('tickets')
      .set({ parent_id: null, updated_at: now })
      .where(
        'id',
        'in',
        children.map((c) => c.id),
      )
      .execute();
    const numbers = new Map(tickets.map((t) => [t.id, `${project.key}-${t.number}`]));
    await writeHistoryOf(
      tx,
      children.map((c) => ({
        ticketId: c.id,
        changes: [{ field: 'parent', oldValue: numbers.get(c.parent_id ?? '') ?? null, newValue: null }],
      })),
      by,
      now,
    );
  }
  await tx.deleteFrom('tickets').where('id', 'in', ids).execute();
  await emitTickets(
    tx,
    emit,
    project,
    children.map((c) => ({ id: c.id, moved: false })),
    NO_READER,
  );
  for (const id of ids)
    emit({ scope: 'project', type: 'ticket.deleted', projectId: project.id, data: { id } });
  return trashIds;
}

/** Nobody in particular: only the project's own links (the answer is not returned to anyone). */
const NO_READER: LinkReader = { userId: '', readsAll: false };

/** One audit entry per deleted ticket, with its key and title (they are gone after). */
function auditTicketDeletions(
  tx: Tx,
  ctx: Ctx,
  project: ProjectsTable,
  tickets: TicketsTable[],
  bulk = false,
) {
  return auditMany(
    tx,
    ctx,
    tickets.map((t) => ({
      action: 'ticket.deleted' as const,
      target: { type: 'ticket', id: t.id },
      details: { key: `${project.key}-${t.number}`, title: t.title, ...(bulk ? { bulk: true } : {}) },
    })),
  );
}

export async function deleteTicket(ctx: Ctx, projectRef: string, ticketRef: string) {
  const actor = actorOf(ctx);
  const [trashId] = await transactWrite(ctx, async (tx, emit) => {
    const access = await projectAccess(ctx, tx, projectRef);
    const { project } = access;
    // Locked: a deletion racing another one of the same ticket waits, then finds it gone (404),
    // instead of both putting it in the trash.
    const ticket = await ticketInProject(tx, project, ticketRef, ctx);
    assertMayDeleteTickets(access, [ticket]);
    await auditTicketDeletions(tx, ctx, project, [ticket]);
    return removeTickets(tx, emit, project, [ticket], actor.userId);
  });
  return { success: true as const, trashId };
}

export async function bulkDeleteTickets(ctx: Ctx, projectRef: string, ticketIds: string[]) {
  const actor = actorOf(ctx);
  return transactWrite(ctx, async (tx, emit) => {
    const access = await projectAccess(ctx, tx, projectRef);
    const { project } = access;
    const tickets = await ticketsForBulk(tx, project, ticketIds, ctx);
    assertMayDeleteTickets(access, tickets);
    await auditTicketDeletions(tx, ctx, project, tickets, true);
    const trashIds = await removeTickets(tx, emit, project, tickets, actor.userId);
    return { success: true as const, deleted: tickets.length, trashIds };
  });
}
