import type { Kysely } from 'kysely';

/**
 * The audit log (docs/security.md): one row per security-relevant action, appended in the
 * transaction of the change it records and never updated; rows older than DOCKET_AUDIT_DAYS are
 * deleted. No foreign keys: an entry outlives the user, project or ticket it names (the actor's
 * username is copied into it). Not in backups, and kept through restores and wipes.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('audit_log')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('at', 'text', (c) => c.notNull())
    .addColumn('actor_id', 'text')
    .addColumn('actor_name', 'text')
    .addColumn('action', 'text', (c) => c.notNull())
    .addColumn('target_type', 'text')
    .addColumn('target_id', 'text')
    .addColumn('address', 'text')
    .addColumn('details', 'text')
    .execute();
  await db.schema.createIndex('audit_log_at_idx').on('audit_log').column('at').execute();
  await db.schema.createIndex('audit_log_actor_idx').on('audit_log').columns(['actor_id', 'id']).execute();
  await db.schema.createIndex('audit_log_action_idx').on('audit_log').columns(['action', 'id']).execute();
}
