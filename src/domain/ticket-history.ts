import type { TicketHistoryTable } from '../db/types.js';
import { projectAccess, ticketInProject } from './access.js';
import type { Ctx, Tx } from './context.js';
import { newId } from './ids.js';
import { pageOf } from './paging.js';
import { presentHistoryEntry } from './presenters/history.js';

/**
 * Tracked fields, by their history name. `status` is the column; `assignee`, `sprint`, `status`,
 * `labels` and `parent` are recorded as display strings (names, the parent's key).
 */
export const TRACKED_FIELDS = [
  'title',
  'description',
  'type',
  'priority',
  'status',
  'assignee',
  'sprint',
  'parent',
  'labels',
  'storyPoints',
  'estimate',
  'startDate',
  'dueDate',
  'environment',
  'affectedVersion',
  'fixVersion',
] as const;
export type TrackedField = (typeof TRACKED_FIELDS)[number];

export interface Change {
  field: TrackedField;
  oldValue: string | null;
  newValue: string | null;
}

/** Writes one entry per changed field, all with the same author and time. */
export const writeHistory = (tx: Tx, ticketId: string, changes: Change[], by: string | null, at: string) =>
  writeHistoryOf(tx, [{ ticketId, changes }], by, at);

/** The same for many tickets, in one statement per 500 entries. */
export async function writeHistoryOf(
  tx: Tx,
  entries: { ticketId: string; changes: Change[] }[],
  by: string | null,
  at: string,
) {
  const rows: TicketHistoryTable[] = entries.flatMap(({ ticketId, changes }) =>
    changes
      .filter((c) => c.oldValue !== c.newValue)
      .map((c) => ({
        id: newId(),
        ticket_id: ticketId,
        field: c.field,
        old_value: c.oldValue,
        new_value: c.newValue,
        changed_by: by,
        changed_at: at,
      })),
  );
  for (let i = 0; i < rows.length; i += 500)
    await tx
      .insertInto('ticket_history')
      .values(rows.slice(i, i + 500))
      .execute();
}

/** A ticket's history, newest first: {id, field, oldValue, newValue, changedBy {id, name}, changedAt}. */
export async function listHistory(
  ctx: Ctx,
  projectRef: string,
  ticketRef: string,
  page: { limit?: number; offset?: number },
) {
  const db = ctx.db.kysely;
  const { project } = await projectAccess(ctx, db, projectRef);
  const ticket = await ticketInProject(db, project, ticketRef);
  const base = db.selectFrom('ticket_history as h').where('h.ticket_id', '=', ticket.id);
  const total = await base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  const { limit, offset } = pageOf(page);
  const rows = await base
    .leftJoin('users as u', 'u.id', 'h.changed_by')
    .select([
      'h.id',
      'h.field',
      'h.old_value',
      'h.new_value',
      'h.changed_at',
      'u.id as u_id',
      'u.username',
      'u.name',
    ])
    .orderBy('h.changed_at', 'desc')
    .orderBy('h.id', 'desc')
    .limit(limit)
    .offset(offset)
    .execute();
  const items = rows.map(presentHistoryEntry);
  return { items, total: Number(total.n) };
}
