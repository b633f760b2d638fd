import { type Kysely, sql } from 'kysely';

/**
 * Search at 1,000,000 tickets on SQLite (issue 17, docs/decisions/038-search.md "Labels by search
 * row"): each ticket's labels also kept by the integer id of its search row (`ticket_search_ids`),
 * so that `label:…` with the search row's other conditions (`-is:done`, words) reaches each labelled
 * ticket's row by integer key, one B-tree descent, instead of by its text id (the text id's index,
 * then the row: two). `label:backend -is:done` counted 44,747 of 59,802 labelled tickets in 195 ms
 * that way, 105 ms this way.
 *
 * Kept in step by triggers, inside the writing transaction, like the rest of the index: a label
 * put on a ticket adds its row, one taken off removes it, and a ticket's deletion removes its rows
 * before the ticket goes (the search row they name goes with the ticket). Derived data: not in
 * backups (the table registry, src/db/tables.ts); a restore's inserts fill it. PostgreSQL: nothing (its
 * search row is read by heap position from the full-text and btree bitmaps, decision 038).
 */
export async function up(db: Kysely<any>, dialect: 'sqlite' | 'postgres'): Promise<void> {
  if (dialect !== 'sqlite') return;
  const run = (text: string) => sql.raw(text).execute(db);
  await run(`create table ticket_search_labels (
    label_id text not null,
    row_id integer not null,
    primary key (label_id, row_id)
  ) without rowid`);
  await run(`insert into ticket_search_labels (label_id, row_id)
    select l.label_id, s.id from ticket_labels l join ticket_search_ids s on s.ticket_id = l.ticket_id`);
  await run(`create trigger ticket_search_label_added after insert on ticket_labels begin
    insert or ignore into ticket_search_labels (label_id, row_id)
      select new.label_id, id from ticket_search_ids where ticket_id = new.ticket_id;
  end`);
  await run(`create trigger ticket_search_label_removed after delete on ticket_labels begin
    delete from ticket_search_labels where label_id = old.label_id
      and row_id = (select id from ticket_search_ids where ticket_id = old.ticket_id);
  end`);
  await run(`create trigger ticket_search_label_changed after update on ticket_labels begin
    delete from ticket_search_labels where label_id = old.label_id
      and row_id = (select id from ticket_search_ids where ticket_id = old.ticket_id);
    insert or ignore into ticket_search_labels (label_id, row_id)
      select new.label_id, id from ticket_search_ids where ticket_id = new.ticket_id;
  end`);
  // Before the ticket (and, by its after-delete trigger, its search row) goes: whatever order
  // SQLite runs the cascade to ticket_labels in, the rows are found by the search row's id.
  await run(`create trigger ticket_search_labels_ticket_deleted before delete on tickets begin
    delete from ticket_search_labels
      where label_id in (select label_id from ticket_labels where ticket_id = old.id)
        and row_id = (select id from ticket_search_ids where ticket_id = old.id);
  end`);
}
