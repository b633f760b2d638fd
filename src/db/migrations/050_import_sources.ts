import type { Kysely } from 'kysely';

/**
 * Imported tickets remember where they came from (docs/import.md): one row per (project, source,
 * source id), so that running the same import again finds the tickets it made instead of making
 * duplicates, and links and parents between imported tickets resolve by the source's ids or keys.
 * The row goes with its ticket and with its project.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('import_sources')
    .addColumn('project_id', 'text', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('source_id', 'text', (c) => c.notNull())
    .addColumn('ticket_id', 'text', (c) => c.notNull().references('tickets.id').onDelete('cascade'))
    .addColumn('source_key', 'text')
    .addColumn('source_url', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('import_sources_pk', ['project_id', 'source', 'source_id'])
    .execute();
  await db.schema.createIndex('import_sources_ticket_idx').on('import_sources').column('ticket_id').execute();
  await db.schema
    .createIndex('import_sources_key_idx')
    .on('import_sources')
    .columns(['project_id', 'source', 'source_key'])
    .execute();
}
