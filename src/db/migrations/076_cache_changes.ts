import type { Kysely } from 'kysely';

/**
 * The change log of the read cache (decision 047): on PostgreSQL each committed write leaves the
 * scopes it changed here, and every instance reads the entries above the last one it saw before it
 * answers from its cache. Entries are kept for ten minutes (src/db/connect.ts). SQLite keeps the
 * table empty: one server process, and another process's commit empties the whole cache.
 */
export async function up(db: Kysely<any>, dialect: 'sqlite' | 'postgres'): Promise<void> {
  await db.schema
    .createTable('cache_changes')
    .addColumn('id', dialect === 'postgres' ? 'bigserial' : 'integer', (c) => c.primaryKey())
    .addColumn('origin', 'text', (c) => c.notNull())
    .addColumn('scopes', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('cache_changes_created_idx').on('cache_changes').column('created_at').execute();
}
