import type { Kysely } from 'kysely';

/**
 * Single sign-on with OpenID Connect (issue 19, docs/decisions/043-sso-and-password-reset.md):
 * - `oidc_identities`: which provider account (issuer and subject) signs in as which user; one
 *   provider account links to one user;
 * - `oidc_logins`: sign-ins under way, between the redirect to the provider and its answer: the
 *   PKCE verifier and nonce, keyed by the SHA-256 of the state (which the browser also holds in a
 *   cookie). A row is spent by the callback that deletes it; rows older than ten minutes are void.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('oidc_identities')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('issuer', 'text', (c) => c.notNull())
    .addColumn('subject', 'text', (c) => c.notNull())
    .addColumn('email', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('last_login_at', 'text')
    .addUniqueConstraint('oidc_identities_subject_uq', ['issuer', 'subject'])
    .execute();
  await db.schema.createIndex('oidc_identities_user_idx').on('oidc_identities').column('user_id').execute();
  await db.schema
    .createTable('oidc_logins')
    .addColumn('state_hash', 'text', (c) => c.primaryKey())
    .addColumn('code_verifier', 'text', (c) => c.notNull())
    .addColumn('nonce', 'text', (c) => c.notNull())
    .addColumn('return_to', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
}
