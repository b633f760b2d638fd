import { type Kysely, sql } from 'kysely';

/**
 * The initial schema, portable between SQLite and PostgreSQL. Conventions: ids are text,
 * timestamps ISO-8601 text, booleans integer 0/1, lists JSON text. Uniqueness and single-ness
 * rules live here as constraints and partial unique indexes, so the database guarantees them.
 */
export async function up(db: Kysely<any>, dialect: 'sqlite' | 'postgres'): Promise<void> {
  await db.schema
    .createTable('users')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('username', 'text', (c) => c.notNull())
    .addColumn('email', 'text')
    .addColumn('name', 'text')
    .addColumn('password_hash', 'text', (c) => c.notNull())
    .addColumn('avatar', 'text')
    .addColumn('is_system_admin', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('is_active', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('must_change_password', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('users_username_lower_uq')
    .on('users')
    .unique()
    .expression(sql`lower(username)`)
    .execute();
  await db.schema
    .createIndex('users_email_lower_uq')
    .on('users')
    .unique()
    .expression(sql`lower(email)`)
    .execute();

  await db.schema
    .createTable('sessions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('sessions_user_idx').on('sessions').column('user_id').execute();

  await db.schema
    .createTable('api_keys')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'text', (c) => c.notNull().unique().references('users.id').onDelete('cascade'))
    .addColumn('key_hash', 'text', (c) => c.notNull().unique())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('last_used_at', 'text')
    .execute();

  await db.schema
    .createTable('system_settings')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('max_image_size', 'bigint', (c) => c.notNull())
    .addColumn('max_video_size', 'bigint', (c) => c.notNull())
    .addColumn('max_document_size', 'bigint', (c) => c.notNull())
    .addColumn('max_attachments_per_ticket', 'integer', (c) => c.notNull())
    .addColumn('allowed_image_types', 'text', (c) => c.notNull())
    .addColumn('allowed_video_types', 'text', (c) => c.notNull())
    .addColumn('allowed_document_types', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('projects')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('key', 'text', (c) => c.notNull().unique())
    .addColumn('description', 'text')
    .addColumn('color', 'text', (c) => c.notNull())
    .addColumn('ticket_counter', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('sprint_counter', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('columns')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('project_id', 'text', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await sql`create unique index columns_project_name_uq on columns (project_id, lower(name))`.execute(db);
  await db.schema
    .createIndex('columns_project_position_idx')
    .on('columns')
    .columns(['project_id', 'position'])
    .execute();

  await db.schema
    .createTable('project_members')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('project_id', 'text', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('role', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('project_members_project_user_uq', ['project_id', 'user_id'])
    .addCheckConstraint('project_members_role_ck', sql`role in ('owner', 'admin', 'member')`)
    .execute();
  await db.schema.createIndex('project_members_user_idx').on('project_members').column('user_id').execute();
  await db.schema
    .createIndex('project_members_one_owner_uq')
    .on('project_members')
    .unique()
    .column('project_id')
    .where(sql.ref('role'), '=', 'owner')
    .execute();

  await db.schema
    .createTable('labels')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('project_id', 'text', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('color', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await sql`create unique index labels_project_name_uq on labels (project_id, lower(name))`.execute(db);

  await db.schema
    .createTable('sprints')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('project_id', 'text', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('goal', 'text')
    .addColumn('start_date', 'text')
    .addColumn('end_date', 'text')
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('budget', 'real')
    .addColumn('completed_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addCheckConstraint('sprints_status_ck', sql`status in ('planning', 'active', 'completed')`)
    .execute();
  await db.schema
    .createIndex('sprints_project_idx')
    .on('sprints')
    .columns(['project_id', 'created_at'])
    .execute();
  await db.schema
    .createIndex('sprints_one_active_uq')
    .on('sprints')
    .unique()
    .column('project_id')
    .where(sql.ref('status'), '=', 'active')
    .execute();

  await db.schema
    .createTable('sprint_settings')
    .addColumn('project_id', 'text', (c) => c.primaryKey().references('projects.id').onDelete('cascade'))
    .addColumn('default_sprint_duration', 'integer', (c) => c.notNull().defaultTo(2))
    .addColumn('auto_carry_over', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('done_column_ids', 'text', (c) => c.notNull().defaultTo('[]'))
    .execute();

  await db.schema
    .createTable('tickets')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('project_id', 'text', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('number', 'integer', (c) => c.notNull())
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('priority', 'text', (c) => c.notNull())
    .addColumn('column_id', 'text', (c) => c.notNull().references('columns.id'))
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('assignee_id', 'text', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('reporter_id', 'text', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('sprint_id', 'text', (c) => c.references('sprints.id').onDelete('set null'))
    .addColumn('parent_id', 'text', (c) => c.references('tickets.id').onDelete('set null'))
    .addColumn('story_points', 'integer')
    .addColumn('estimate', 'text')
    .addColumn('start_date', 'text')
    .addColumn('due_date', 'text')
    .addColumn('environment', 'text')
    .addColumn('affected_version', 'text')
    .addColumn('fix_version', 'text')
    .addColumn('is_carried_over', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('carried_from_sprint_id', 'text', (c) => c.references('sprints.id').onDelete('set null'))
    .addColumn('carried_over_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('tickets_project_number_uq', ['project_id', 'number'])
    .execute();
  await db.schema
    .createIndex('tickets_board_idx')
    .on('tickets')
    .columns(['project_id', 'column_id', 'position'])
    .execute();
  await db.schema
    .createIndex('tickets_column_idx')
    .on('tickets')
    .columns(['column_id', 'position'])
    .execute();
  await db.schema.createIndex('tickets_sprint_idx').on('tickets').column('sprint_id').execute();
  await db.schema.createIndex('tickets_assignee_idx').on('tickets').column('assignee_id').execute();
  await db.schema.createIndex('tickets_parent_idx').on('tickets').column('parent_id').execute();
  await db.schema.createIndex('tickets_reporter_idx').on('tickets').column('reporter_id').execute();
  await db.schema
    .createIndex('tickets_carried_from_idx')
    .on('tickets')
    .column('carried_from_sprint_id')
    .execute();

  await db.schema
    .createTable('ticket_labels')
    .addColumn('ticket_id', 'text', (c) => c.notNull().references('tickets.id').onDelete('cascade'))
    .addColumn('label_id', 'text', (c) => c.notNull().references('labels.id').onDelete('cascade'))
    .addPrimaryKeyConstraint('ticket_labels_pk', ['ticket_id', 'label_id'])
    .execute();
  await db.schema.createIndex('ticket_labels_label_idx').on('ticket_labels').column('label_id').execute();

  await db.schema
    .createTable('ticket_watchers')
    .addColumn('ticket_id', 'text', (c) => c.notNull().references('tickets.id').onDelete('cascade'))
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addPrimaryKeyConstraint('ticket_watchers_pk', ['ticket_id', 'user_id'])
    .execute();
  await db.schema.createIndex('ticket_watchers_user_idx').on('ticket_watchers').column('user_id').execute();

  await db.schema
    .createTable('ticket_links')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('source_ticket_id', 'text', (c) => c.notNull().references('tickets.id').onDelete('cascade'))
    .addColumn('target_ticket_id', 'text', (c) => c.notNull().references('tickets.id').onDelete('cascade'))
    .addColumn('link_type', 'text', (c) => c.notNull())
    .addColumn('created_by', 'text', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('ticket_links_uq', ['source_ticket_id', 'target_ticket_id', 'link_type'])
    .addCheckConstraint('ticket_links_type_ck', sql`link_type in ('blocks', 'duplicates', 'relates_to')`)
    .addCheckConstraint('ticket_links_not_self_ck', sql`source_ticket_id <> target_ticket_id`)
    .execute();
  await db.schema
    .createIndex('ticket_links_target_idx')
    .on('ticket_links')
    .column('target_ticket_id')
    .execute();

  await db.schema
    .createTable('comments')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('ticket_id', 'text', (c) => c.notNull().references('tickets.id').onDelete('cascade'))
    .addColumn('author_id', 'text', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('content', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('comments_ticket_idx')
    .on('comments')
    .columns(['ticket_id', 'created_at'])
    .execute();
  await db.schema.createIndex('comments_author_idx').on('comments').column('author_id').execute();

  await db.schema
    .createTable('attachments')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('ticket_id', 'text', (c) => c.notNull().references('tickets.id').onDelete('cascade'))
    .addColumn('uploader_id', 'text', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('filename', 'text', (c) => c.notNull())
    .addColumn('mime_type', 'text', (c) => c.notNull())
    .addColumn('size', 'bigint', (c) => c.notNull())
    .addColumn('stored_name', 'text', (c) => c.notNull().unique())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('attachments_ticket_idx')
    .on('attachments')
    .columns(['ticket_id', 'created_at'])
    .execute();
  await db.schema.createIndex('attachments_uploader_idx').on('attachments').column('uploader_id').execute();

  await db.schema
    .createTable('uploads')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('uploader_id', 'text', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('filename', 'text', (c) => c.notNull())
    .addColumn('mime_type', 'text', (c) => c.notNull())
    .addColumn('size', 'bigint', (c) => c.notNull())
    .addColumn('stored_name', 'text', (c) => c.notNull().unique())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('uploads_uploader_idx').on('uploads').column('uploader_id').execute();

  await db.schema
    .createTable('ticket_history')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('ticket_id', 'text', (c) => c.notNull().references('tickets.id').onDelete('cascade'))
    .addColumn('field', 'text', (c) => c.notNull())
    .addColumn('old_value', 'text')
    .addColumn('new_value', 'text')
    .addColumn('changed_by', 'text', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('changed_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('ticket_history_ticket_idx')
    .on('ticket_history')
    .columns(['ticket_id', 'changed_at'])
    .execute();
  await db.schema
    .createIndex('ticket_history_changed_by_idx')
    .on('ticket_history')
    .column('changed_by')
    .execute();

  await db.schema
    .createTable('sprint_ticket_history')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('sprint_id', 'text', (c) => c.notNull().references('sprints.id').onDelete('cascade'))
    .addColumn('ticket_id', 'text', (c) => c.notNull().references('tickets.id').onDelete('cascade'))
    .addColumn('entry_type', 'text', (c) => c.notNull())
    .addColumn('entered_at', 'text', (c) => c.notNull())
    .addColumn('exit_status', 'text')
    .addColumn('exited_at', 'text')
    .addColumn('story_points', 'integer')
    .execute();
  await db.schema
    .createIndex('sprint_ticket_history_sprint_idx')
    .on('sprint_ticket_history')
    .columns(['sprint_id', 'entered_at'])
    .execute();
  await db.schema
    .createIndex('sprint_ticket_history_ticket_idx')
    .on('sprint_ticket_history')
    .column('ticket_id')
    .execute();

  await db.schema
    .createTable('events')
    .addColumn('id', dialect === 'postgres' ? 'bigserial' : 'integer', (c) =>
      dialect === 'postgres' ? c.primaryKey() : c.primaryKey().autoIncrement(),
    )
    .addColumn('scope', 'text', (c) => c.notNull())
    .addColumn('project_id', 'text')
    .addColumn('user_id', 'text')
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('data', 'text', (c) => c.notNull())
    .addColumn('tab_id', 'text')
    .addColumn('audience', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('events_created_idx').on('events').column('created_at').execute();
}
