import type { Generated } from 'kysely';
import type { Priority, TicketType } from '../shared/tickets.js';
import type {
  OAuthClientsTable,
  OAuthCodesTable,
  OAuthGrantsTable,
  OAuthTokensTable,
  OidcIdentitiesTable,
  OidcLoginsTable,
  PasswordResetsTable,
  WebhookDeliveriesTable,
  WebhooksTable,
} from './types-access.js';

// The sign-in and outside-system tables, kept in their own file, are exported from here too.
export type * from './types-access.js';

/**
 * Table types. Portable column conventions (docs/decisions/002-portable-schema.md):
 * timestamps are ISO 8601 UTC strings, booleans are integers 0/1, lists are JSON text.
 */
export interface UsersTable {
  id: string;
  username: string;
  email: string | null;
  name: string | null;
  password_hash: string;
  avatar: string | null;
  is_system_admin: number;
  is_active: number;
  must_change_password: number;
  created_at: string;
  updated_at: string;
  /** TOTP secret (base32): pending while two_factor_enabled is 0 (migration 013). */
  two_factor_secret: string | null;
  two_factor_enabled: number;
  /** The last TOTP time step accepted: a code is accepted once. */
  two_factor_last_step: number | null;
  /** JSON list of SHA-256 hashes of the unused recovery codes. */
  two_factor_recovery: string | null;
}

export interface SessionsTable {
  id: string;
  user_id: string;
  token_hash: string;
  created_at: string;
  expires_at: string;
  last_used_at: string | null;
  user_agent: string | null;
  address: string | null;
}

export interface ApiKeysTable {
  id: string;
  user_id: string;
  name: string;
  /** `read` or `write`. */
  scope: string;
  key_hash: string;
  created_at: string;
  last_used_at: string | null;
  expires_at: string | null;
}

export interface SystemSettingsTable {
  id: string;
  max_image_size: number;
  max_video_size: number;
  max_document_size: number;
  max_attachments_per_ticket: number;
  allowed_image_types: string;
  allowed_video_types: string;
  allowed_document_types: string;
  updated_at: string;
  /** 1: every user must turn on two-factor sign-in before using the API (migration 014). */
  require_two_factor: number;
}

export interface ProjectsTable {
  id: string;
  name: string;
  key: string;
  description: string | null;
  color: string;
  ticket_counter: number;
  sprint_counter: number;
  created_at: string;
  updated_at: string;
  /** 1: every member may delete any ticket; 0: the reporter or an admin/owner (migration 072). */
  members_may_delete?: number;
}

export interface ColumnsTable {
  id: string;
  project_id: string;
  name: string;
  /** Fractional rank on the board (docs/decisions/033-board-ranks.md); `order` is computed from it. */
  rank: string;
  created_at: string;
}

/**
 * PostgreSQL only (migration 089): how many tickets a column holds, kept by triggers; a column
 * without a row holds none. Derived: not in backups.
 */
export interface ColumnTicketCountsTable {
  column_id: string;
  n: number;
}

/** PostgreSQL (migration 090): the `n` tickets of a column ranked from `lo` to the next block's `lo`. */
export interface ColumnRankBlocksTable {
  column_id: string;
  lo: string;
  n: number;
}

/** PostgreSQL (migration 090): blocks to bring within bounds at the end of the statement; empty between statements. */
export interface ColumnRankBlocksUnsettledTable {
  column_id: string;
  lo: string;
}

/**
 * PostgreSQL only (migration 091): each label of a ticket with the ticket's column, kept by
 * triggers, for search counts by label and column. Derived: not in backups.
 */
export interface TicketLabelColumnsTable {
  ticket_id: string;
  label_id: string;
  column_id: string;
}

export interface ProjectMembersTable {
  id: string;
  project_id: string;
  user_id: string;
  role: 'owner' | 'admin' | 'member';
  created_at: string;
}

export interface LabelsTable {
  id: string;
  project_id: string;
  name: string;
  color: string;
  created_at: string;
}

export interface SprintsTable {
  id: string;
  project_id: string;
  name: string;
  goal: string | null;
  start_date: string | null;
  end_date: string | null;
  status: 'planning' | 'active' | 'completed';
  budget: number | null;
  /** The instant the sprint was started (migration 002); null while planning. */
  started_at: string | null;
  completed_at: string | null;
  created_at: string;
  updated_at: string;
}

export interface SprintSettingsTable {
  project_id: string;
  default_sprint_duration: number;
  auto_carry_over: number;
  done_column_ids: string;
}

export interface TicketsTable {
  id: string;
  project_id: string;
  number: number;
  title: string;
  description: string | null;
  type: TicketType;
  priority: Priority;
  column_id: string;
  /** Fractional rank in the column (docs/decisions/033-board-ranks.md); `order` is computed from it. */
  rank: string;
  assignee_id: string | null;
  reporter_id: string | null;
  sprint_id: string | null;
  parent_id: string | null;
  story_points: number | null;
  estimate: string | null;
  start_date: string | null;
  due_date: string | null;
  environment: string | null;
  affected_version: string | null;
  fix_version: string | null;
  is_carried_over: number;
  carried_from_sprint_id: string | null;
  carried_over_count: number;
  created_at: string;
  updated_at: string;
}

export interface TicketLabelsTable {
  ticket_id: string;
  label_id: string;
}

export interface TicketWatchersTable {
  ticket_id: string;
  user_id: string;
}

/** Stored once in canonical direction (blocks, duplicates, relates_to); read with the inverse from the other side. */
export interface TicketLinksTable {
  id: string;
  source_ticket_id: string;
  target_ticket_id: string;
  link_type: 'blocks' | 'duplicates' | 'relates_to';
  created_by: string | null;
  created_at: string;
}

export interface CommentsTable {
  id: string;
  ticket_id: string;
  author_id: string | null;
  content: string;
  created_at: string;
  updated_at: string;
}

export interface AttachmentsTable {
  id: string;
  ticket_id: string;
  uploader_id: string | null;
  filename: string;
  mime_type: string;
  size: number;
  stored_name: string;
  created_at: string;
}

/** Files uploaded through POST /api/upload (not tied to a ticket). */
export interface UploadsTable {
  id: string;
  uploader_id: string | null;
  filename: string;
  mime_type: string;
  size: number;
  stored_name: string;
  created_at: string;
}

export interface TicketHistoryTable {
  id: string;
  ticket_id: string;
  field: string;
  old_value: string | null;
  new_value: string | null;
  changed_by: string | null;
  changed_at: string;
}

export interface SprintTicketHistoryTable {
  id: string;
  sprint_id: string;
  ticket_id: string;
  entry_type: 'added' | 'carried_over';
  entered_at: string;
  exit_status: 'completed' | 'carried_over' | 'removed' | null;
  exited_at: string | null;
  story_points: number | null;
}

/** The event log: written in the same transaction as the change; id is the SSE id. */
export interface EventsTable {
  id: Generated<number>;
  scope: 'project' | 'projects' | 'user' | 'all';
  project_id: string | null;
  user_id: string | null;
  type: string;
  data: string;
  tab_id: string | null;
  /** JSON array of user ids who may see it when it cannot be derived later (project.deleted); else null. */
  audience: string | null;
  created_at: string;
}

/** One notification of one user (docs/notifications.md); folded changes bump fold_count and updated_at. */
export interface NotificationsTable {
  id: string;
  user_id: string;
  type: string;
  actor_id: string | null;
  project_id: string;
  ticket_id: string | null;
  excerpt: string;
  fold_count: number;
  mail: 'none' | 'digest' | 'queued';
  created_at: string;
  updated_at: string;
  read_at: string | null;
}

export interface NotificationSettingsTable {
  user_id: string;
  email: 'off' | 'instant' | 'digest';
  digest_minutes: number;
  /** JSON object {<type>: boolean}. */
  types: string;
  updated_at: string;
}

/** The durable mail outbox: written in the change's transaction, claimed and sent by src/mail. */
export interface MailOutboxTable {
  id: string;
  user_id: string;
  project_id: string | null;
  /** `password_reset`: a forgotten-password link (no project, no unsubscribe link). */
  kind: 'instant' | 'digest' | 'password_reset';
  to_address: string;
  subject: string;
  text_body: string;
  html_body: string;
  unsubscribe_url: string;
  status: 'pending' | 'sent' | 'failed';
  attempts: number;
  next_attempt_at: string;
  claimed_by: string | null;
  claimed_until: string | null;
  last_error: string | null;
  created_at: string;
  sent_at: string | null;
}

/**
 * Notifications still to make for a change that committed (migration 120): claimed, run and
 * deleted in one transaction by a worker of any instance (src/domain/notifications/jobs.ts).
 */
export interface NotificationJobsTable {
  id: string;
  /** `comment`: a new comment's mentioned, reporter, assignee and watchers. */
  kind: 'comment';
  project_id: string;
  ticket_id: string | null;
  actor_id: string | null;
  /** JSON object text. */
  data: string;
  status: 'pending' | 'failed';
  attempts: number;
  next_attempt_at: string;
  last_error: string | null;
  created_at: string;
}

/** Server-generated secrets shared by every instance (the unsubscribe-link key). */
export interface SigningKeysTable {
  name: string;
  secret: string;
  created_at: string;
}

/** A saved search (migration 041): private to its author, or shared with its project's members. */
export interface SavedViewsTable {
  id: string;
  author_id: string;
  project_id: string | null;
  name: string;
  query: string;
  shared: number;
  layout: 'list' | 'board';
  /** JSON array of column names. */
  columns: string;
  group_by: string | null;
  created_at: string;
  updated_at: string;
}

/** Where an imported ticket came from (migration 050, docs/import.md): makes a re-run find it. */
export interface ImportSourcesTable {
  project_id: string;
  /** The source family: jira, github, linear, trello or csv. */
  source: string;
  source_id: string;
  ticket_id: string;
  /** The ticket's key or number in the source (ABC-12, #34), and its address there. */
  source_key: string | null;
  source_url: string | null;
  created_at: string;
}

export interface Database {
  users: UsersTable;
  sessions: SessionsTable;
  api_keys: ApiKeysTable;
  system_settings: SystemSettingsTable;
  projects: ProjectsTable;
  columns: ColumnsTable;
  column_ticket_counts: ColumnTicketCountsTable;
  column_rank_blocks: ColumnRankBlocksTable;
  column_rank_blocks_unsettled: ColumnRankBlocksUnsettledTable;
  project_members: ProjectMembersTable;
  labels: LabelsTable;
  sprints: SprintsTable;
  sprint_settings: SprintSettingsTable;
  tickets: TicketsTable;
  ticket_labels: TicketLabelsTable;
  ticket_label_columns: TicketLabelColumnsTable;
  ticket_watchers: TicketWatchersTable;
  ticket_links: TicketLinksTable;
  comments: CommentsTable;
  attachments: AttachmentsTable;
  uploads: UploadsTable;
  ticket_history: TicketHistoryTable;
  sprint_ticket_history: SprintTicketHistoryTable;
  events: EventsTable;
  audit_log: AuditLogTable;
  oauth_clients: OAuthClientsTable;
  oauth_grants: OAuthGrantsTable;
  oauth_codes: OAuthCodesTable;
  oauth_tokens: OAuthTokensTable;
  notifications: NotificationsTable;
  notification_settings: NotificationSettingsTable;
  mail_outbox: MailOutboxTable;
  notification_jobs: NotificationJobsTable;
  signing_keys: SigningKeysTable;
  saved_views: SavedViewsTable;
  rate_limits: RateLimitsTable;
  cache_changes: CacheChangesTable;
  trashed_tickets: TrashedTicketsTable;
  trashed_files: TrashedFilesTable;
  password_resets: PasswordResetsTable;
  oidc_identities: OidcIdentitiesTable;
  oidc_logins: OidcLoginsTable;
  webhooks: WebhooksTable;
  webhook_deliveries: WebhookDeliveriesTable;
  import_sources: ImportSourcesTable;
  ticket_templates: TicketTemplatesTable;
}

/** A ticket template of a project (migration 082, decision 050): the fields it presets, null = none. */
export interface TicketTemplatesTable {
  id: string;
  project_id: string;
  name: string;
  /** What the template is for (shown in pickers). */
  about: string | null;
  type: string | null;
  /** The title it starts with, e.g. "Bug: ". */
  title: string | null;
  description: string | null;
  priority: string | null;
  /** JSON array of label ids. */
  label_ids: string;
  story_points: number | null;
  assignee_id: string | null;
  /** 0-based place in the project's list. */
  position: number;
  is_default: number;
  created_by: string | null;
  created_at: string;
  updated_at: string;
  version: number;
}

/** A deleted ticket kept for 30 days (migration 080, decision 048): its rows as one JSON snapshot. */
export interface TrashedTicketsTable {
  id: string;
  project_id: string;
  ticket_id: string;
  number: number;
  title: string;
  type: string;
  deleted_by: string | null;
  deleted_at: string;
  /** JSON of `TrashSnapshot` (src/domain/trash-snapshot.ts). */
  snapshot: string;
}

/** An attachment file kept in the store for a trashed ticket (migration 080). */
export interface TrashedFilesTable {
  stored_name: string;
  trash_id: string;
}

/** The read cache's change log (migration 076, decision 047): PostgreSQL only, kept ten minutes. */
export interface CacheChangesTable {
  id: Generated<number>;
  origin: string;
  /** Space-separated scopes (src/db/changes.ts). */
  scopes: string;
  created_at: string;
}

/** The audit log (migration 012): appended in the change's transaction, never updated. */
export interface AuditLogTable {
  id: string;
  at: string;
  actor_id: string | null;
  actor_name: string | null;
  action: string;
  target_type: string | null;
  target_id: string | null;
  address: string | null;
  /** JSON object text, or null. */
  details: string | null;
}

/** Tables in dependency order (parents first): used by backup, restore and wipe. */
export const TABLES_IN_ORDER = [
  'users',
  'sessions',
  'api_keys',
  'system_settings',
  'projects',
  'columns',
  'project_members',
  'labels',
  'sprints',
  'sprint_settings',
  'tickets',
  'ticket_labels',
  'ticket_watchers',
  'ticket_links',
  'comments',
  'attachments',
  'uploads',
  'ticket_history',
  'sprint_ticket_history',
  'events',
  'audit_log',
  'notifications',
  'notification_settings',
  'mail_outbox',
  'notification_jobs',
  'signing_keys',
  'saved_views',
  'cache_changes',
  'oauth_clients',
  'oauth_grants',
  'oauth_codes',
  'oauth_tokens',
  'password_resets',
  'oidc_identities',
  'oidc_logins',
  'webhooks',
  'webhook_deliveries',
  'import_sources',
  'ticket_templates',
] as const satisfies readonly (keyof Database)[];

/** A fixed-window rate-limit counter (migration 063), shared by every instance on the database. */
export interface RateLimitsTable {
  key: string;
  count: number;
  /** Milliseconds since the epoch. */
  reset_at: number;
}
