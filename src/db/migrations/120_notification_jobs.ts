import type { Kysely } from 'kysely';

/**
 * The notifications of a change, made after it (issue 47, docs/decisions/062-read-path-and-deferred-notifications.md):
 * a comment writes one job in its own transaction, and a worker of any instance makes the
 * notifications, their e-mail and their events in another transaction that also deletes the job.
 * So the work is durable (the job commits with the comment) and done once (its effects commit
 * with its deletion; a worker that dies rolls both back, and the job is claimed again).
 *
 * No foreign keys: a job whose project or ticket is gone by the time it is run is dropped, and the
 * comment's transaction checks nothing more for it. Left out of backups, like the other outboxes.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('notification_jobs')
    // UUIDv7: in the order the jobs were written.
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('project_id', 'text', (c) => c.notNull())
    .addColumn('ticket_id', 'text')
    .addColumn('actor_id', 'text')
    /** JSON object text: what the kind needs (a comment's text). */
    .addColumn('data', 'text', (c) => c.notNull())
    /** `pending`, or `failed` after its last attempt (kept for the operator). */
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('pending'))
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('next_attempt_at', 'text', (c) => c.notNull())
    .addColumn('last_error', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('notification_jobs_due_idx')
    .on('notification_jobs')
    .columns(['status', 'next_attempt_at'])
    .execute();
}
