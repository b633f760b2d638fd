import type { Kysely } from 'kysely';

/**
 * Disabling an account ends its sessions, API keys and OAuth grants (issue 49). Accounts disabled
 * before that kept their keys and grants, refused only while disabled; they end here, so that
 * enabling such an account again does not bring them back. The grants' codes and tokens are
 * deleted explicitly rather than left to the foreign keys' cascade.
 */
export async function up(db: Kysely<any>): Promise<void> {
  const disabled = db.selectFrom('users').select('id').where('is_active', '=', 0);
  const grants = db.selectFrom('oauth_grants').select('id').where('user_id', 'in', disabled);
  await db.deleteFrom('oauth_tokens').where('grant_id', 'in', grants).execute();
  await db.deleteFrom('oauth_codes').where('grant_id', 'in', grants).execute();
  await db.deleteFrom('oauth_grants').where('user_id', 'in', disabled).execute();
  await db.deleteFrom('api_keys').where('user_id', 'in', disabled).execute();
  await db.deleteFrom('sessions').where('user_id', 'in', disabled).execute();
  await db.deleteFrom('password_resets').where('user_id', 'in', disabled).execute();
}
