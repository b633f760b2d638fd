import { type Kysely, sql } from 'kysely';

/**
 * Search at 1,000,000 tickets (issue 17, docs/decisions/038-search.md): exact totals counted from
 * index ranges instead of a scan of every ticket. Each index leads with a filter people ask for and
 * carries the column the next common filter tests, so that the count reads the index alone:
 * `type:… priority…` (and `is:open`), `assignee:… is:open`, `sprint:… points…`, `label:…`. The three
 * single-column indexes they extend (assignee, sprint, label) go: the new ones serve their lookups too.
 */
export async function up(db: Kysely<any>, dialect: 'sqlite' | 'postgres'): Promise<void> {
  await sql`create index tickets_type_priority_idx on tickets (type, priority, column_id)`.execute(db);
  await sql`create index tickets_assignee_column_idx on tickets (assignee_id, column_id)`.execute(db);
  await sql`create index tickets_sprint_points_idx on tickets (sprint_id, story_points)`.execute(db);
  await sql`drop index tickets_assignee_idx`.execute(db);
  await sql`drop index tickets_sprint_idx`.execute(db);
  // `label:`: the tickets of a label from the index alone (the one on label_id alone read each row).
  await sql`create index ticket_labels_label_ticket_idx on ticket_labels (label_id, ticket_id)`.execute(db);
  await sql`drop index ticket_labels_label_idx`.execute(db);
  // Statistics for the planners to weigh the new indexes: PostgreSQL samples; SQLite only where
  // statistics were gathered before (without any, its planner's defaults already prefer them).
  if (dialect === 'postgres') await sql`analyze tickets, ticket_labels`.execute(db);
  else {
    const stats = await sql<{
      n: number;
    }>`select count(*) as n from sqlite_master where name = 'sqlite_stat1'`.execute(db);
    if (Number(stats.rows[0]?.n) > 0) {
      await sql`analyze tickets`.execute(db);
      await sql`analyze ticket_labels`.execute(db);
    }
  }
}
