/** Board positions (0..n-1 per column and per project): the lock that serialises their changes, and the one way to shift and compact them. */
import { sql } from 'kysely';
import type { Services, Tx } from './context.js';

/**
 * Serialises the transactions that change ticket or column positions of one project: on
 * PostgreSQL it takes the project row's lock (`select … for update`) until the transaction ends,
 * so concurrent moves see each other's positions and orders stay 0..n-1. SQLite runs one writer
 * at a time already. Call it before reading any position the transaction will change.
 */
export async function lockBoard(s: Pick<Services, 'db'>, tx: Tx, projectId: string): Promise<void> {
  if (s.db.dialect === 'postgres')
    await sql`select id from projects where id = ${projectId} for update`.execute(tx);
}

/**
 * Renumbers the tickets of the given columns 0..n-1, keeping their order (after deletions or
 * moves of several tickets at once). Only rows whose position changes are written.
 */
export async function compactTicketPositions(tx: Tx, columnIds: string[]): Promise<void> {
  if (columnIds.length === 0) return;
  const rows = await tx
    .selectFrom('tickets')
    .select(['id', 'column_id', 'position'])
    .where('column_id', 'in', columnIds)
    .orderBy('column_id')
    .orderBy('position')
    .orderBy('number')
    .execute();
  let column = '';
  let next = 0;
  for (const r of rows) {
    if (r.column_id !== column) {
      column = r.column_id;
      next = 0;
    }
    if (r.position !== next)
      await tx.updateTable('tickets').set({ position: next }).where('id', '=', r.id).execute();
    next++;
  }
}

/** A list with positions 0..n-1: the tickets of one column, or the columns of one project. */
export type PositionList =
  | { table: 'tickets'; scope: 'column_id'; id: string }
  | { table: 'columns'; scope: 'project_id'; id: string };

/**
 * Keeps a list's positions 0..n-1 around one item's change, with one statement: `from` null opens
 * a slot at `to` (an item arrives), `to` null closes the gap at `from` (an item leaves), both move
 * the items between them by one (an item moves within the list). The caller writes the item itself.
 * The one rule of board positions, for tickets and columns alike (call lockBoard first).
 */
export async function shiftPositions(tx: Tx, list: PositionList, from: number | null, to: number | null) {
  if (from === to) return;
  let q = tx.updateTable(list.table as 'tickets').where(list.scope as 'column_id', '=', list.id);
  let step: '+' | '-';
  if (from === null) {
    q = q.where('position', '>=', to as number);
    step = '+';
  } else if (to === null) {
    q = q.where('position', '>', from);
    step = '-';
  } else if (to < from) {
    q = q.where('position', '>=', to).where('position', '<', from);
    step = '+';
  } else {
    q = q.where('position', '>', from).where('position', '<=', to);
    step = '-';
  }
  await q.set((eb) => ({ position: eb('position', step, 1) })).execute();
}
