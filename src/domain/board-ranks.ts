/**
 * Board ranks: where a ticket stands in its column, and a column on its board. Each row holds a
 * fractional rank (a base-62 key of `fractional-indexing`, compared byte by byte), so a move writes
 * the moved row only; the 0-based `order` of the API is the number of ranks before it, computed on
 * read. See docs/decisions/033-board-ranks.md.
 */
import { randomBytes } from 'node:crypto';
import { generateKeyBetween } from 'fractional-indexing';
import { PostgresAdapter, sql } from 'kysely';
import { DIGITS, rankForIndex } from '../db/ranks.js';
import type { TicketsTable } from '../db/types.js';
import type { Services, Tx } from './context.js';
import { invalidField } from './errors.js';
import { arg, runPrepared } from './prepared.js';

export { rankForIndex };

/** Ranks longer than this make the next write renumber the list (rare: only repeated inserts at one spot grow keys). */
export const REBALANCE_LENGTH = 48;

/**
 * Serialises the transactions that change the membership or order of one project's columns, and
 * membership changes (PostgreSQL: the project row's lock until the transaction ends; SQLite runs
 * one writer at a time already).
 */
export async function lockBoard(s: Pick<Services, 'db'>, tx: Tx, projectId: string): Promise<void> {
  if (s.db.dialect === 'postgres')
    await sql`select id from projects where id = ${projectId} for no key update`.execute(tx);
}

/**
 * Serialises the rank choices in one column (PostgreSQL: the column row's lock until the
 * transaction ends). `for no key update` does not block the foreign-key checks of tickets that
 * merely reference the column, so writes elsewhere on the board never wait for it. A column
 * deleted while this waited is a 400 naming `columnId`, as if it had been gone before (SQLite
 * runs one writer at a time: the column read earlier in the transaction is still there).
 */
export async function lockColumn(s: Pick<Services, 'db'>, tx: Tx, columnId: string): Promise<void> {
  if (!(await tryLockColumn(s, tx, columnId)))
    throw invalidField('columnId', 'Must be a column of this project');
}

/** lockColumn, answering whether the column (still) exists instead of refusing. */
export async function tryLockColumn(s: Pick<Services, 'db'>, tx: Tx, columnId: string): Promise<boolean> {
  if (s.db.dialect !== 'postgres') return true;
  const { rows } = await sql`select id from columns where id = ${columnId} for no key update`.execute(tx);
  return rows.length > 0;
}

/**
 * Where rankForNewTicket puts a new ticket. `readLast` (PostgreSQL only): the column's last ticket
 * when the rank was chosen (null: the column was empty), for insertTicket to check.
 */
export type NewTicketPlace = {
  columnId: string;
  rank: string;
  readLast?: { id: string; rank: string } | null;
};

/**
 * The column a new ticket goes to (`columnId`, or when null the project's first column) and its
 * rank at the end of it; a 400 naming `columnId` when the column named is not one of the project's,
 * null when none was named and the project has no columns yet (the caller makes them, then asks
 * again). The column is chosen and locked by one statement.
 *
 * On PostgreSQL creates share the column's lock (`for share`): a create that appends does not move
 * anything, so creates into one column need not wait for each other, only for moves, reorders and
 * rebalancing (which take it exclusively, `for no key update`). Two creates may then read the same
 * last rank; each appends random digits to the key after it (six base-62 digits: a collision, one
 * in 5.6e10, fails on the unique (column_id, rank) index and the create is retried), so both land
 * after every ticket that was there, in either order.
 *
 * The same statement reads the column's last ticket (`readLast`): one round trip less per create.
 * It reads in the snapshot taken before the lock was granted, so when the lock had to wait for a
 * move, a rebalance or a delete, what it read may be gone; insertTicket then writes nothing, and
 * the caller reads the end again (rankAtEndOfLocked), now after the lock. A move that committed
 * while this waited and put its ticket at the end is no such case: its key is the one after the
 * same last rank, and this one, that key with digits appended, sorts after it.
 */
export async function rankForNewTicket(
  s: Pick<Services, 'db'>,
  tx: Tx,
  projectId: string,
  columnId: string | null,
): Promise<NewTicketPlace | null> {
  if (s.db.dialect !== 'postgres') {
    let q = tx.selectFrom('columns').select('id').where('project_id', '=', projectId);
    if (columnId !== null) q = q.where('id', '=', columnId);
    const locked = await q.orderBy('rank').limit(1).executeTakeFirst();
    if (!locked) return refuseColumn(columnId);
    const list: RankedList = { table: 'tickets', scope: 'column_id', id: locked.id };
    return { columnId: locked.id, rank: await rankAtEnd(tx, list) };
  }
  let q = tx
    .selectFrom('columns as c')
    .leftJoinLateral(
      (eb) =>
        eb
          .selectFrom('tickets as t')
          .select(['t.id as last_id', 't.rank as last_rank'])
          .whereRef('t.column_id', '=', 'c.id')
          .orderBy('t.rank', 'desc')
          .limit(1)
          .as('l'),
      (join) => join.onTrue(),
    )
    .select(['c.id', 'l.last_id', 'l.last_rank'])
    .where('c.project_id', '=', projectId);
  if (columnId !== null) q = q.where('c.id', '=', columnId);
  const locked = await q.orderBy('c.rank').limit(1).forShare('c').executeTakeFirst();
  if (!locked) return refuseColumn(columnId);
  const readLast =
    locked.last_id === null || locked.last_rank === null
      ? null
      : { id: locked.last_id, rank: locked.last_rank };
  return { columnId: locked.id, rank: rankAfterLast(readLast?.rank ?? null), readLast };
}

function refuseColumn(columnId: string | null): null {
  if (columnId === null) return null;
  throw invalidField('columnId', 'Must be a column of this project');
}

/** A new ticket's rank after the column's last: the next key with random digits (rankForNewTicket). */
const rankAfterLast = (last: string | null) => `${generateKeyBetween(last, null)}${randomDigits(6)}`;

/**
 * PostgreSQL: the rank at the end of a column whose lock this transaction holds, read by a
 * statement of its own (so after the lock): when what rankForNewTicket read is gone.
 */
export async function rankAtEndOfLocked(tx: Tx, columnId: string): Promise<string> {
  const [last] = await runPrepared(
    tx,
    'column-last-rank',
    (db) =>
      db
        .selectFrom('tickets')
        .select('rank')
        .where('column_id', '=', arg(0))
        .orderBy('rank', 'desc')
        .limit(1),
    [columnId],
  );
  return rankAfterLast(last?.rank ?? null);
}

/** Base-62 digits for a rank's tail; the last is never '0' (a key may not end with it). */
function randomDigits(n: number): string {
  const bytes = randomBytes(n);
  let out = '';
  for (let i = 0; i < n; i++) out += DIGITS[i === n - 1 ? 1 + (bytes[i] % 61) : bytes[i] % 62];
  return out;
}

/** A ranked list: the tickets of one column, or the columns of one project. */
export type RankedList =
  | { table: 'tickets'; scope: 'column_id'; id: string }
  | { table: 'columns'; scope: 'project_id'; id: string };

/** The item that moves, when it is already in the list: left out when its new place is chosen. */
export type Moving = { id: string; rank: string } | null;

/**
 * The list's ranks, the moving item left out by its rank: the `(scope, rank)` index answers this
 * alone (no table row is read for the items skipped over).
 */
const ranksQuery = (tx: Tx, list: RankedList, moving: Moving) => {
  let q = tx
    .selectFrom(list.table as 'tickets')
    .select('rank')
    .where(list.scope as 'column_id', '=', list.id);
  if (moving) q = q.where('rank', '<>', moving.rank);
  return q;
};

/**
 * The ranks either side of 0-based `index` (null: the end) in the list without the moving item, and
 * `at`, the index an item placed between them gets, when the reading tells it (null at the end: the
 * list's length, which only a count would tell).
 */
async function neighbours(tx: Tx, list: RankedList, index: number | null, moving: Moving) {
  const last = async () =>
    (await ranksQuery(tx, list, moving).orderBy('rank', 'desc').limit(1).executeTakeFirst())?.rank ?? null;
  if (index === null) return { before: await last(), after: null, at: null };
  if (index <= 0) {
    const first = await ranksQuery(tx, list, moving).orderBy('rank').limit(1).executeTakeFirst();
    return { before: null, after: first?.rank ?? null, at: 0 };
  }
  if (list.table === 'tickets' && tx.getExecutor().adapter instanceof PostgresAdapter)
    return neighboursByBlocks(tx, list.id, index, moving);
  const pair = await ranksQuery(tx, list, moving)
    .orderBy('rank')
    .limit(2)
    .offset(index - 1)
    .execute();
  // Past the end: after the last item.
  if (pair.length === 0) return { before: await last(), after: null, at: null };
  return { before: pair[0].rank, after: pair[1]?.rank ?? null, at: index };
}

/**
 * PostgreSQL, a column's tickets, 0 < `index`: neighbours() found through the column's blocks that
 * migration 090's triggers keep (`column_rank_blocks`). Walking the index to place `index` checks the
 * heap row of every ticket written since the last vacuum, and moves keep writing them; instead the
 * blocks' counts (about one row per 100 tickets) give the block holding place `index - 1`, and the
 * walk starts at that block's first rank: under 200 steps whatever the column's size. One statement,
 * so the counts and the ranks are read in the same snapshot (the caller holds the column's lock).
 * The moving item is left out of its block's count.
 */
async function neighboursByBlocks(tx: Tx, columnId: string, index: number, moving: Moving) {
  const rows = await runPrepared(
    tx,
    'neighbours-by-blocks',
    (db) => ({
      // $1 the column, $2 the moving item's rank (null: none), $3 the index.
      compile: () =>
        sql<{ rank: string | null; start: string | null; l: string | null }>`with m as (
          select max(lo) as lo from column_rank_blocks where column_id = ${arg(0)} and lo <= ${arg(1)}
        ), s as (
          select lo, n - coalesce((lo = (select lo from m))::integer, 0) as n
          from column_rank_blocks where column_id = ${arg(0)}
        ), u as (
          select lo, n, sum(n) over (order by lo) as upto from s
        ), b as (
          select lo, upto - n as start from u where upto >= ${arg(2)}::bigint order by lo limit 1
        )
        select w.rank, b.start, (select max(upto) from u) as l from (select 1) one
          left join b on true
          left join lateral (select rank from tickets
            where column_id = ${arg(0)} and rank >= b.lo and rank is distinct from ${arg(1)}
            order by rank offset ${arg(2)}::bigint - 1 - b.start limit 2) w on true`.compile(db),
    }),
    [columnId, moving?.rank ?? null, index],
  );
  const length = Number(rows[0]?.l ?? 0);
  // Past the end (no block holds place index - 1): after the last item.
  if (rows[0]?.rank == null) {
    const last = await ranksQuery(tx, { table: 'tickets', scope: 'column_id', id: columnId }, moving)
      .orderBy('rank', 'desc')
      .limit(1)
      .executeTakeFirst();
    return { before: last?.rank ?? null, after: null, at: last ? length : 0 };
  }
  return { before: rows[0].rank, after: rows[1]?.rank ?? null, at: index };
}

/**
 * Where an item placed at 0-based `index` of the list (null or past the end: the end) goes: its
 * rank, or null when `moving` already stands there; and its 0-based order in the list afterwards
 * when the reading tells it (null: count it). Reads the two neighbours only, through the rank
 * index. Lock the list first (lockColumn / lockBoard).
 */
export async function placeAt(
  tx: Tx,
  list: RankedList,
  index: number | null,
  moving: Moving,
): Promise<{ rank: string | null; order: number | null }> {
  const { before, after, at } = await neighbours(tx, list, index, moving);
  if (moving && (before === null || before < moving.rank) && (after === null || moving.rank < after))
    return { rank: null, order: at };
  const rank = generateKeyBetween(before, after);
  if (rank.length <= REBALANCE_LENGTH) return { rank, order: at };
  // Keys grew long from many inserts at one spot: renumber the list, then place again.
  // The moving item keeps its old rank behind a '~' (after every other) until the caller writes it.
  await rebalance(tx, list, moving?.id ?? null);
  const again = await neighbours(tx, list, index, moving ? { id: moving.id, rank: `~${moving.rank}` } : null);
  return { rank: generateKeyBetween(again.before, again.after), order: again.at };
}

/** placeAt's rank. */
export async function rankAt(
  tx: Tx,
  list: RankedList,
  index: number | null,
  moving: Moving,
): Promise<string | null> {
  return (await placeAt(tx, list, index, moving)).rank;
}

/** The rank at the end of the list, for an item that is not in it. */
export async function rankAtEnd(tx: Tx, list: RankedList): Promise<string> {
  return (await rankAt(tx, list, null, null)) as string;
}

/** Ranks for `n` items appended to the list in the order given (a bulk move, a column's tickets moving over). */
export async function ranksAtEnd(tx: Tx, list: RankedList, n: number) {
  const { before } = await neighbours(tx, list, null, null);
  const out: string[] = [];
  let prev = before;
  for (let i = 0; i < n; i++) {
    prev = generateKeyBetween(prev, null);
    out.push(prev);
  }
  return out;
}

/**
 * Gives the list's items the short ranks 'a0', 'a1', … in their current order (the moving item
 * `exceptId` keeps its rank: it is about to get a new one). Orders do not change, so clients see
 * nothing. One statement, then one per 500 items: every rank first gets a '~' prefix, which sorts
 * after every key and is never one, so no intermediate state repeats a rank.
 */
export async function rebalance(tx: Tx, list: RankedList, exceptId: string | null) {
  // PostgreSQL: the column's blocks (migration 090) are cut anew once, not counted row by row.
  const blocks = list.table === 'tickets' && tx.getExecutor().adapter instanceof PostgresAdapter;
  if (blocks) await sql`select set_config('docket.rank_blocks_paused', 'on', true)`.execute(tx);
  let q = tx
    .selectFrom(list.table as 'tickets')
    .select('id')
    .where(list.scope as 'column_id', '=', list.id);
  if (exceptId) q = q.where('id', '<>', exceptId);
  const ids = (await q.orderBy('rank').execute()).map((r) => r.id);
  // The moving item too: its old rank could be one of the new ones.
  await tx
    .updateTable(list.table as 'tickets')
    .set({ rank: sql`'~' || rank` })
    .where(list.scope as 'column_id', '=', list.id)
    .execute();
  await setRanks(
    tx,
    ids.map((id, i) => ({ id, rank: rankForIndex(i) })),
    {},
    list.table,
  );
  if (blocks)
    await sql`select set_config('docket.rank_blocks_paused', 'off', true), docket_rank_blocks_rebuild(${list.id})`.execute(
      tx,
    );
}

/**
 * Writes many rows' ranks (and the same `also` fields on each), one statement per 500 rows: a bulk
 * move, a deleted column's tickets moving over, a rebalance.
 */
export async function setRanks(
  tx: Tx,
  rows: { id: string; rank: string }[],
  also: Partial<Pick<TicketsTable, 'column_id' | 'updated_at'>> = {},
  table: RankedList['table'] = 'tickets',
) {
  for (let i = 0; i < rows.length; i += 500) {
    const chunk = rows.slice(i, i + 500);
    await tx
      .updateTable(table as 'tickets')
      .set({
        ...also,
        rank: sql`case ${sql.join(
          chunk.map((r) => sql`when id = ${r.id} then ${r.rank}`),
          sql` `,
        )} end`,
      })
      .where(
        'id',
        'in',
        chunk.map((r) => r.id),
      )
      .execute();
  }
}
