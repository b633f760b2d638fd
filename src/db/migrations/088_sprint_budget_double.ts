import type { Kysely } from 'kysely';

/**
 * A sprint's budget as a double on PostgreSQL too. Migration 001 made it `real`, which SQLite stores
 * as an 8-byte float and PostgreSQL as a 4-byte one: PostgreSQL kept 12.3456789 as 12.345679 and
 * refused 1e-300 (a number the contract accepts) with an out-of-range error, a 500 found by the
 * fuzz test. Both databases now keep every budget the contract takes exactly as sent.
 */
export async function up(db: Kysely<any>, dialect: 'sqlite' | 'postgres'): Promise<void> {
  if (dialect !== 'postgres') return;
  await db.schema
    .alterTable('sprints')
    .alterColumn('budget', (c) => c.setDataType('double precision'))
    .execute();
}
