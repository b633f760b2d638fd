import type { Kysely } from 'kysely';

/**
 * Two-factor sign-in (TOTP, RFC 6238): the user's secret (set when setup starts, in use once
 * enabled), the last time step accepted (a code is accepted once), and the SHA-256 hashes of the
 * unused recovery codes (JSON list). Columns of users, so backups made before read them as off.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('users').addColumn('two_factor_secret', 'text').execute();
  await db.schema
    .alterTable('users')
    .addColumn('two_factor_enabled', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.alterTable('users').addColumn('two_factor_last_step', 'integer').execute();
  await db.schema.alterTable('users').addColumn('two_factor_recovery', 'text').execute();
}
