import type { Kysely } from 'kysely';

/**
 * What a user sees of their sessions (GET /api/me/sessions): when each was last used, and the
 * browser and address that signed in. Sessions are not in backups.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('sessions').addColumn('last_used_at', 'text').execute();
  await db.schema.alterTable('sessions').addColumn('user_agent', 'text').execute();
  await db.schema.alterTable('sessions').addColumn('address', 'text').execute();
}
