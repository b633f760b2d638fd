import { type Kysely, sql } from 'kysely';

/**
 * Account discovery (issue 49, docs/decisions/057-account-discovery-and-origin.md):
 *
 * - `account_requests`: forgotten-password requests and registrations that await e-mail
 *   confirmation, written by the request in one statement whatever account they name, and worked
 *   off by the mail sender with the outbox's claim, lease and retry (src/domain/account-requests.ts).
 *   A row is deleted in the transaction that acts on it.
 * - `registration_confirmations`: accounts registered but not yet confirmed (only the SHA-256 of the
 *   link's token is stored). The account is created when the link is used.
 * - `system_settings.require_email_confirmation`: the administrators' setting (0 or 1).
 * - `mail_outbox.user_id` may be null: a confirmation goes to an address that has no account yet.
 *   SQLite cannot drop a NOT NULL, so there the table is rebuilt with the same rows.
 */
export async function up(db: Kysely<any>, dialect: 'sqlite' | 'postgres'): Promise<void> {
  await db.schema
    .alterTable('system_settings')
    .addColumn('require_email_confirmation', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();

  await db.schema
    .createTable('account_requests')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('kind', 'text', (c) => c.notNull())
    /** password_reset: the e-mail address or username as given. */
    .addColumn('login', 'text')
    /** registration: the account asked for, its password already hashed. */
    .addColumn('username', 'text')
    .addColumn('email', 'text')
    .addColumn('name', 'text')
    .addColumn('password_hash', 'text')
    /** The client's address, for the audit log. */
    .addColumn('address', 'text')
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('pending'))
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('next_attempt_at', 'text', (c) => c.notNull())
    .addColumn('claimed_by', 'text')
    .addColumn('claimed_until', 'text')
    .addColumn('last_error', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addCheckConstraint('account_requests_kind_ck', sql`kind in ('password_reset', 'registration')`)
    .addCheckConstraint('account_requests_status_ck', sql`status in ('pending', 'failed')`)
    .execute();
  await db.schema
    .createIndex('account_requests_due_idx')
    .on('account_requests')
    .columns(['status', 'next_attempt_at'])
    .execute();

  await db.schema
    .createTable('registration_confirmations')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('username', 'text', (c) => c.notNull())
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('name', 'text')
    .addColumn('password_hash', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('registration_confirmations_expires_idx')
    .on('registration_confirmations')
    .column('expires_at')
    .execute();
  await db.schema
    .createIndex('registration_confirmations_email_idx')
    .on('registration_confirmations')
    .expression(sql`lower(email)`)
    .execute();

  if (dialect === 'postgres') {
    await sql`alter table mail_outbox alter column user_id drop not null`.execute(db);
  } else {
    await rebuildSqliteOutbox(db);
  }
  // Account mail sent to one address in the last hour is counted (at most three).
  await sql`create index mail_outbox_to_idx on mail_outbox (lower(to_address), created_at)`.execute(db);
}

/** mail_outbox as migration 030 made it, with `user_id` nullable. */
async function rebuildSqliteOutbox(db: Kysely<any>) {
  await db.schema
    .createTable('mail_outbox_next')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'text', (c) => c.references('users.id').onDelete('cascade'))
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
  await sql`insert into mail_outbox_next select id, user_id, project_id, kind, to_address, subject, text_body, html_body, unsubscribe_url, status, attempts, next_attempt_at, claimed_by, claimed_until, last_error, created_at, sent_at from mail_outbox`.execute(
    db,
  );
  await db.schema.dropTable('mail_outbox').execute();
  await sql`alter table mail_outbox_next rename to mail_outbox`.execute(db);
  await db.schema
    .createIndex('mail_outbox_due_idx')
    .on('mail_outbox')
    .columns(['status', 'next_attempt_at'])
    .execute();
}
