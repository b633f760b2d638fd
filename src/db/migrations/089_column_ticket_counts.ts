import { type Kysely, sql } from 'kysely';

/**
 * PostgreSQL: how many tickets each column holds, kept by triggers inside the writing transaction
 * (issue 16, docs/decisions/033-board-ranks.md "A create's order from the column's end").
 *
 * A create's answer gives the new ticket's `order`, its 0-based index in the column. Counting the
 * tickets before it walks the column's `(column_id, rank)` index, and on PostgreSQL also checks the
 * heap row of each ticket written since the last vacuum: at 8,000 tickets in the column that count
 * was most of a create's time, and it ran while the create held the project counter's row lock, so
 * every create of the project waited for it. With the column's total kept here, a create counts the
 * tickets after the new one instead (none or a few: it goes to the end): `total - 1 - after`.
 *
 * - A ticket inserted or deleted, by any statement (a restore's and an import's batches included),
 *   changes its column's row by statement-level triggers, one row update per column per statement.
 * - A ticket whose column changes (a move, a bulk move, a column's deletion) changes both rows, the
 *   lower column id first, so that two moves in opposite directions lock the rows in one order.
 * - A deleted column's row goes with it (cascade). Derived data: not in backups
 *   (the table registry, src/db/tables.ts); a restore's inserts fill it.
 *
 * SQLite keeps no such table: its count reads the index alone, with nothing else to check, and its
 * writes run one at a time anyway.
 */
export async function up(db: Kysely<any>, dialect: 'sqlite' | 'postgres'): Promise<void> {
  if (dialect !== 'postgres') return;
  const run = (text: string) => sql.raw(text).execute(db);
  await run(`create table column_ticket_counts (
    column_id text primary key references columns (id) on delete cascade,
    n integer not null
  )`);
  await run(`insert into column_ticket_counts (column_id, n)
    select column_id, count(*) from tickets group by column_id`);
  // Rows are upserted in column order: concurrent writers lock them in one order.
  await run(`create function docket_column_counts_added() returns trigger language plpgsql as $$
    begin
      insert into column_ticket_counts (column_id, n)
        select column_id, count(*) from added_tickets group by column_id order by column_id
        on conflict (column_id) do update set n = column_ticket_counts.n + excluded.n;
      return null;
    end $$`);
  await run(`create trigger column_ticket_counts_added after insert on tickets
    referencing new table as added_tickets for each statement
    execute function docket_column_counts_added()`);
  // A deleted column's row may be gone already (its project's deletion cascades): update only.
  await run(`create function docket_column_counts_removed() returns trigger language plpgsql as $$
    declare
      r record;
    begin
      for r in select column_id, count(*) as k from removed_tickets group by column_id order by column_id loop
        update column_ticket_counts set n = n - r.k where column_id = r.column_id;
      end loop;
      return null;
    end $$`);
  await run(`create trigger column_ticket_counts_removed after delete on tickets
    referencing old table as removed_tickets for each statement
    execute function docket_column_counts_removed()`);
  await run(`create function docket_column_counts_moved() returns trigger language plpgsql as $$
    begin
      if old.column_id < new.column_id then
        update column_ticket_counts set n = n - 1 where column_id = old.column_id;
      end if;
      insert into column_ticket_counts (column_id, n) values (new.column_id, 1)
        on conflict (column_id) do update set n = column_ticket_counts.n + 1;
      if old.column_id > new.column_id then
        update column_ticket_counts set n = n - 1 where column_id = old.column_id;
      end if;
      return null;
    end $$`);
  await run(`create trigger column_ticket_counts_moved after update of column_id on tickets
    for each row when (old.column_id is distinct from new.column_id)
    execute function docket_column_counts_moved()`);
}
