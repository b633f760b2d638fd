import { type Kysely, sql } from 'kysely';
import { SEARCH_ROW_COLUMNS } from './086_search_row_columns.js';

/**
 * PostgreSQL: each search document carries its ticket's facets (issue 17, docs/decisions/038-search.md
 * "Facets in the full-text index"), as SQLite's does since migration 093: one lexeme per project,
 * type, priority, assignee, reporter and label of the ticket (src/db/search-facets.ts), so that words
 * with such a condition (`crash type:bug`) are intersected inside the GIN index and only the matches
 * that hold the facets are read, counted and ranked: at 1,000,000 tickets `crash` has 28,000 matches,
 * each on its own heap page, of which the bugs are a fifth.
 *
 * The facets are lexemes without positions, appended to the document (`doc || facets`):
 * - ts_rank scores the query's words only, so scores are unchanged;
 * - `ts_filter(doc, '{a}')` (migration 092's index of the titles) keeps positioned lexemes only, so
 *   the titles' index is unchanged, and `ts_filter(doc, '{a,b,c,d}')` is the document without them;
 * - PostgreSQL's parser splits words at U+E000, so no document or query word holds a facet.
 *
 * Kept in step by the triggers that write documents, inside the writing transaction: an insert, a
 * title, description or comment change (the whole document again), a change of a facet column
 * (foreign keys' `set null` included: the facets again, the words kept), and a label put on, taken
 * off or rewritten. A move, a sprint's close or any other column's change leaves the document as it
 * is, so its update of the search row can still be HOT. Derived data: not in backups; a restore's
 * inserts fill it. SQLite: nothing (migration 093).
 */
export async function up(db: Kysely<any>, dialect: 'sqlite' | 'postgres'): Promise<void> {
  if (dialect !== 'postgres') return;
  const run = (text: string) => sql.raw(text).execute(db);
  // U+E000 and a letter per facet; ids without their dashes; no assignee or reporter is `none`.
  const token = (letter: string, value: string) =>
    `chr(57344) || '${letter}' || coalesce(replace(${value}, '-', ''), 'none')`;
  await run(`create function docket_ticket_facets(tid text, p text, ty text, pr text, a text, r text)
    returns tsvector language sql stable as $$
      select array_to_tsvector(array[${token('p', 'p')}, ${token('t', 'ty')}, ${token('y', 'pr')},
          ${token('a', 'a')}, ${token('r', 'r')}]
        || array(select ${token('l', 'l.label_id')} from ticket_labels l where l.ticket_id = tid))
    $$`);
  const facetsOf = (t: string, id = 'id') =>
    `docket_ticket_facets(${t}.${id}, ${t}.project_id, ${t}.type, ${t}.priority, ${t}.assignee_id, ${t}.reporter_id)`;
  /** The document of tickets `t` with their comments' text (migrations 040 and 051) and their facets. */
  const doc = (t: string) => `setweight(to_tsvector('simple', docket_fold(${t}.title)), 'A')
      || setweight(to_tsvector('simple', docket_fold(coalesce(${t}.description, ''))), 'B')
      || setweight(to_tsvector('simple', docket_fold(coalesce(
        (select string_agg(c.content, ' ' order by c.created_at, c.id) from comments c where c.ticket_id = ${t}.id),
        ''))), 'C')
      || ${facetsOf(t)}`;
  /** A search row's document with its facets written again (its words kept). */
  const refaceted = (s: string, facets: string) => `ts_filter(${s}.doc, '{a,b,c,d}') || ${facets}`;
  const cols = SEARCH_ROW_COLUMNS.join(', ');
  const setFrom = (ref: string) => SEARCH_ROW_COLUMNS.map((c) => `${c} = ${ref}.${c}`).join(', ');

  // Migration 051's document of one ticket (title, description and comment row triggers), with facets.
  await run(`create or replace function docket_ticket_doc(tid text) returns tsvector language plpgsql stable as $$
    begin
      return (select ${doc('t')} from tickets t where t.id = tid);
    end $$`);
  // Migration 086's statement-level insert, with facets.
  await run(`create or replace function docket_ticket_search_inserted() returns trigger language plpgsql as $$
    begin
      insert into ticket_search (ticket_id, doc, ${cols})
        select t.id, ${doc('t')}, ${SEARCH_ROW_COLUMNS.map((c) => `t.${c}`).join(', ')} from new_tickets t
        on conflict (ticket_id) do update set doc = excluded.doc, ${setFrom('excluded')};
      return null;
    end $$`);
  // Migration 051's statement-level comment insert, with facets.
  await run(`create or replace function docket_comment_search_inserted() returns trigger language plpgsql as $$
    begin
      update ticket_search s set doc = ${doc('t')}
        from tickets t
        where t.id = s.ticket_id
          and s.ticket_id = any (array(select distinct ticket_id from new_comments));
      return null;
    end $$`);
  // Migration 086's copy of the columns: the facets again when one of theirs changed.
  const facetCols = (r: string) =>
    ['project_id', 'type', 'priority', 'assignee_id', 'reporter_id'].map((c) => `${r}.${c}`);
  await run(`create or replace function docket_ticket_search_columns() returns trigger language plpgsql as $$
    begin
      if (${facetCols('old').join(', ')}) is distinct from (${facetCols('new').join(', ')}) then
        update ticket_search s set ${setFrom('new')}, doc = ${refaceted('s', facetsOf('new'))}
          where s.ticket_id = new.id;
      else
        update ticket_search set ${setFrom('new')} where ticket_id = new.id;
      end if;
      return null;
    end $$`);
  // Labels put on, taken off or rewritten: their tickets' facets again, once per ticket.
  const relabel = (
    tickets: string,
  ) => `update ticket_search s set doc = ${refaceted('s', facetsOf('s', 'ticket_id'))}
        where s.ticket_id = any (array(${tickets}))`;
  await run(`create function docket_ticket_search_labels() returns trigger language plpgsql as $$
    begin
      ${relabel('select distinct ticket_id from changed_labels')};
      return null;
    end $$`);
  await run(`create function docket_ticket_search_labels_changed() returns trigger language plpgsql as $$
    begin
      ${relabel('select ticket_id from old_labels union select ticket_id from changed_labels')};
      return null;
    end $$`);
  await run(`create trigger ticket_search_labels_added after insert on ticket_labels
    referencing new table as changed_labels for each statement execute function docket_ticket_search_labels()`);
  await run(`create trigger ticket_search_labels_removed after delete on ticket_labels
    referencing old table as changed_labels for each statement execute function docket_ticket_search_labels()`);
  await run(`create trigger ticket_search_labels_changed after update on ticket_labels
    referencing old table as old_labels new table as changed_labels
    for each statement execute function docket_ticket_search_labels_changed()`);

  // Every document gets its facets. The two GIN indexes of the documents are built again afterwards
  // (an update of each row would write each document's lexemes again into both).
  await run("set local maintenance_work_mem = '256MB'");
  await run('drop index ticket_search_doc');
  await run('drop index ticket_search_title_idx');
  await run(`update ticket_search s set doc = s.doc || ${facetsOf('s', 'ticket_id')}`);
  await run('create index ticket_search_doc on ticket_search using gin (doc)');
  await run(`create index ticket_search_title_idx on ticket_search using gin (ts_filter(doc, '{a}'))`);
  await run('analyze ticket_search');
}
