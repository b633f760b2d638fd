/**
 * Table types of sign-in and of outside systems: forgotten-password links, single sign-on, OAuth
 * clients and their tokens, webhooks. The rest, and the `Database` that names them all, are in
 * types.ts (whose conventions hold here too).
 */

/** Forgotten-password links (migration 066): only the token's SHA-256 is stored; single use. */
export interface PasswordResetsTable {
  id: string;
  user_id: string;
  token_hash: string;
  created_at: string;
  expires_at: string;
}

/**
 * A forgotten-password request or a registration awaiting e-mail confirmation (migration 110): the
 * request writes it whatever account it names; the mail sender claims it like an outbox row and
 * deletes it in the transaction that acts on it (src/domain/account-requests.ts).
 */
export interface AccountRequestsTable {
  id: string;
  kind: 'password_reset' | 'registration';
  /** password_reset: the e-mail address or username as given. */
  login: string | null;
  username: string | null;
  email: string | null;
  name: string | null;
  password_hash: string | null;
  address: string | null;
  status: 'pending' | 'failed';
  attempts: number;
  next_attempt_at: string;
  claimed_by: string | null;
  claimed_until: string | null;
  last_error: string | null;
  created_at: string;
}

/** A registered account not yet confirmed (migration 110): created when its link is used. */
export interface RegistrationConfirmationsTable {
  id: string;
  token_hash: string;
  username: string;
  email: string;
  name: string | null;
  password_hash: string;
  created_at: string;
  expires_at: string;
}

/** A provider account (OpenID Connect issuer and subject) linked to a user (migration 067). */
export interface OidcIdentitiesTable {
  id: string;
  user_id: string;
  issuer: string;
  subject: string;
  email: string | null;
  created_at: string;
  last_login_at: string | null;
}

/** A single sign-on under way (migration 067), keyed by the SHA-256 of its state. */
export interface OidcLoginsTable {
  state_hash: string;
  code_verifier: string;
  nonce: string;
  return_to: string;
  created_at: string;
}

/** OAuth clients registered by dynamic client registration (migration 069). */
export interface OAuthClientsTable {
  id: string;
  name: string;
  client_uri: string | null;
  /** JSON list of the registered redirect URIs. */
  redirect_uris: string;
  /** `none`, `client_secret_post` or `client_secret_basic`. */
  auth_method: string;
  secret_hash: string | null;
  created_at: string;
}

/** What a user let a client do: act for them with a scope (`read` or `write`). */
export interface OAuthGrantsTable {
  id: string;
  user_id: string;
  client_id: string;
  scope: string;
  created_at: string;
  last_used_at: string | null;
}

export interface OAuthCodesTable {
  code_hash: string;
  grant_id: string;
  redirect_uri: string;
  /** The PKCE S256 challenge. */
  code_challenge: string;
  expires_at: string;
  /** Set by the exchange: a second exchange revokes the grant. */
  used_at: string | null;
}

export interface OAuthTokensTable {
  token_hash: string;
  grant_id: string;
  /** `access` or `refresh`. */
  kind: string;
  scope: string;
  created_at: string;
  expires_at: string;
  /** A refresh token is used once (rotation); using it again revokes the grant. */
  used_at: string | null;
}

/** A project's webhook (migration 055, docs/webhooks.md). */
export interface WebhooksTable {
  id: string;
  project_id: string;
  url: string;
  secret: string;
  /** JSON array of event types. */
  events: string;
  active: number;
  created_by: string | null;
  failing_since: string | null;
  disabled_reason: string | null;
  created_at: string;
  updated_at: string;
}

/** One event to send to one hook: the webhook outbox (migration 055). */
export interface WebhookDeliveriesTable {
  id: string;
  hook_id: string;
  project_id: string;
  /** The event log id (a bigint: a string on PostgreSQL). */
  seq: number | string;
  event_type: string;
  order_key: string;
  body: string;
  redelivery_of: string | null;
  status: 'pending' | 'delivered' | 'failed';
  attempts: number;
  next_attempt_at: string;
  claimed_by: string | null;
  claimed_until: string | null;
  response_status: number | null;
  duration_ms: number | null;
  last_error: string | null;
  created_at: string;
  finished_at: string | null;
}
