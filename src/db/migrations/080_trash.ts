import type { Kysely } from 'kysely';

/**
 * The trash (docs/decisions/048-trash-and-undo.md): a deleted ticket leaves the `tickets` table (so
 * no read, search or report needs a filter) and is kept here for 30 days as one JSON snapshot of
 * its row and every dependent row. `trashed_files` names the attachment files the snapshot keeps
 * in the file store until the ticket is restored or purged (one row per file, so backups carry them).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('trashed_tickets')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('project_id', 'text', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('ticket_id', 'text', (c) => c.notNull().unique())
    .addColumn('number', 'integer', (c) => c.notNull())
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('deleted_by', 'text', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('deleted_at', 'text', (c) => c.notNull())
    .addColumn('snapshot', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('trashed_tickets_project_idx')
    .on('trashed_tickets')
    .columns(['project_id', 'deleted_at'])
    .execute();
  await db.schema
    .createIndex('trashed_tickets_deleted_idx')
    .on('trashed_tickets')
    .column('deleted_at')
    .execute();
  await db.schema
    .createTable('trashed_files')
    .addColumn('stored_name', 'text', (c) => c.primaryKey())
    .addColumn('trash_id', 'text', (c) => c.notNull().references('trashed_tickets.id').onDelete('cascade'))
    .execute();
  await db.schema.createIndex('trashed_files_trash_idx').on('trashed_files').column('trash_id').execute();
}
