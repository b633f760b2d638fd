import { z } from 'zod';
import { isValidRank, rankForIndex } from '../../db/ranks.js';
import type { Database } from '../../db/types.js';
import { FILE_KINDS, type FileKind, isSafeStoredName } from '../../files/storage.js';

/**
 * The backup format: `{format: "docket-backup", version, exportedAt, data: {<table>: [rows]},
 * files: {avatars|attachments|files: {<stored name>: <base64>}}}`. Rows are the database rows as
 * they are stored (snake_case columns, 0/1 booleans, JSON text lists), password hashes included.
 * Sessions and the event log are not part of a backup (docs/decisions/018-backup-restore-wipe.md),
 * nor is the audit log: it is this instance's own record, which a restore must not rewrite; it is
 * kept through restores and wipes (docs/decisions/035-security.md).
 * Nor are the mail outbox (messages about the backed-up state that were, or were about to be, sent:
 * restoring them would send them again) and the signing keys (a restored instance makes its own; old
 * unsubscribe links then need a sign-in instead) (docs/decisions/037-notifications.md).
 * Nor is the read cache's change log, which describes this database's recent writes to the
 * instances serving it (docs/decisions/047-scoped-read-cache.md).
 * Nor are the OAuth clients, grants, codes and tokens: like sessions, a restore or a wipe signs
 * every OAuth client out (docs/decisions/044-oauth-for-mcp.md).
 * Nor are forgotten-password links and single sign-ons under way (short-lived secrets, like
 * sessions); links to single sign-on accounts are (docs/decisions/043-sso-and-password-reset.md).
 * Nor are webhooks and their deliveries: a restored copy must not start posting to the receivers
 * of the instance it was copied from (docs/decisions/040-webhooks.md).
 */
export const BACKUP_FORMAT = 'docket-backup';
export const BACKUP_VERSION = 2;

export type BackupTable = Exclude<
  keyof Database,
  | 'sessions'
  | 'events'
  | 'audit_log'
  | 'mail_outbox'
  // Notifications still to make (migration 120): like the mail outbox, not carried to a copy.
  | 'notification_jobs'
  | 'signing_keys'
  // Short-lived counters (docs/decisions/042-several-instances.md): a restore starts them afresh.
  | 'rate_limits'
  // This database's recent writes, for the instances serving it (decision 047).
  | 'cache_changes'
  | 'oauth_clients'
  | 'oauth_grants'
  | 'oauth_codes'
  | 'oauth_tokens'
  // Short-lived secrets, like sessions (decision 043).
  | 'password_resets'
  | 'oidc_logins'
  // A restored copy must not post to the original's receivers (decision 040).
  | 'webhooks'
  | 'webhook_deliveries'
  // Derived from the tickets by triggers (migrations 089, 090 and 091, PostgreSQL only; isDerivedTable).
  | 'column_ticket_counts'
  | 'column_rank_blocks'
  | 'column_rank_blocks_unsettled'
  | 'ticket_label_columns'
>;

/** The tables in a backup, parents first (the insert order; deletes run in reverse). */
export const BACKUP_TABLES = [
  'users',
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
  'notifications',
  'notification_settings',
  'saved_views',
  'oidc_identities',
  'import_sources',
  'ticket_templates',
  // The trash (decision 048): deleted tickets kept 30 days, with their files.
  'trashed_tickets',
  'trashed_files',
] as const satisfies readonly BackupTable[];

/**
 * Tables a backup leaves out: the full-text index of tickets (migration 040) is derived from
 * tickets and comments, and the database's triggers rebuild it as a restore inserts them.
 */
export const isDerivedTable = (name: string) =>
  name === 'ticket_search' ||
  name === 'ticket_search_ids' ||
  name === 'ticket_search_labels' ||
  name === 'column_ticket_counts' ||
  name === 'ticket_label_columns' ||
  name.startsWith('column_rank_blocks') ||
  name.startsWith('ticket_fts');

const id = z.string().min(1).max(200);
const text = (max = 1_000_000) => z.string().max(max);
const stamp = z.string().min(1).max(64);
/** A board rank (docs/decisions/033-board-ranks.md): a key the rank scheme can place items around. */
const rank = z.string().max(200).refine(isValidRank, 'Not a valid board rank');
const optStamp = stamp.nullable();
const flag = z.union([z.literal(0), z.literal(1)]);
const int = z.number().int();
const count = z.number().int().nonnegative();
const jsonStringList = z.string().refine((v) => {
  try {
    const parsed = JSON.parse(v);
    return Array.isArray(parsed) && parsed.every((x) => typeof x === 'string');
  } catch {
    return false;
  }
}, 'Must be a JSON array of strings');

/** A trash snapshot (src/domain/trash-snapshot.ts): JSON of an object with its ticket row. */
function isTrashSnapshot(v: string): boolean {
  try {
    const parsed = JSON.parse(v);
    return parsed?.version === 1 && typeof parsed.ticket?.id === 'string' && Array.isArray(parsed.comments);
  } catch {
    return false;
  }
}

/** One schema per table: every column, nothing else. */
export const ROW_SCHEMAS = {
  users: z.strictObject({
    id,
    username: text(100).min(1),
    email: text(320).nullable(),
    name: text(1000).nullable(),
    password_hash: text(1000).min(1),
    avatar: text(200).nullable(),
    is_system_admin: flag,
    is_active: flag,
    must_change_password: flag,
    created_at: stamp,
    updated_at: stamp,
    // Two-factor sign-in (migration 013): backups made before read as off.
    two_factor_secret: text(200).nullable().default(null),
    two_factor_enabled: flag.default(0),
    two_factor_last_step: z.number().int().nonnegative().nullable().default(null),
    two_factor_recovery: text(10_000).nullable().default(null),
  }),
  api_keys: z.strictObject({
    id,
    user_id: id,
    // Backups made before scoped keys (migration 011) hold one write key per user, named MCP.
    name: text(100).min(1).default('MCP'),
    scope: z.enum(['read', 'write']).default('write'),
    key_hash: text(1000).min(1),
    created_at: stamp,
    last_used_at: optStamp,
    expires_at: optStamp.default(null),
  }),
  system_settings: z.strictObject({
    id,
    max_image_size: count,
    max_video_size: count,
    max_document_size: count,
    max_attachments_per_ticket: count,
    allowed_image_types: jsonStringList,
    allowed_video_types: jsonStringList,
    allowed_document_types: jsonStringList,
    updated_at: stamp,
    require_two_factor: flag.default(0),
  }),
  projects: z.strictObject({
    id,
    name: text(1000).min(1),
    key: text(50).min(1),
    description: text().nullable(),
    color: text(50),
    ticket_counter: count,
    sprint_counter: count,
    created_at: stamp,
    updated_at: stamp,
    members_may_delete: flag.default(0),
  }),
  columns: z.strictObject({
    id,
    project_id: id,
    name: text(1000).min(1),
    rank,
    created_at: stamp,
  }),
  project_members: z.strictObject({
    id,
    project_id: id,
    user_id: id,
    role: z.enum(['owner', 'admin', 'member']),
    created_at: stamp,
  }),
  labels: z.strictObject({ id, project_id: id, name: text(1000).min(1), color: text(50), created_at: stamp }),
  sprints: z.strictObject({
    id,
    project_id: id,
    name: text(1000).min(1),
    goal: text().nullable(),
    start_date: optStamp,
    end_date: optStamp,
    status: z.enum(['planning', 'active', 'completed']),
    budget: z.number().nullable(),
    started_at: optStamp,
    completed_at: optStamp,
    created_at: stamp,
    updated_at: stamp,
  }),
  sprint_settings: z.strictObject({
    project_id: id,
    default_sprint_duration: count,
    auto_carry_over: flag,
    done_column_ids: jsonStringList,
  }),
  tickets: z.strictObject({
    id,
    project_id: id,
    number: count,
    title: text(10_000).min(1),
    description: text().nullable(),
    type: text(50).min(1),
    priority: text(50).min(1),
    column_id: id,
    rank,
    assignee_id: id.nullable(),
    reporter_id: id.nullable(),
    sprint_id: id.nullable(),
    parent_id: id.nullable(),
    story_points: int.nullable(),
    estimate: text(1000).nullable(),
    start_date: optStamp,
    due_date: optStamp,
    environment: text(10_000).nullable(),
    affected_version: text(1000).nullable(),
    fix_version: text(1000).nullable(),
    is_carried_over: flag,
    carried_from_sprint_id: id.nullable(),
    carried_over_count: count,
    created_at: stamp,
    updated_at: stamp,
  }),
  ticket_labels: z.strictObject({ ticket_id: id, label_id: id }),
  ticket_watchers: z.strictObject({ ticket_id: id, user_id: id }),
  ticket_links: z.strictObject({
    id,
    source_ticket_id: id,
    target_ticket_id: id,
    link_type: z.enum(['blocks', 'duplicates', 'relates_to']),
    created_by: id.nullable(),
    created_at: stamp,
  }),
  comments: z.strictObject({
    id,
    ticket_id: id,
    author_id: id.nullable(),
    content: text(),
    created_at: stamp,
    updated_at: stamp,
  }),
  attachments: z.strictObject({
    id,
    ticket_id: id,
    uploader_id: id.nullable(),
    filename: text(1000).min(1),
    mime_type: text(255).min(1),
    size: count,
    stored_name: text(200).refine(isSafeStoredName, 'Not a valid stored file name'),
    created_at: stamp,
  }),
  uploads: z.strictObject({
    id,
    uploader_id: id.nullable(),
    filename: text(1000).min(1),
    mime_type: text(255).min(1),
    size: count,
    stored_name: text(200).refine(isSafeStoredName, 'Not a valid stored file name'),
    created_at: stamp,
  }),
  ticket_history: z.strictObject({
    id,
    ticket_id: id,
    field: text(200).min(1),
    old_value: text().nullable(),
    new_value: text().nullable(),
    changed_by: id.nullable(),
    changed_at: stamp,
  }),
  sprint_ticket_history: z.strictObject({
    id,
    sprint_id: id,
    ticket_id: id,
    entry_type: z.enum(['added', 'carried_over']),
    entered_at: stamp,
    exit_status: z.enum(['completed', 'carried_over', 'removed']).nullable(),
    exited_at: optStamp,
    story_points: int.nullable(),
  }),
  notifications: z.strictObject({
    id,
    user_id: id,
    type: text(50).min(1),
    actor_id: id.nullable(),
    project_id: id,
    ticket_id: id.nullable(),
    excerpt: text(1000),
    fold_count: count,
    mail: z.enum(['none', 'digest', 'queued']),
    created_at: stamp,
    updated_at: stamp,
    read_at: optStamp,
  }),
  notification_settings: z.strictObject({
    user_id: id,
    email: z.enum(['off', 'instant', 'digest']),
    digest_minutes: count,
    types: text(10_000),
    updated_at: stamp,
  }),
  saved_views: z.strictObject({
    id,
    author_id: id,
    project_id: id.nullable(),
    name: text(1000).min(1),
    query: text(10_000),
    shared: flag,
    layout: z.enum(['list', 'board']),
    columns: jsonStringList,
    group_by: text(100).nullable(),
    created_at: stamp,
    updated_at: stamp,
  }),
  oidc_identities: z.strictObject({
    id,
    user_id: id,
    issuer: text(2048).min(1),
    subject: text(1000).min(1),
    email: text(320).nullable(),
    created_at: stamp,
    last_login_at: optStamp,
  }),
  import_sources: z.strictObject({
    project_id: id,
    source: text(20).min(1),
    source_id: text(500).min(1),
    ticket_id: id,
    source_key: text(500).nullable(),
    source_url: text(2000).nullable(),
    created_at: stamp,
  }),
  // Since migration 082 (issue 23); backups made before have none.
  ticket_templates: z.strictObject({
    id,
    project_id: id,
    name: text(1000).min(1),
    about: text(10_000).nullable(),
    type: text(50).nullable(),
    title: text(10_000).nullable(),
    description: text().nullable(),
    priority: text(50).nullable(),
    label_ids: jsonStringList,
    story_points: int.nullable(),
    assignee_id: id.nullable(),
    position: count,
    is_default: flag,
    created_by: id.nullable(),
    created_at: stamp,
    updated_at: stamp,
    version: count,
  }),
  trashed_tickets: z.strictObject({
    id,
    project_id: id,
    ticket_id: id,
    number: count,
    title: text(10_000).min(1),
    type: text(50).min(1),
    deleted_by: id.nullable(),
    deleted_at: stamp,
    snapshot: z.string().max(200_000_000).refine(isTrashSnapshot, 'Must be the JSON of a trashed ticket'),
  }),
  trashed_files: z.strictObject({
    stored_name: text(200).refine(isSafeStoredName, 'Not a valid stored file name'),
    trash_id: id,
  }),
} satisfies Record<BackupTable, z.ZodType>;

/** The columns that identify a row: the keyset for paging on export and for duplicate checks on import. */
export const KEY_COLUMNS: Record<BackupTable, readonly string[]> = {
  users: ['id'],
  api_keys: ['id'],
  system_settings: ['id'],
  projects: ['id'],
  columns: ['id'],
  project_members: ['id'],
  labels: ['id'],
  sprints: ['id'],
  sprint_settings: ['project_id'],
  tickets: ['id'],
  ticket_labels: ['ticket_id', 'label_id'],
  ticket_watchers: ['ticket_id', 'user_id'],
  ticket_links: ['id'],
  comments: ['id'],
  attachments: ['id'],
  uploads: ['id'],
  ticket_history: ['id'],
  sprint_ticket_history: ['id'],
  notifications: ['id'],
  notification_settings: ['user_id'],
  saved_views: ['id'],
  oidc_identities: ['id'],
  import_sources: ['project_id', 'source', 'source_id'],
  ticket_templates: ['id'],
  trashed_tickets: ['id'],
  trashed_files: ['stored_name'],
};

/** References between records (the foreign keys): column -> table whose id it names. */
export const REFERENCES: Partial<Record<BackupTable, Record<string, BackupTable>>> = {
  api_keys: { user_id: 'users' },
  columns: { project_id: 'projects' },
  project_members: { project_id: 'projects', user_id: 'users' },
  labels: { project_id: 'projects' },
  sprints: { project_id: 'projects' },
  sprint_settings: { project_id: 'projects' },
  tickets: {
    project_id: 'projects',
    column_id: 'columns',
    assignee_id: 'users',
    reporter_id: 'users',
    sprint_id: 'sprints',
    parent_id: 'tickets',
    carried_from_sprint_id: 'sprints',
  },
  ticket_labels: { ticket_id: 'tickets', label_id: 'labels' },
  ticket_watchers: { ticket_id: 'tickets', user_id: 'users' },
  ticket_links: { source_ticket_id: 'tickets', target_ticket_id: 'tickets', created_by: 'users' },
  comments: { ticket_id: 'tickets', author_id: 'users' },
  attachments: { ticket_id: 'tickets', uploader_id: 'users' },
  uploads: { uploader_id: 'users' },
  ticket_history: { ticket_id: 'tickets', changed_by: 'users' },
  sprint_ticket_history: { sprint_id: 'sprints', ticket_id: 'tickets' },
  notifications: { user_id: 'users', actor_id: 'users', project_id: 'projects', ticket_id: 'tickets' },
  notification_settings: { user_id: 'users' },
  saved_views: { author_id: 'users', project_id: 'projects' },
  oidc_identities: { user_id: 'users' },
  import_sources: { project_id: 'projects', ticket_id: 'tickets' },
  ticket_templates: { project_id: 'projects', assignee_id: 'users', created_by: 'users' },
  trashed_tickets: { project_id: 'projects', deleted_by: 'users' },
  trashed_files: { trash_id: 'trashed_tickets' },
};

/** Columns naming a stored file: the file must be in the backup. */
export const FILE_REFERENCES: Partial<Record<BackupTable, { column: string; kind: FileKind }>> = {
  users: { column: 'avatar', kind: 'avatars' },
  attachments: { column: 'stored_name', kind: 'attachments' },
  uploads: { column: 'stored_name', kind: 'files' },
  trashed_files: { column: 'stored_name', kind: 'attachments' },
};

/**
 * Case-insensitive uniqueness the database enforces, checked up front so that a bad file gets a
 * clear message instead of a constraint error.
 */
export const UNIQUE_KEYS: Partial<
  Record<BackupTable, { name: string; of: (row: Record<string, unknown>) => string | null }[]>
> = {
  users: [
    { name: 'username', of: (r) => String(r.username).toLowerCase() },
    { name: 'email', of: (r) => (r.email === null ? null : String(r.email).toLowerCase()) },
  ],
  projects: [{ name: 'key', of: (r) => String(r.key) }],
  columns: [
    { name: 'name in its project', of: (r) => `${r.project_id}\u0000${String(r.name).toLowerCase()}` },
    { name: 'rank in its project', of: (r) => `${r.project_id}\u0000${r.rank}` },
  ],
  labels: [
    { name: 'name in its project', of: (r) => `${r.project_id}\u0000${String(r.name).toLowerCase()}` },
  ],
  tickets: [
    { name: 'number in its project', of: (r) => `${r.project_id}\u0000${r.number}` },
    { name: 'rank in its column', of: (r) => `${r.column_id}\u0000${r.rank}` },
  ],
  project_members: [
    { name: 'user in its project', of: (r) => `${r.project_id}\u0000${r.user_id}` },
    { name: 'owner of its project', of: (r) => (r.role === 'owner' ? String(r.project_id) : null) },
  ],
  sprints: [
    {
      name: 'active sprint of its project',
      of: (r) => (r.status === 'active' ? String(r.project_id) : null),
    },
    // Since migration 020 (issue 20); a backup taken before it with such a clash is refused by name.
    { name: 'name in its project', of: (r) => `${r.project_id}\u0000${String(r.name).toLowerCase()}` },
  ],
  api_keys: [{ name: 'key', of: (r) => String(r.key_hash) }],
  ticket_links: [
    { name: 'link', of: (r) => `${r.source_ticket_id}\u0000${r.target_ticket_id}\u0000${r.link_type}` },
  ],
  attachments: [{ name: 'stored name', of: (r) => String(r.stored_name) }],
  uploads: [{ name: 'stored name', of: (r) => String(r.stored_name) }],
  oidc_identities: [{ name: 'provider account', of: (r) => `${r.issuer}\u0000${r.subject}` }],
  ticket_templates: [
    { name: 'name in its project', of: (r) => `${r.project_id}\u0000${String(r.name).toLowerCase()}` },
    { name: 'default of its project', of: (r) => (r.is_default === 1 ? String(r.project_id) : null) },
  ],
  trashed_tickets: [{ name: 'ticket', of: (r) => String(r.ticket_id) }],
};

export const isBackupTable = (name: string): name is BackupTable =>
  (BACKUP_TABLES as readonly string[]).includes(name);
export const isFileKind = (name: string): name is FileKind =>
  (FILE_KINDS as readonly string[]).includes(name);

export type Row = Record<string, unknown>;

/**
 * Upgrades from older backup versions: UPGRADES[v] turns one row of a version-v backup into the
 * rows of version v+1 (it may rename the table, change columns, drop or split the row). Restore
 * applies the chain from the file's version up to BACKUP_VERSION.
 */
export type RowUpgrade = (table: string, row: Row) => { table: string; row: Row }[];
export const UPGRADES: Record<number, RowUpgrade> = {
  // Version 2: board positions (0..n-1) became ranks (a position's rank keeps its order), and saved
  // views came (migration 041; a version-1 file has none).
  1: (table, row) => {
    if ((table !== 'tickets' && table !== 'columns') || !('position' in row)) return [{ table, row }];
    const { position, ...rest } = row;
    const index =
      typeof position === 'number' && Number.isSafeInteger(position) && position >= 0 ? position : -1;
    return [{ table, row: { ...rest, rank: index >= 0 ? rankForIndex(index) : position } }];
  },
};

/** The oldest version that can be restored. */
export const OLDEST_VERSION = 1;

export function upgradeRow(
  fromVersion: number,
  table: string,
  row: Row,
  upgrades: Record<number, RowUpgrade> = UPGRADES,
  target = BACKUP_VERSION,
): { table: string; row: Row }[] {
  let rows = [{ table, row }];
  for (let v = fromVersion; v < target; v++) {
    const step = upgrades[v];
    if (!step) throw new Error(`No upgrade from backup version ${v}`);
    rows = rows.flatMap((r) => step(r.table, r.row));
  }
  return rows;
}
