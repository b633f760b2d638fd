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
