import { type Kysely, sql } from 'kysely';

/**
 * Webhooks (issue 21, docs/decisions/040-webhooks.md): the hooks of each project and their
 * delivery outbox, written in the transaction of the change it reports.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('webhooks')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('project_id', 'text', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('url', 'text', (c) => c.notNull())
    // The HMAC key: it must be used, not only compared, so it is kept as given (never shown again).
    .addColumn('secret', 'text', (c) => c.notNull())
    /** JSON array of event types. */
    .addColumn('events', 'text', (c) => c.notNull())
    .addColumn('active', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('created_by', 'text', (c) => c.references('users.id').onDelete('set null'))
    // Since when every delivery failed (null while it succeeds); a day of it disables the hook.
    .addColumn('failing_since', 'text')
    .addColumn('disabled_reason', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('webhooks_project_idx')
    .on('webhooks')
    .columns(['project_id', 'active'])
    .execute();

  await db.schema
    .createTable('webhook_deliveries')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('hook_id', 'text', (c) => c.notNull().references('webhooks.id').onDelete('cascade'))
    .addColumn('project_id', 'text', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    // The event log id: the order of deliveries of one hook and one record.
    .addColumn('seq', 'bigint', (c) => c.notNull())
    .addColumn('event_type', 'text', (c) => c.notNull())
    // The record whose deliveries go in order (the ticket, else the record itself).
    .addColumn('order_key', 'text', (c) => c.notNull())
    // The exact body sent (and signed), the same on every attempt.
    .addColumn('body', 'text', (c) => c.notNull())
    .addColumn('redelivery_of', 'text')
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('pending'))
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('next_attempt_at', 'text', (c) => c.notNull())
    .addColumn('claimed_by', 'text')
    .addColumn('claimed_until', 'text')
    .addColumn('response_status', 'integer')
    .addColumn('duration_ms', 'integer')
    .addColumn('last_error', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('finished_at', 'text')
    .addCheckConstraint('webhook_deliveries_status_ck', sql`status in ('pending', 'delivered', 'failed')`)
    .execute();
  await db.schema
    .createIndex('webhook_deliveries_due_idx')
    .on('webhook_deliveries')
    .columns(['status', 'next_attempt_at'])
    .execute();
  await db.schema
    .createIndex('webhook_deliveries_order_idx')
    .on('webhook_deliveries')
    .columns(['hook_id', 'order_key', 'status', 'seq'])
    .execute();
  await db.schema
    .createIndex('webhook_deliveries_list_idx')
    .on('webhook_deliveries')
    .columns(['hook_id', 'created_at', 'id'])
    .execute();
}
