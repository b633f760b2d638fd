import type { Kysely } from 'kysely';

/**
 * Forgotten passwords (issue 19, docs/decisions/043-sso-and-password-reset.md): single-use reset
 * links. Only the SHA-256 of a link's token is stored; a reset deletes the row in the statement
 * that checks it (with every other link of the user), so one link resets a password once.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('password_resets')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('password_resets_user_idx').on('password_resets').column('user_id').execute();
}
