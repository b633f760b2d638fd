import type { Kysely } from 'kysely';

/** The system setting that requires two-factor sign-in of everyone (0 or 1). */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('system_settings')
    .addColumn('require_two_factor', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
}
