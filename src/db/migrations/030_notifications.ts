import { type Kysely, sql } from 'kysely';

/**
 * Notifications (issue 18, docs/decisions/037-notifications.md): the inbox, each user's e-mail
 * preferences, the durable mail outbox and the key that signs unsubscribe links.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('notifications')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('actor_id', 'text', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('project_id', 'text', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('ticket_id', 'text', (c) => c.references('tickets.id').onDelete('cascade'))
    .addColumn('excerpt', 'text', (c) => c.notNull())
    .addColumn('fold_count', 'integer', (c) => c.notNull().defaultTo(1))
    // none: no e-mail; digest: waiting for the user's digest; queued: in the outbox (or in a digest).
    .addColumn('mail', 'text', (c) => c.notNull().defaultTo('none'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('read_at', 'text')
    .addCheckConstraint('notifications_mail_ck', sql`mail in ('none', 'digest', 'queued')`)
    .execute();
  await db.schema
    .createIndex('notifications_user_idx')
    .on('notifications')
    .columns(['user_id', 'updated_at', 'id'])
    .execute();
  await db.schema
    .createIndex('notifications_fold_idx')
    .on('notifications')
    .columns(['user_id', 'ticket_id', 'actor_id'])
    .execute();
  await db.schema
    .createIndex('notifications_digest_idx')
    .on('notifications')
    .columns(['mail', 'user_id'])
    .execute();
  await db.schema.createIndex('notifications_project_idx').on('notifications').column('project_id').execute();

  await db.schema
    .createTable('notification_settings')
    .addColumn('user_id', 'text', (c) => c.primaryKey().references('users.id').onDelete('cascade'))
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('digest_minutes', 'integer', (c) => c.notNull())
    /** JSON object {<type>: boolean}: which types are e-mailed. */
    .addColumn('types', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addCheckConstraint('notification_settings_email_ck', sql`email in ('off', 'instant', 'digest')`)
    .execute();

  await db.schema
    .createTable('mail_outbox')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('project_id', 'text', (c) => c.references('projects.id').onDelete('cascade'))
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('to_address', 'text', (c) => c.notNull())
    .addColumn('subject', 'text', (c) => c.notNull())
    .addColumn('text_body', 'text', (c) => c.notNull())
    .addColumn('html_body', 'text', (c) => c.notNull())
    .addColumn('unsubscribe_url', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('pending'))
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('next_attempt_at', 'text', (c) => c.notNull())
    .addColumn('claimed_by', 'text')
    .addColumn('claimed_until', 'text')
    .addColumn('last_error', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('sent_at', 'text')
    .addCheckConstraint('mail_outbox_status_ck', sql`status in ('pending', 'sent', 'failed')`)
    .execute();
  await db.schema
    .createIndex('mail_outbox_due_idx')
    .on('mail_outbox')
    .columns(['status', 'next_attempt_at'])
    .execute();

  await db.schema
    .createTable('signing_keys')
    .addColumn('name', 'text', (c) => c.primaryKey())
    .addColumn('secret', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
}
