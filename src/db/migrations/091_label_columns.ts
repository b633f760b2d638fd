import { type Kysely, sql } from 'kysely';

/**
 * PostgreSQL: each ticket's labels with the ticket's column (`ticket_label_columns`), for searches
 * that count a label's tickets by their column (issue 17, docs/decisions/038-search.md "Labels with
 * their column"). `label:backend -is:done` at 1,000,000 tickets counted 44,761 of the 59,811
 * tickets labelled `backend` by reading every ticket (a hash of the label's tickets, then a
 * sequential scan testing each ticket's column: 635 ms). Here the count is an index-only scan of the
 * label's entries, each carrying its ticket's column.
 *
 * Kept in step by triggers, inside the writing transaction, like the search row:
 * - labels put on tickets (any statement: an edit, a bulk update, an import's or a restore's
 *   batches) add their rows with each ticket's column, and labels taken off remove theirs; a ticket
 *   or a label deleted takes its ticket_labels rows with it (cascade), and so these;
 * - a ticket whose column changes (a move to another column, a bulk move, a column's deletion)
 *   changes its rows' column. A move within its column changes nothing here (the trigger's `when`).
 *
 * Derived data: not in backups (the table registry, src/db/tables.ts); a restore's inserts fill it.
 * SQLite: nothing (its labels by search row, migration 087, serve its counts).
 */
export async function up(db: Kysely<any>, dialect: 'sqlite' | 'postgres'): Promise<void> {
  if (dialect !== 'postgres') return;
  const run = (text: string) => sql.raw(text).execute(db);
  // The primary key serves the triggers (a ticket's rows); the second index the counts.
  await run(`create table ticket_label_columns (
    ticket_id text not null,
    label_id text not null,
    column_id text not null,
    primary key (ticket_id, label_id)
  )`);
  await run(`insert into ticket_label_columns (ticket_id, label_id, column_id)
    select l.ticket_id, l.label_id, t.column_id from ticket_labels l join tickets t on t.id = l.ticket_id`);
  await run('create index ticket_label_columns_count_idx on ticket_label_columns (label_id, column_id)');
  await run(`create function docket_label_columns_added() returns trigger language plpgsql as $$
    begin
      insert into ticket_label_columns (ticket_id, label_id, column_id)
        select n.ticket_id, n.label_id, t.column_id from added_labels n join tickets t on t.id = n.ticket_id
        on conflict (ticket_id, label_id) do nothing;
      return null;
    end $$`);
  await run(`create function docket_label_columns_removed() returns trigger language plpgsql as $$
    begin
      delete from ticket_label_columns c using removed_labels o
        where c.ticket_id = o.ticket_id and c.label_id = o.label_id;
      return null;
    end $$`);
  await run(`create trigger ticket_label_columns_added after insert on ticket_labels
    referencing new table as added_labels for each statement execute function docket_label_columns_added()`);
  await run(`create trigger ticket_label_columns_removed after delete on ticket_labels
    referencing old table as removed_labels for each statement execute function docket_label_columns_removed()`);
  // A row of ticket_labels rewritten in place (no code does it today): its old pair out, its new in.
  await run(`create function docket_label_columns_changed() returns trigger language plpgsql as $$
    begin
      delete from ticket_label_columns where ticket_id = old.ticket_id and label_id = old.label_id;
      insert into ticket_label_columns (ticket_id, label_id, column_id)
        select new.ticket_id, new.label_id, t.column_id from tickets t where t.id = new.ticket_id
        on conflict (ticket_id, label_id) do nothing;
      return null;
    end $$`);
  await run(`create trigger ticket_label_columns_changed after update on ticket_labels
    for each row execute function docket_label_columns_changed()`);
  await run(`create function docket_label_columns_moved() returns trigger language plpgsql as $$
    begin
      update ticket_label_columns set column_id = new.column_id where ticket_id = new.id;
      return null;
    end $$`);
  await run(`create trigger ticket_label_columns_moved after update of column_id on tickets
    for each row when (old.column_id is distinct from new.column_id)
    execute function docket_label_columns_moved()`);
}
