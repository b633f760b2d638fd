import { type Kysely, sql } from 'kysely';

/**
 * Several named API keys per user, each with a scope (`read` or `write`) and an optional expiry.
 * The one-key-per-user table had a unique user_id; the portable way to drop that constraint on
 * both databases is a new table. Existing keys become write keys named "MCP" (the key that
 * /api/me/mcp-key manages).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('api_keys_scoped')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('scope', 'text', (c) => c.notNull())
    .addColumn('key_hash', 'text', (c) => c.notNull().unique())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('last_used_at', 'text')
    .addColumn('expires_at', 'text')
    .execute();
  await sql`insert into api_keys_scoped (id, user_id, name, scope, key_hash, created_at, last_used_at, expires_at)
    select id, user_id, 'MCP', 'write', key_hash, created_at, last_used_at, null from api_keys`.execute(db);
  await db.schema.dropTable('api_keys').execute();
  await db.schema.alterTable('api_keys_scoped').renameTo('api_keys').execute();
  await db.schema.createIndex('api_keys_user_idx').on('api_keys').column('user_id').execute();
}
