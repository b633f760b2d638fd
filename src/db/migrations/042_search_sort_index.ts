import { type Kysely, sql } from 'kysely';

/**
 * Search (docs/decisions/038-search.md): a narrow index in the default order (updated, then id),
 * carrying the columns the common filters test, so that the first page of "updated descending"
 * stops after its rows and a count over filters reads this index instead of the wide ticket rows.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`create index tickets_search_updated_idx on tickets
    (updated_at, id, project_id, type, priority, column_id, assignee_id, sprint_id, story_points, due_date)`.execute(
    db,
  );
}
