import type { Kysely } from 'kysely';

/**
 * The moment a sprint was started. Sprint dates are whole days; the reports need the instant
 * (what the team committed to is what the sprint held when it started).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('sprints').addColumn('started_at', 'text').execute();
}
