import { type Kysely, sql } from 'kysely';

/**
 * PostgreSQL: each column's tickets cut into blocks of consecutive ranks with their counts, kept by
 * triggers inside the writing transaction, so a place in a column is found without walking to it
 * (issue 16, docs/decisions/033-board-ranks.md "Blocks: a place without the walk").
 *
 * A move to 0-based place `i` reads the ranks either side of it. Walking the `(column_id, rank)`
 * index to place `i` checks on PostgreSQL the heap row of every ticket written since the last vacuum,
 * and moves keep writing them: in a column of 10,000 that walk was most of a move's time. With the
 * blocks, a move sums the counts of the column's blocks (about 100 rows for 10,000 tickets) to find
 * the one holding place `i`, then walks from that block's first rank: under 200 steps.
 *
 * - A block `(column_id, lo, n)` holds the `n` tickets of the column ranked from `lo` (included) to
 *   the next block's `lo` (excluded); every column with tickets has a first block whose `lo` is ''.
 * - A ticket inserted, deleted, or whose rank or column changes changes the counts of its blocks, by
 *   the triggers of migration 089, which first lock the column's total: so every writer of a
 *   column's blocks holds that row's lock, and each reads the blocks after it is granted.
 * - A block that grows past BLOCK_MAX tickets is cut again into blocks of about BLOCK_TARGET, from
 *   the tickets themselves; one that falls under BLOCK_MIN joins the block before it. For inserts
 *   and deletes (statement-level triggers) that happens once the counts of the statement are in;
 *   for updates (a row-level trigger, a column list allowing no transition tables) the row trigger
 *   notes the block in `column_rank_blocks_unsettled` and a statement-level trigger settles it once
 *   every row's counts are in: cutting a block from the tickets earlier would count rows whose own
 *   trigger has still to run.
 * - A rebalance (board-ranks.ts), which rewrites every rank of a column twice, pauses the row trigger's
 *   block counts for its transaction (`docket.rank_blocks_paused`) and cuts the column's blocks anew
 *   from its tickets once it is done (`docket_rank_blocks_rebuild`): 10 s for 10,000 tickets with a
 *   count per row, well under one without.
 * - A deleted column's blocks go with it (cascade). Derived data: not in backups
 *   (the table registry, src/db/tables.ts); a restore's inserts fill them.
 *
 * SQLite keeps no blocks: its index walk reads the index alone, and its moves meet their aim.
 */
export const BLOCK_MAX = 200;
export const BLOCK_TARGET = 100;
export const BLOCK_MIN = 25;

export async function up(db: Kysely<any>, dialect: 'sqlite' | 'postgres'): Promise<void> {
  if (dialect !== 'postgres') return;
  const run = (text: string) => sql.raw(text).execute(db);
  // Half-full pages: the counts change with every move, and a row's new version fits on its page.
  await run(`create table column_rank_blocks (
    column_id text not null references columns (id) on delete cascade,
    lo text collate "C" not null,
    n integer not null,
    primary key (column_id, lo)
  ) with (fillfactor = 50)`);
  // Empty at every commit: a statement that notes a block settles it before it ends.
  await run(`create unlogged table column_rank_blocks_unsettled (
    column_id text not null,
    lo text collate "C" not null,
    primary key (column_id, lo)
  )`);

  // Cuts block l of column c again, from its tickets, into blocks of about BLOCK_TARGET (sizes
  // differing by one at most; l stays the first one's lo).
  await run(`create function docket_rank_blocks_recut(c text, l text) returns void language plpgsql as $$
    declare
      hi text;
      total bigint;
      k bigint;
    begin
      select lo into hi from column_rank_blocks where column_id = c and lo > l collate "C" order by lo limit 1;
      select count(*) into total from tickets
        where column_id = c and rank >= l collate "C" and (hi is null or rank < hi collate "C");
      delete from column_rank_blocks where column_id = c and lo = l collate "C";
      if total = 0 then return; end if;
      k := greatest(1, ceil(total / ${BLOCK_TARGET}.0));
      insert into column_rank_blocks (column_id, lo, n)
        select c, case when i = 0 then l else rank end, coalesce(lead(i) over (order by i), total) - i
        from (
          select rank, row_number() over (order by rank) - 1 as i from tickets
            where column_id = c and rank >= l collate "C" and (hi is null or rank < hi collate "C")
        ) x
        where i = 0 or (i * k) / total <> ((i - 1) * k) / total;
    end $$`);

  // Brings block l of column c back within bounds, if it still exists: under BLOCK_MIN it joins the
  // block before it (never the first block, ''); past BLOCK_MAX, it is cut again.
  await run(`create function docket_rank_blocks_settle(c text, l text) returns void language plpgsql as $$
    declare
      m integer;
      p text;
    begin
      select n into m from column_rank_blocks where column_id = c and lo = l collate "C";
      if not found then return; end if;
      if m < ${BLOCK_MIN} and l <> '' then
        select lo into p from column_rank_blocks
          where column_id = c and lo < l collate "C" order by lo desc limit 1;
        delete from column_rank_blocks where column_id = c and lo = l collate "C";
        insert into column_rank_blocks (column_id, lo, n) values (c, coalesce(p, ''), m)
          on conflict (column_id, lo) do update set n = column_rank_blocks.n + excluded.n
          returning n, lo into m, l;
      end if;
      if m > ${BLOCK_MAX} then perform docket_rank_blocks_recut(c, l); end if;
    end $$`);

  // Cuts column c's blocks anew from its tickets, its total's lock first (after a rebalance).
  await run(`create function docket_rank_blocks_rebuild(c text) returns void language plpgsql as $$
    begin
      perform 1 from column_ticket_counts where column_id = c for no key update;
      delete from column_rank_blocks where column_id = c;
      insert into column_rank_blocks (column_id, lo, n) values (c, '', 0);
      perform docket_rank_blocks_recut(c, '');
    end $$`);

  // The rows of a transition table counted per column and block, in that order.
  const perBlock = (rows: string) => `select column_id, lo, count(*)::integer as k
        from (select a.column_id, coalesce((select b.lo from column_rank_blocks b
            where b.column_id = a.column_id and b.lo <= a.rank order by b.lo desc limit 1), '') as lo
          from ${rows} a) x
        group by column_id, lo order by column_id, lo`;
  // The blocks noted in the arrays cs (columns) and ls (their lo) brought within bounds.
  const settleNoted = `for i in 1 .. coalesce(array_length(cs, 1), 0) loop
        perform docket_rank_blocks_settle(cs[i], ls[i]);
      end loop;`;

  // Inserts: the totals (089, locking them in column order), then the blocks' counts, then the
  // blocks that grew past BLOCK_MAX are cut again.
  await run(`create or replace function docket_column_counts_added() returns trigger language plpgsql as $$
    declare
      r record;
      m integer;
      cs text[] := '{}';
      ls text[] := '{}';
    begin
      insert into column_ticket_counts (column_id, n)
        select column_id, count(*) from added_tickets group by column_id order by column_id
        on conflict (column_id) do update set n = column_ticket_counts.n + excluded.n;
      for r in
        ${perBlock('added_tickets')}
      loop
        insert into column_rank_blocks (column_id, lo, n) values (r.column_id, r.lo, r.k)
          on conflict (column_id, lo) do update set n = column_rank_blocks.n + excluded.n
          returning n into m;
        if m > ${BLOCK_MAX} then
          cs := cs || r.column_id;
          ls := ls || r.lo;
        end if;
      end loop;
      ${settleNoted}
      return null;
    end $$`);

  // Deletes: the same, the blocks that fell under BLOCK_MIN joining the block before them. A
  // deleted column's rows may be gone already (its project's deletion cascades): update only.
  await run(`create or replace function docket_column_counts_removed() returns trigger language plpgsql as $$
    declare
      r record;
      m integer;
      cs text[] := '{}';
      ls text[] := '{}';
    begin
      for r in select column_id, count(*) as k from removed_tickets group by column_id order by column_id loop
        update column_ticket_counts set n = n - r.k where column_id = r.column_id;
      end loop;
      for r in
        ${perBlock('removed_tickets')}
      loop
        update column_rank_blocks set n = n - r.k where column_id = r.column_id and lo = r.lo
          returning n into m;
        if found and m < ${BLOCK_MIN} and r.lo <> '' then
          cs := cs || r.column_id;
          ls := ls || r.lo;
        end if;
      end loop;
      ${settleNoted}
      return null;
    end $$`);

  // A ticket whose column or rank changes: both columns' totals locked (the lower id first; a move
  // within its column locks its column's), then the count moves from the old block to the new
  // one, unless both are the same; a block out of bounds is noted for the statement's end.
  await run(`create or replace function docket_column_counts_moved() returns trigger language plpgsql as $$
    declare
      lo_old text;
      lo_new text;
      added boolean;
      r record;
    begin
      if old.column_id = new.column_id then
        perform 1 from column_ticket_counts where column_id = new.column_id for no key update;
      else
        if old.column_id < new.column_id then
          update column_ticket_counts set n = n - 1 where column_id = old.column_id;
        end if;
        insert into column_ticket_counts (column_id, n) values (new.column_id, 1)
          on conflict (column_id) do update set n = column_ticket_counts.n + 1;
        if old.column_id > new.column_id then
          update column_ticket_counts set n = n - 1 where column_id = old.column_id;
        end if;
      end if;
      -- A rebalance rewrites every rank of its column, then cuts its blocks anew (docket_rank_blocks_rebuild).
      if current_setting('docket.rank_blocks_paused', true) = 'on' then return null; end if;
      select coalesce((select max(lo) from column_rank_blocks
          where column_id = old.column_id and lo <= old.rank collate "C"), ''),
        coalesce((select max(lo) from column_rank_blocks
          where column_id = new.column_id and lo <= new.rank collate "C"), '')
        into lo_old, lo_new;
      if old.column_id = new.column_id and lo_old = lo_new then return null; end if;
      -- Both blocks in one statement; a block noted when it leaves its bounds.
      added := false;
      for r in
        update column_rank_blocks b set n = b.n + case when b.column_id = new.column_id and b.lo = lo_new then 1 else -1 end
          where (b.column_id, b.lo) in ((old.column_id, lo_old), (new.column_id, lo_new))
          returning b.column_id, b.lo, b.n
      loop
        if r.column_id = new.column_id and r.lo = lo_new then added := true; end if;
        if r.n > ${BLOCK_MAX} or (r.n < ${BLOCK_MIN} and r.lo <> '') then
          insert into column_rank_blocks_unsettled values (r.column_id, r.lo) on conflict do nothing;
        end if;
      end loop;
      -- The column's first ticket: its first block.
      if not added then
        insert into column_rank_blocks (column_id, lo, n) values (new.column_id, lo_new, 1)
          on conflict (column_id, lo) do update set n = column_rank_blocks.n + 1;
      end if;
      return null;
    end $$`);
  await run('drop trigger column_ticket_counts_moved on tickets');
  await run(`create trigger column_ticket_counts_moved after update of column_id, rank on tickets
    for each row when (old.column_id is distinct from new.column_id or old.rank is distinct from new.rank)
    execute function docket_column_counts_moved()`);
  await run(`create function docket_rank_blocks_settle_noted() returns trigger language plpgsql as $$
    declare
      r record;
    begin
      for r in
        with noted as (delete from column_rank_blocks_unsettled returning column_id, lo)
        select column_id, lo from noted order by column_id, lo
      loop
        perform docket_rank_blocks_settle(r.column_id, r.lo);
      end loop;
      return null;
    end $$`);
  await run(`create trigger column_rank_blocks_settled after update of column_id, rank on tickets
    for each statement execute function docket_rank_blocks_settle_noted()`);

  // The existing tickets, column by column.
  const { rows } = await sql<{
    column_id: string;
  }>`select distinct column_id from tickets order by column_id`.execute(db);
  for (const r of rows) await sql`select docket_rank_blocks_rebuild(${r.column_id})`.execute(db);
}
