import type { Kysely } from 'kysely';

/**
 * Saved views (docs/search.md): a named query with its layout, private to its author or shared with
 * a project's members. A view goes with its author's account and with its project.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('saved_views')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('author_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('project_id', 'text', (c) => c.references('projects.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('query', 'text', (c) => c.notNull())
    .addColumn('shared', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('layout', 'text', (c) => c.notNull())
    .addColumn('columns', 'text', (c) => c.notNull())
    .addColumn('group_by', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('saved_views_author_idx').on('saved_views').column('author_id').execute();
  await db.schema.createIndex('saved_views_project_idx').on('saved_views').column('project_id').execute();
}
