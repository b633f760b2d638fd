import { type Kysely, sql } from 'kysely';

/**
 * Ticket templates per project (issue 23, docs/decisions/050-ticket-templates.md): a named set of
 * ticket fields the New-ticket dialog, the API (`templateId`) and the tool server preset. Names are
 * unique in a project ignoring case; at most one template of a project is its default.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('ticket_templates')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('project_id', 'text', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('about', 'text')
    .addColumn('type', 'text')
    .addColumn('title', 'text')
    .addColumn('description', 'text')
    .addColumn('priority', 'text')
    // JSON array of label ids; a label deleted since drops out when the template is read.
    .addColumn('label_ids', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('story_points', 'integer')
    .addColumn('assignee_id', 'text', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('is_default', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_by', 'text', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('version', 'integer', (c) => c.notNull().defaultTo(1))
    .execute();
  await sql`create unique index ticket_templates_name_uq on ticket_templates (project_id, lower(name))`.execute(
    db,
  );
  // One default per project, guaranteed by the database (two admins setting defaults at once).
  await sql`create unique index ticket_templates_default_uq on ticket_templates (project_id) where is_default = 1`.execute(
    db,
  );
}
