import { type Kysely, sql } from 'kysely';
import { accentTable } from '../search-fold.js';

/**
 * PostgreSQL only: the full-text triggers of migration 040 cost about 2 ms per ticket or comment
 * written, which made a 100,000-ticket import (docs/import.md) take many minutes. Same documents,
 * same results, cheaper:
 * - `docket_fold` ran `translate` with its 300-character accent table on every text; the table holds
 *   only non-ASCII letters, so ASCII text (as many characters as bytes) skips it now;
 * - `docket_ticket_doc` was an SQL-language function, planned again on every call from a trigger; as
 *   PL/pgSQL its plan is kept for the session;
 * - inserts are indexed once per statement (transition tables), set-based, instead of once per row:
 *   a batch of 1,000 new tickets or comments is one query. Updates and deletes keep their row triggers.
 */
export async function up(db: Kysely<any>, dialect: 'sqlite' | 'postgres'): Promise<void> {
  if (dialect !== 'postgres') return;
  const run = (text: string) => sql.raw(text).execute(db);
  const { from, to } = accentTable();
  await run(`create or replace function docket_fold(t text) returns text language sql immutable parallel safe as
    $$ select regexp_replace(lower(case when octet_length(t) = char_length(t) then t
         else translate(t, '${from}', '${to}') end), '[^[:alnum:]]+', ' ', 'g') $$`);
  /** The document of tickets `t` with their comments' text `c` (the same weights as migration 040). */
  const doc = (t: string, comments: string) => `setweight(to_tsvector('simple', docket_fold(${t}.title)), 'A')
      || setweight(to_tsvector('simple', docket_fold(coalesce(${t}.description, ''))), 'B')
      || setweight(to_tsvector('simple', docket_fold(coalesce(${comments}, ''))), 'C')`;
  const commentsOf = (t: string) =>
    `(select string_agg(c.content, ' ' order by c.created_at, c.id) from comments c where c.ticket_id = ${t}.id)`;
  await run(`create or replace function docket_ticket_doc(tid text) returns tsvector language plpgsql stable as $$
    begin
      return (select ${doc('t', commentsOf('t'))} from tickets t where t.id = tid);
    end $$`);

  // Tickets: a statement's new rows in one insert; title and description changes row by row as before.
  await run('drop trigger ticket_search_write on tickets');
  await run(`create trigger ticket_search_write after update of title, description on tickets
    for each row execute function docket_ticket_search()`);
  await run(`create function docket_ticket_search_inserted() returns trigger language plpgsql as $$
    begin
      insert into ticket_search (ticket_id, doc)
        select t.id, ${doc('t', commentsOf('t'))} from new_tickets t
        on conflict (ticket_id) do update set doc = excluded.doc;
      return null;
    end $$`);
  await run(`create trigger ticket_search_inserted after insert on tickets
    referencing new table as new_tickets for each statement execute function docket_ticket_search_inserted()`);

  // Comments: the tickets of a statement's new comments get their document again, once each.
  await run('drop trigger comment_search_write on comments');
  await run(`create trigger comment_search_write after delete or update of content, ticket_id on comments
    for each row execute function docket_comment_search()`);
  await run(`create function docket_comment_search_inserted() returns trigger language plpgsql as $$
    begin
      -- An array, not a join with the transition table (which has no statistics): the tickets are
      -- found by their keys, however large ticket_search is.
      update ticket_search s set doc = ${doc('t', commentsOf('t'))}
        from tickets t
        where t.id = s.ticket_id
          and s.ticket_id = any (array(select distinct ticket_id from new_comments));
      return null;
    end $$`);
  await run(`create trigger comment_search_inserted after insert on comments
    referencing new table as new_comments for each statement execute function docket_comment_search_inserted()`);
}
