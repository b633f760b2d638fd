import type { Kysely } from 'kysely';

/**
 * How many requests a rate-limit counter refused in its current window (issue 49,
 * docs/decisions/058-trust-findings.md): the first refusal of a window is recorded in the audit
 * log, the rest are only counted here, so that a flood of refused requests cannot flood the log.
 * A new window starts it at 0 again, as it does the count.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('rate_limits')
    .addColumn('refused', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
}
