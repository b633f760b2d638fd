import { type Kysely, sql } from 'kysely';

/**
 * PostgreSQL: a GIN index of the title's part of each search document (`ts_filter(doc, '{a}')`:
 * the title's words carry weight A, migration 040), so that relevance's first tier, the tickets
 * whose title holds every word (issue 17, docs/decisions/038-search.md "Title first"), is found
 * and ranked without reading every match's document: `timeout` at 1,000,000 tickets has 28,508
 * matches, about 4,000 of them in the title.
 *
 * An index of an expression of the document: kept in step by PostgreSQL itself, in the writing
 * transaction; a write that leaves the document unchanged (a move) can still be a HOT update.
 * SQLite: nothing (FTS5 matches a column alone: `title : (…)`).
 */
export async function up(db: Kysely<any>, dialect: 'sqlite' | 'postgres'): Promise<void> {
  if (dialect !== 'postgres') return;
  await sql`create index ticket_search_title_idx on ticket_search using gin (ts_filter(doc, '{a}'))`.execute(
    db,
  );
}
