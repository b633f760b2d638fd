import type { Kysely } from 'kysely';

/**
 * The name the source gave the author of an imported comment who has no account here (issue 49,
 * docs/import.md "People"): shown as the comment's author instead of "Deleted user". Null for
 * comments written in Docket, and for imported ones whose author was matched to a user.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('comments').addColumn('author_name', 'text').execute();
}
