import type { SprintTicketHistoryTable, TicketsTable } from '../db/types.js';
import type { Tx } from './context.js';
import { newId } from './ids.js';

export type SprintEntryType = SprintTicketHistoryTable['entry_type'];
export type SprintExitStatus = NonNullable<SprintTicketHistoryTable['exit_status']>;

export interface SprintChangeOptions {
  /** How the ticket leaves `fromSprintId` (default `removed`). */
  exitStatus?: SprintExitStatus;
  /** How the ticket enters `toSprintId` (default `added`). */
  entryType?: SprintEntryType;
}

/**
 * Records a ticket's change of sprint in `sprint_ticket_history`, inside the caller's transaction:
 * the open entry of the old sprint is closed (`exit_status`, default `removed`, and `exited_at`), and
 * an entry is opened in the new sprint (`entry_type`, default `added`) with the ticket's story points.
 * Either side may be null (the backlog). Nothing happens when both are the same sprint.
 * The ticket's own `sprint_id` is not changed here; the caller does that.
 */
export async function recordSprintChange(
  tx: Tx,
  ticket: Pick<TicketsTable, 'id' | 'story_points'>,
  fromSprintId: string | null,
  toSprintId: string | null,
  at: string,
  opts: SprintChangeOptions = {},
): Promise<void> {
  if (fromSprintId === toSprintId) return;
  if (fromSprintId) await closeSprintEntry(tx, ticket.id, fromSprintId, opts.exitStatus ?? 'removed', at);
  if (toSprintId) {
    await tx
      .insertInto('sprint_ticket_history')
      .values({
        id: newId(),
        sprint_id: toSprintId,
        ticket_id: ticket.id,
        entry_type: opts.entryType ?? 'added',
        entered_at: at,
        exit_status: null,
        exited_at: null,
        story_points: ticket.story_points,
      })
      .execute();
  }
}

/** Closes the ticket's open entry in the sprint (if any) with the given exit status. */
export async function closeSprintEntry(
  tx: Tx,
  ticketId: string,
  sprintId: string,
  exitStatus: SprintExitStatus,
  at: string,
): Promise<void> {
  await tx
    .updateTable('sprint_ticket_history')
    .set({ exit_status: exitStatus, exited_at: at })
    .where('sprint_id', '=', sprintId)
    .where('ticket_id', '=', ticketId)
    .where('exited_at', 'is', null)
    .execute();
}

/**
 * Records many tickets' changes of sprint (default exit and entry types), in one statement per
 * sprint left and one for all the entries opened.
 */
export async function recordSprintChanges(
  tx: Tx,
  moves: { ticket: Pick<TicketsTable, 'id' | 'story_points'>; from: string | null; to: string | null }[],
  at: string,
): Promise<void> {
  const real = moves.filter((m) => m.from !== m.to);
  const leaving = new Map<string, string[]>();
  for (const m of real) if (m.from) leaving.set(m.from, [...(leaving.get(m.from) ?? []), m.ticket.id]);
  for (const [sprintId, ticketIds] of leaving)
    await tx
      .updateTable('sprint_ticket_history')
      .set({ exit_status: 'removed', exited_at: at })
      .where('sprint_id', '=', sprintId)
      .where('ticket_id', 'in', ticketIds)
      .where('exited_at', 'is', null)
      .execute();
  const entries = real
    .filter((m) => m.to !== null)
    .map((m) => ({
      id: newId(),
      sprint_id: m.to as string,
      ticket_id: m.ticket.id,
      entry_type: 'added' as const,
      entered_at: at,
      exit_status: null,
      exited_at: null,
      story_points: m.ticket.story_points,
    }));
  if (entries.length > 0) await tx.insertInto('sprint_ticket_history').values(entries).execute();
}
