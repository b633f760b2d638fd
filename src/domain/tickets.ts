import { sql } from 'kysely';
import type { ColumnsTable, ProjectsTable, TicketsTable } from '../db/types.js';
import { LIMITS } from '../shared/limits.js';
import { fillFromTemplate } from '../shared/templates.js';
import type { CreateTicketBody } from '../shared/tickets.js';
import { assertMayDeleteTickets, projectAccess, ticketInProject } from './access.js';
import { auditMany } from './audit.js';
import { type NewTicketPlace, rankAtEndOfLocked, rankForNewTicket } from './board-ranks.js';
import { actorOf, type Ctx, type Emit, type Tx } from './context.js';
import { invalidField } from './errors.js';
import { newId, nowIso } from './ids.js';
import type { LinkReader } from './link-visibility.js';
import { notifyTicketCreated } from './notifications/index.js';
import { preparedMarker } from './prepared.js';
import { presentTicketsFull } from './presenters/tickets.js';
import { defaultColumnRows } from './projects.js';
import { transactWrite } from './races.js';
import { recordSprintChange } from './sprint-membership.js';
import { templateForTicket } from './templates.js';
import { writeHistoryOf } from './ticket-history.js';
import { resolveRefs, unique } from './ticket-refs.js';
import { emitTickets, ticketsForBulk } from './ticket-updates.js';
import { trashTickets } from './trash-snapshot.js';
import { recordUploadRefs } from './upload-refs.js';

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
 * concurrent creation; the unique (project_id, number) constraint backs it. The number is drawn
 * as the row is written, after the references are resolved and the rank chosen, so that creates
 * of a project wait for each other only for the ticket's read and the COMMIT; creates into one
 * column share its lock (rankForNewTicket). Locks are taken column first, then project, as
 * everywhere.
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
    // The column named is checked by the statement that locks it (rankForNewTicket).
    const refs = await resolveRefs(tx, project, { ...fields, columnId: undefined });
    // null: the project has no columns yet; its default columns are made, then the first one taken.
    const placed =
      (await rankForNewTicket(ctx, tx, project.id, fields.columnId?.toLowerCase() ?? null)) ??
      (await rankForNewTicket(ctx, tx, project.id, (await firstColumn(tx, project.id)).id));
    if (!placed) throw new Error('a column named by id is found or refused, never null');
    const { columnId, rank } = placed;
    const now = nowIso();
    const row: TicketsTable = {
      id: newId(),
      project_id: project.id,
      number: 0, // drawn as the row is written (insertTicket)
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
    const labels = (refs.labels ?? []).map((l) => l.id);
    const watchers = unique([...(refs.watcherIds ?? []), actor.userId]);
    let number = await insertTicket(ctx, tx, row, labels, watchers, placed.readLast);
    if (number === null) {
      // What the column's lock statement read of its end is gone (rankForNewTicket): read it again.
      row.rank = await rankAtEndOfLocked(tx, columnId);
      number = await insertTicket(ctx, tx, row, labels, watchers, undefined);
    }
    if (number === null) throw new Error('a ticket written without a check is written');
    row.number = number;
    await recordUploadRefs(ctx, tx, [
      { place: { projectId: project.id, ticketId: row.id }, text: row.description, before: null },
    ]);
    await recordSprintChange(tx, row, null, row.sprint_id, now);
    await notifyTicketCreated(ctx, tx, emit, project, row);
    // At the end of its column: its order is counted from there.
    const [out] = await presentTicketsFull(tx, project.key, [row.id], null, 'nearEnd');
    emit({ scope: 'project', type: 'ticket.created', projectId: project.id, data: out });
    return out;
  });
}

/**
 * Writes a new ticket with its labels and watchers, and answers its number, drawn from the
 * project's counter as it is written. The counter's row lock lasts to the COMMIT and every create
 * of the project waits for it, so on PostgreSQL it is taken by the same statement that writes the
 * rows (data-modifying CTEs), and only the ticket's read and the COMMIT follow it.
 *
 * PostgreSQL, `readLast` (rankForNewTicket; undefined: no check): the rows are written only while
 * the column's last ticket read then is still there with that rank (null: while the column is
 * still empty); otherwise nothing is written, the counter included, and the answer is null.
 */
async function insertTicket(
  s: Pick<Ctx, 'db'>,
  tx: Tx,
  row: TicketsTable,
  labels: string[],
  watchers: string[],
  readLast: NewTicketPlace['readLast'],
): Promise<number | null> {
  if (s.db.dialect === 'postgres') {
    const columns = Object.keys(row) as (keyof TicketsTable)[];
    const check =
      readLast === undefined
        ? sql``
        : readLast === null
          ? sql` and not exists (select 1 from tickets where column_id = ${row.column_id})`
          : sql` and exists (select 1 from tickets where id = ${readLast.id} and column_id = ${row.column_id} and rank = ${readLast.rank})`;
    const each = (name: string, values: string[]) =>
      sql`(values ${sql.join(values.map((v) => sql`(${v})`))}) v(${sql.ref(name)})`;
    const compiled = sql<{ number: number }>`with n as (
        update projects set ticket_counter = ticket_counter + 1 where id = ${row.project_id}${check} returning ticket_counter
      ), t as (
        insert into tickets (${sql.join(columns.map((c) => sql.ref(c)))})
        select ${sql.join(columns.map((c) => (c === 'number' ? sql`n.ticket_counter` : sql`${row[c]}`)))} from n
        returning id, number
      )${
        labels.length > 0
          ? sql`, l as (insert into ticket_labels (ticket_id, label_id) select t.id, v.label_id from t, ${each('label_id', labels)})`
          : sql``
      }, w as (
        insert into ticket_watchers (ticket_id, user_id) select t.id, v.user_id from t, ${each('user_id', watchers)}
      )
      select number from t`.compile(tx);
    // A named statement per shape (the check, how many labels and watchers): parsed and planned
    // once per connection, where planning this statement cost more than running it.
    const shape = readLast === undefined ? 'any' : readLast === null ? 'empty' : 'last';
    const { rows } = await tx.executeQuery<{ number: number }>({
      ...compiled,
      sql: `${compiled.sql} ${preparedMarker(`ticket-insert-${shape}-${labels.length}-${watchers.length}`)}`,
    });
    return rows.length === 0 ? null : Number(rows[0].number);
  }
  const counter = await tx
    .updateTable('projects')
    .set((eb) => ({ ticket_counter: eb('ticket_counter', '+', 1) }))
    .where('id', '=', row.project_id)
    .returning('ticket_counter')
    .executeTakeFirstOrThrow();
  const number = Number(counter.ticket_counter);
  await tx
    .insertInto('tickets')
    .values({ ...row, number })
    .execute();
  if (labels.length > 0)
    await tx
      .insertInto('ticket_labels')
      .values(labels.map((label_id) => ({ ticket_id: row.id, label_id })))
      .execute();
  await tx
    .insertInto('ticket_watchers')
    .values(watchers.map((user_id) => ({ ticket_id: row.id, user_id })))
    .execute();
  return number;
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
