import type { Kysely } from 'kysely';

/**
 * The project setting that lets every member delete any ticket (0 or 1). Off by default: a ticket
 * is deleted by its reporter or a project admin/owner (docs/decisions/046-board-drive-and-deletion.md).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('projects')
    .addColumn('members_may_delete', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
}
