import type { Kysely } from 'kysely';

/**
 * Rate limits in the database (issue 22, docs/decisions/042-several-instances.md): one fixed-window
 * counter per key (`login-account:…`, `login-address:…`, `register:…`), so every instance that shares
 * the database enforces one limit. Rows are short-lived state, pruned when their window has ended,
 * and left out of backups.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('rate_limits')
    .addColumn('key', 'text', (c) => c.primaryKey())
    .addColumn('count', 'integer', (c) => c.notNull())
    /** When the window ends, in milliseconds since the epoch. */
    .addColumn('reset_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('rate_limits_reset_idx').on('rate_limits').column('reset_at').execute();
}
