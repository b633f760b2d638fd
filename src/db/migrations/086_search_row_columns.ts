import { type Kysely, sql } from 'kysely';

/**
 * Search at 1,000,000 tickets (issue 17, docs/decisions/038-search.md "The search rows carry the
 * filter columns"): the full-text index's own row of each ticket (SQLite `ticket_search_ids`, whose
 * id is the FTS rowid; PostgreSQL `ticket_search`, which holds the tsvector) carries a copy of the
 * ticket's columns that search conditions and sort orders read. A query with words then filters,
 * sorts and counts the full-text matches on that one row, instead of looking up each match's wide
 * ticket row by its text id (three B-tree descents per match on SQLite; a second heap read on
 * PostgreSQL). Only the page's rows are read from `tickets`.
 *
 * Kept in step by triggers like the rest of the index (migration 040), inside the writing
 * transaction: a ticket's insert writes the copy, an update of any copied column rewrites it, a
 * delete removes the row. Derived data: not in backups (the table registry, src/db/tables.ts); a
 * restore's inserts fill it.
 */
export const SEARCH_ROW_COLUMNS = [
  'project_id',
  'number',
  'type',
  'priority',
  'column_id',
  'assignee_id',
  'reporter_id',
  'sprint_id',
  'parent_id',
  'story_points',
  'due_date',
  'created_at',
  'updated_at',
] as const;

const TYPES: Record<(typeof SEARCH_ROW_COLUMNS)[number], string> = {
  project_id: 'text',
  number: 'integer',
  type: 'text',
  priority: 'text',
  column_id: 'text',
  assignee_id: 'text',
  reporter_id: 'text',
  sprint_id: 'text',
  parent_id: 'text',
  story_points: 'integer',
  due_date: 'text',
  created_at: 'text',
  updated_at: 'text',
};

export async function up(db: Kysely<any>, dialect: 'sqlite' | 'postgres'): Promise<void> {
  if (dialect === 'sqlite') await sqliteUp(db);
  else await postgresUp(db);
}

const cols = SEARCH_ROW_COLUMNS.join(', ');
const of = (ref: string) => SEARCH_ROW_COLUMNS.map((c) => `${ref}.${c}`).join(', ');
const setFrom = (ref: string) => SEARCH_ROW_COLUMNS.map((c) => `${c} = ${ref}.${c}`).join(', ');

async function sqliteUp(db: Kysely<any>) {
  const run = (text: string) => sql.raw(text).execute(db);
  for (const c of SEARCH_ROW_COLUMNS) await run(`alter table ticket_search_ids add column ${c} ${TYPES[c]}`);
  await run(`update ticket_search_ids set (${cols}) =
    (select ${of('t')} from tickets t where t.id = ticket_search_ids.ticket_id)`);
  // The insert trigger of migration 040, now with the copy of the columns.
  await run('drop trigger ticket_search_insert');
  await run(`create trigger ticket_search_insert after insert on tickets begin
    insert into ticket_search_ids (ticket_id, ${cols}) values (new.id, ${of('new')});
    insert into ticket_fts (rowid, title, description, comments)
      values ((select id from ticket_search_ids where ticket_id = new.id), new.title,
        coalesce(new.description, ''),
        coalesce((select group_concat(content, ' ') from comments where ticket_id = new.id), ''));
  end`);
  // Any change of a copied column (foreign keys' `set null` included) rewrites the copy.
  await run(`create trigger ticket_search_columns after update of ${cols} on tickets begin
    update ticket_search_ids set ${setFrom('new')} where ticket_id = new.id;
  end`);
  // The filters' and sorts' statistics for the planner, where statistics exist.
  const stats = await sql<{
    n: number;
  }>`select count(*) as n from sqlite_master where name = 'sqlite_stat1'`.execute(db);
  if (Number(stats.rows[0]?.n) > 0) await run('analyze ticket_search_ids');
}

async function postgresUp(db: Kysely<any>) {
  const run = (text: string) => sql.raw(text).execute(db);
  await run(
    `alter table ticket_search ${SEARCH_ROW_COLUMNS.map((c) => `add column ${c} ${TYPES[c]}`).join(', ')}`,
  );
  await run(`update ticket_search s set ${setFrom('t')} from tickets t where t.id = s.ticket_id`);
  const doc = (t: string, comments: string) => `setweight(to_tsvector('simple', docket_fold(${t}.title)), 'A')
      || setweight(to_tsvector('simple', docket_fold(coalesce(${t}.description, ''))), 'B')
      || setweight(to_tsvector('simple', docket_fold(coalesce(${comments}, ''))), 'C')`;
  const commentsOf = (t: string) =>
    `(select string_agg(c.content, ' ' order by c.created_at, c.id) from comments c where c.ticket_id = ${t}.id)`;
  // Migration 051's statement-level insert, now with the copy of the columns.
  await run(`create or replace function docket_ticket_search_inserted() returns trigger language plpgsql as $$
    begin
      insert into ticket_search (ticket_id, doc, ${cols})
        select t.id, ${doc('t', commentsOf('t'))}, ${of('t')} from new_tickets t
        on conflict (ticket_id) do update set doc = excluded.doc, ${setFrom('excluded')};
      return null;
    end $$`);
  // Migration 040's row trigger on title and description (it only updates: the row exists since the insert).
  await run(`create or replace function docket_ticket_search() returns trigger language plpgsql as $$
    begin
      insert into ticket_search (ticket_id, doc, ${cols}) values (new.id, docket_ticket_doc(new.id), ${of('new')})
        on conflict (ticket_id) do update set doc = excluded.doc;
      return null;
    end $$`);
  // Any change of a copied column (foreign keys' `set null` included) rewrites the copy.
  await run(`create function docket_ticket_search_columns() returns trigger language plpgsql as $$
    begin
      update ticket_search set ${setFrom('new')} where ticket_id = new.id;
      return null;
    end $$`);
  await run(`create trigger ticket_search_columns after update of ${cols} on tickets
    for each row when ((${of('old')}) is distinct from (${of('new')}))
    execute function docket_ticket_search_columns()`);
  // The filters that narrow words most, as btree indexes beside the GIN one, so that the planner
  // can AND their bitmaps and read only the rows matching both (`timeout assignee:me`: 982 rows
  // instead of 28,508).
  await run('create index ticket_search_type_idx on ticket_search (type, priority)');
  await run('create index ticket_search_assignee_idx on ticket_search (assignee_id)');
  await run('create index ticket_search_project_idx on ticket_search (project_id)');
  await run('analyze ticket_search');
}
