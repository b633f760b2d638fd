import type { Database } from './types.js';

/**
 * What writing a table changes for cached reads (src/db/changes.ts, decision 047): `project`, the
 * project the transaction names; `project-access`, that project's access answers too; or a list of
 * shared scopes (`users`, `auth`, `settings`; empty: nothing a cached answer shows).
 */
export type TableScopes = 'project' | 'project-access' | readonly string[];

export interface TableEntry {
  scopes: TableScopes;
  /**
   * Whether a backup holds its rows (src/domain/backup/format.ts, decision 018): the tables left out
   * are this instance's own records, short-lived secrets and counters, or derived data.
   */
  backup: boolean;
  /** A table only PostgreSQL has (derived data its triggers keep); absent: both databases. */
  only?: 'postgres';
}

/**
 * Every table of `Database`, registered once, parents first: a backup inserts its tables in this
 * order and deletes them in reverse. A table added to `Database` fails the type-check until it is
 * here; test/table-registry.test.ts checks this list against each database's own tables and
 * foreign keys.
 */
export const TABLES = {
  users: { scopes: ['users'], backup: true },
  // Sessions and API keys: `auth`. Sessions are not backed up (decision 018).
  sessions: { scopes: ['auth'], backup: false },
  api_keys: { scopes: ['auth'], backup: true },
  system_settings: { scopes: ['settings'], backup: true },
  // Who may read a project, and its key: the project's access answers too.
  projects: { scopes: 'project-access', backup: true },
  // A project's own rows: the project named by the transaction.
  columns: { scopes: 'project', backup: true },
  project_members: { scopes: 'project-access', backup: true },
  labels: { scopes: 'project', backup: true },
  sprints: { scopes: 'project', backup: true },
  sprint_settings: { scopes: 'project', backup: true },
  tickets: { scopes: 'project', backup: true },
  ticket_labels: { scopes: 'project', backup: true },
  ticket_watchers: { scopes: 'project', backup: true },
  ticket_links: { scopes: 'project', backup: true },
  comments: { scopes: 'project', backup: true },
  attachments: { scopes: 'project', backup: true },
  // Files uploaded outside tickets: read by no cached answer.
  uploads: { scopes: [], backup: true },
  ticket_history: { scopes: 'project', backup: true },
  sprint_ticket_history: { scopes: 'project', backup: true },
  notifications: { scopes: [], backup: true },
  notification_settings: { scopes: [], backup: true },
  saved_views: { scopes: [], backup: true },
  // A provider account linked to a user: backed up (decision 043), shown by no cached answer.
  oidc_identities: { scopes: [], backup: true },
  // Where imported tickets came from: no cached answer shows it.
  import_sources: { scopes: [], backup: true },
  ticket_templates: { scopes: 'project', backup: true },
  // The trash (decision 048): read by no cached answer; a restore writes `tickets`, which says so.
  trashed_tickets: { scopes: [], backup: true },
  trashed_files: { scopes: [], backup: true },

  // Not in a backup. The event log and the audit log are this instance's own record (decisions 018
  // and 035); the mail outbox's messages would be sent again, and a restored instance makes its
  // own signing keys (decision 037).
  events: { scopes: [], backup: false },
  audit_log: { scopes: [], backup: false },
  mail_outbox: { scopes: [], backup: false },
  signing_keys: { scopes: [], backup: false },
  // Short-lived counters (decision 042): a restore starts them afresh.
  rate_limits: { scopes: [], backup: false },
  // This database's recent writes, for the instances serving it (decision 047).
  cache_changes: { scopes: [], backup: false },
  // OAuth clients and their grants, codes and tokens: a restore signs every client out, as it
  // does sessions (decision 044).
  oauth_clients: { scopes: [], backup: false },
  oauth_grants: { scopes: ['auth'], backup: false },
  oauth_codes: { scopes: [], backup: false },
  oauth_tokens: { scopes: ['auth'], backup: false },
  // Short-lived secrets, like sessions (decision 043).
  password_resets: { scopes: [], backup: false },
  oidc_logins: { scopes: [], backup: false },
  // A restored copy must not post to the original's receivers (decision 040).
  webhooks: { scopes: [], backup: false },
  webhook_deliveries: { scopes: [], backup: false },
  // Derived from the tickets by PostgreSQL's triggers (migrations 089, 090 and 091), which alone
  // write them.
  column_ticket_counts: { scopes: 'project', backup: false, only: 'postgres' },
  column_rank_blocks: { scopes: 'project', backup: false, only: 'postgres' },
  column_rank_blocks_unsettled: { scopes: 'project', backup: false, only: 'postgres' },
  ticket_label_columns: { scopes: 'project', backup: false, only: 'postgres' },
} as const satisfies Record<keyof Database, TableEntry>;

export type TableName = keyof typeof TABLES;

/** The tables a backup holds (`backup: true`). */
export type BackedUpTable = {
  [K in TableName]: (typeof TABLES)[K]['backup'] extends true ? K : never;
}[TableName];

/**
 * The full-text index's tables (migration 040 and its successors), outside `Database`: its
 * database's triggers write them inside every writing transaction, no statement names them, and
 * a backup leaves them out (restoring the tickets rebuilds them). SQLite's FTS5 table also has its
 * own shadow tables, `ticket_fts_*`.
 */
export const SEARCH_INDEX_TABLES = {
  sqlite: ['ticket_fts', 'ticket_search_ids', 'ticket_search_labels'],
  postgres: ['ticket_search'],
} as const;
