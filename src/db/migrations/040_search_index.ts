import { type Kysely, sql } from 'kysely';
import { accentTable } from '../search-fold.js';

/**
 * The full-text index of tickets (title, description and comments), kept in step by triggers
 * inside every writing transaction, so no write path has to remember it
 * (docs/decisions/038-search.md). Derived data: not in backups; a restore's inserts rebuild it.
 *
 * SQLite: an FTS5 table (unicode61, accents removed) whose rowids come from `ticket_search_ids`
 * (tickets have text ids, and a table's implicit rowid may change on VACUUM).
 * PostgreSQL: `ticket_search(ticket_id, doc tsvector)` with a GIN index; words are folded by
 * `docket_fold` (lower case, Latin accents removed by translate(): the unaccent extension may not
 * be installed, and tests run in their own schema), on the indexed text and on the query alike.
 */
export async function up(db: Kysely<any>, dialect: 'sqlite' | 'postgres'): Promise<void> {
  if (dialect === 'sqlite') await sqliteUp(db);
  else await postgresUp(db);
}

async function sqliteUp(db: Kysely<any>) {
  const run = (text: string) => sql.raw(text).execute(db);
  await run('create table ticket_search_ids (id integer primary key, ticket_id text not null unique)');
  await run(
    "create virtual table ticket_fts using fts5(title, description, comments, tokenize = 'unicode61 remove_diacritics 2')",
  );
  const rowOf = (ref: string) => `(select id from ticket_search_ids where ticket_id = ${ref})`;
  const commentsOf = (ref: string) =>
    `coalesce((select group_concat(content, ' ') from comments where ticket_id = ${ref}), '')`;
  await run(`create trigger ticket_search_insert after insert on tickets begin
    insert into ticket_search_ids (ticket_id) values (new.id);
    insert into ticket_fts (rowid, title, description, comments)
      values (${rowOf('new.id')}, new.title, coalesce(new.description, ''), ${commentsOf('new.id')});
  end`);
  await run(`create trigger ticket_search_update after update of title, description on tickets
    when old.title is not new.title or old.description is not new.description begin
    update ticket_fts set title = new.title, description = coalesce(new.description, '')
      where rowid = ${rowOf('new.id')};
  end`);
  await run(`create trigger ticket_search_delete after delete on tickets begin
    delete from ticket_fts where rowid = ${rowOf('old.id')};
    delete from ticket_search_ids where ticket_id = old.id;
  end`);
  for (const [event, ref] of [
    ['insert', 'new.ticket_id'],
    ['update of content', 'new.ticket_id'],
    ['delete', 'old.ticket_id'],
  ] as const) {
    const name = `comment_search_${event.split(' ')[0]}`;
    await run(`create trigger ${name} after ${event} on comments begin
      update ticket_fts set comments = ${commentsOf(ref)} where rowid = ${rowOf(ref)};
    end`);
  }
  // The index of the tickets that exist already.
  await run('insert into ticket_search_ids (ticket_id) select id from tickets order by id');
  await run(`insert into ticket_fts (rowid, title, description, comments)
    select s.id, t.title, coalesce(t.description, ''), ${commentsOf('t.id')}
    from tickets t join ticket_search_ids s on s.ticket_id = t.id`);
}

async function postgresUp(db: Kysely<any>) {
  const run = (text: string) => sql.raw(text).execute(db);
  const { from, to } = accentTable();
  // Lower case, accents folded, anything but letters and digits a space: the words both sides see.
  await run(`create function docket_fold(t text) returns text language sql immutable parallel safe as
    $$ select regexp_replace(lower(translate(t, '${from}', '${to}')), '[^[:alnum:]]+', ' ', 'g') $$`);
  await run(`create table ticket_search (
    ticket_id text primary key references tickets (id) on delete cascade,
    doc tsvector not null)`);
  await run('create index ticket_search_doc on ticket_search using gin (doc)');
  await run(`create function docket_ticket_doc(tid text) returns tsvector language sql stable as $$
    select setweight(to_tsvector('simple', docket_fold(t.title)), 'A')
      || setweight(to_tsvector('simple', docket_fold(coalesce(t.description, ''))), 'B')
      || setweight(to_tsvector('simple', docket_fold(coalesce(
           (select string_agg(c.content, ' ' order by c.created_at, c.id) from comments c where c.ticket_id = t.id), ''))), 'C')
    from tickets t where t.id = tid $$`);
  await run(`create function docket_ticket_search() returns trigger language plpgsql as $$
    begin
      insert into ticket_search (ticket_id, doc) values (new.id, docket_ticket_doc(new.id))
        on conflict (ticket_id) do update set doc = excluded.doc;
      return null;
    end $$`);
  await run(`create trigger ticket_search_write after insert or update of title, description on tickets
    for each row execute function docket_ticket_search()`);
  await run(`create function docket_comment_search() returns trigger language plpgsql as $$
    declare tid text;
    begin
      if tg_op = 'DELETE' then tid := old.ticket_id; else tid := new.ticket_id; end if;
      update ticket_search set doc = coalesce(docket_ticket_doc(tid), ''::tsvector) where ticket_id = tid;
      if tg_op = 'UPDATE' and old.ticket_id is distinct from new.ticket_id then
        update ticket_search set doc = coalesce(docket_ticket_doc(old.ticket_id), ''::tsvector)
          where ticket_id = old.ticket_id;
      end if;
      return null;
    end $$`);
  await run(`create trigger comment_search_write after insert or delete or update of content, ticket_id on comments
    for each row execute function docket_comment_search()`);
  await run('insert into ticket_search (ticket_id, doc) select id, docket_ticket_doc(id) from tickets');
}
