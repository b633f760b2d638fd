import { type Kysely, sql } from 'kysely';

/**
 * What a write changed, as the read cache needs to know it (decision 047): every write statement
 * is classified here by the table it writes, and a transaction's changes are announced when it
 * commits. A change is a set of *scopes*:
 *
 * - `project:<id>`: anything of one project (its tickets, columns, labels, sprints, comments…).
 *   A write to a project's table counts for a project only when its transaction said which one
 *   (`touchProjects`); otherwise it counts as a change of everything.
 * - `access:<id>`: the project's row and its members (who may read it): only when said, as above.
 * - `projects` (the project directory: keys and existence), `users`, `auth` (sessions, API keys),
 *   `settings` (system settings): written tables say so themselves.
 * - everything (`ALL`): a table this file does not know, DDL, a project table written without a
 *   project, or a change another process made that cannot be told more precisely.
 *
 * So a careless writer empties more of the cache, never less: the classification is by the SQL
 * that actually runs, and the table list below is checked against the schema by a test.
 */

/** Every scope at once. */
export const ALL = '*';
/** Any `project:` scope (a cached value that shows several projects' tickets). */
export const ANY_PROJECT = 'project:*';

type TableClass = 'project' | 'project-access' | readonly string[];

/**
 * Each table of the schema and what writing it changes for cached reads. A table missing here
 * changes everything (and fails test/read-cache-scopes.test.ts, which lists the schema's tables).
 */
export const TABLE_SCOPES: Record<string, TableClass> = {
  // A project's own rows: the project named by the transaction.
  tickets: 'project',
  columns: 'project',
  labels: 'project',
  ticket_labels: 'project',
  ticket_watchers: 'project',
  ticket_links: 'project',
  comments: 'project',
  attachments: 'project',
  ticket_history: 'project',
  sprints: 'project',
  sprint_settings: 'project',
  sprint_ticket_history: 'project',
  ticket_templates: 'project',
  // Who may read a project, and its key: the project's access answers too.
  projects: 'project-access',
  project_members: 'project-access',
  // Shared by every project's answers.
  users: ['users'],
  sessions: ['auth'],
  api_keys: ['auth'],
  oauth_grants: ['auth'],
  oauth_tokens: ['auth'],
  oauth_clients: [],
  // Where imported tickets came from: no cached answer shows it.
  import_sources: [],
  // The webhook outbox: no cached answer shows it.
  webhooks: [],
  webhook_deliveries: [],
  password_resets: [],
  oidc_logins: [],
  // A provider account linked to a user: no cached answer shows it.
  oidc_identities: [],
  oauth_codes: [],
  system_settings: ['settings'],
  // Read by no cached answer.
  events: [],
  audit_log: [],
  notifications: [],
  notification_settings: [],
  mail_outbox: [],
  notification_jobs: [],
  signing_keys: [],
  saved_views: [],
  uploads: [],
  cache_changes: [],
  // The trash (decision 048): read by no cached answer; a restore writes `tickets`, which says so.
  trashed_tickets: [],
  trashed_files: [],
  rate_limits: [],
  kysely_migration: [ALL],
  kysely_migration_lock: [ALL],
};

/** The comment that names a statement's (or, alone, its transaction's) scopes: see `scopesMarker`. */
const MARKER = /\/\*docket:scopes([^*]*)\*\/\s*$/;
const WRITE_TARGET = /^\s*(?:insert\s+into|update|delete\s+from)\s+"?([A-Za-z_][A-Za-z0-9_]*)"?/i;
const READ_ONLY = /^\s*select\b/i;
/** A statement with common table expressions: `with … as (…) …`, whose parts may write. */
const WITH = /^\s*with\b/i;
/** Every write in a statement: its data-modifying CTEs and its main statement. */
const WRITES_IN = /\b(?:insert\s+into|update|delete\s+from)\s+"?([A-Za-z_][A-Za-z0-9_]*)"?/gi;

/**
 * A comment to end a statement with, or to run alone inside a transaction: the writes it covers
 * change these scopes only. Alone, `project:<id>` names the project of every project-table write
 * of the transaction; at the end of one statement outside a transaction, the scopes are that
 * statement's whole change (`[]`: nothing any cached read shows, such as a last-used time).
 */
export function scopesMarker(scopes: readonly string[]): string {
  for (const s of scopes) if (!/^[a-z]+:[0-9a-z_-]+$|^[a-z]+$/.test(s)) throw new Error(`bad scope ${s}`);
  return `/*docket:scopes ${scopes.join(' ')}*/`;
}

export type Statement =
  | { kind: 'read' }
  | { kind: 'begin' }
  | { kind: 'commit' }
  | { kind: 'rollback' }
  /** A marker run alone: names scopes, runs nothing. */
  | { kind: 'marker'; scopes: string[] }
  /** The tables it writes (null: one it could not tell). */
  | { kind: 'write'; tables: (string | null)[]; scopes: string[] | null };

export function classify(sql: string): Statement {
  if (READ_ONLY.test(sql)) return { kind: 'read' };
  const marker = MARKER.exec(sql);
  const scopes = marker ? marker[1].split(/\s+/).filter(Boolean) : null;
  if (marker && marker.index === 0) return { kind: 'marker', scopes: scopes ?? [] };
  const head = sql.trimStart().slice(0, 20).toLowerCase();
  // Savepoints neither commit nor undo the transaction's writes as far as the cache cares: a write
  // rolled back to a savepoint still counts (it only empties more).
  if (head.startsWith('savepoint') || head.startsWith('release') || head.startsWith('rollback to'))
    return { kind: 'read' };
  if (head.startsWith('begin') || head.startsWith('start transaction')) return { kind: 'begin' };
  if (head.startsWith('commit')) return { kind: 'commit' };
  if (head.startsWith('rollback')) return { kind: 'rollback' };
  if (WITH.test(sql)) {
    // Its writes are found anywhere in it (our SQL carries values as parameters, never in its
    // text); none: a read. One the list does not know still counts as everything.
    const tables = [...sql.matchAll(WRITES_IN)].map((m) => m[1].toLowerCase());
    if (tables.length === 0) return { kind: 'read' };
    return { kind: 'write', tables, scopes };
  }
  const target = WRITE_TARGET.exec(sql);
  return { kind: 'write', tables: [target ? target[1].toLowerCase() : null], scopes };
}

/**
 * The changes of one connection's current transaction (or of one statement outside any): the
 * scopes its writes changed, given the projects it named.
 */
export class PendingChanges {
  inTransaction = false;
  readonly #named = new Set<string>();
  readonly #changed = new Set<string>();
  #projectWrite = false;
  #accessWrite = false;

  begin() {
    this.reset();
    this.inTransaction = true;
  }

  /** Names the transaction's projects; outside a transaction a marker names nothing. */
  name(scopes: readonly string[]) {
    if (!this.inTransaction) return;
    for (const s of scopes) this.#named.add(s);
  }

  /** Counts one write statement. */
  write(s: Extract<Statement, { kind: 'write' }>) {
    if (s.scopes && !this.inTransaction) {
      // A statement that names its own change.
      for (const x of s.scopes) this.#changed.add(x);
      return;
    }
    for (const table of s.tables) {
      const cls = table === null ? undefined : TABLE_SCOPES[table];
      if (cls === undefined) this.#changed.add(ALL);
      else if (cls === 'project') this.#projectWrite = true;
      else if (cls === 'project-access') {
        this.#projectWrite = true;
        this.#accessWrite = true;
        this.#changed.add('projects');
      } else for (const x of cls) this.#changed.add(x);
    }
  }

  /** What the writes so far changed; empty when nothing any cached read shows. */
  scopes(): string[] {
    const out = new Set(this.#changed);
    if (this.#projectWrite) {
      const projects = [...this.#named].filter((s) => s.startsWith('project:'));
      if (projects.length === 0) out.add(ALL);
      for (const p of projects) {
        out.add(p);
        if (this.#accessWrite) out.add(`access:${p.slice('project:'.length)}`);
      }
    }
    return out.has(ALL) ? [ALL] : [...out];
  }

  reset() {
    this.inTransaction = false;
    this.#named.clear();
    this.#changed.clear();
    this.#projectWrite = false;
    this.#accessWrite = false;
  }
}

/**
 * When each scope last changed, as a sequence number: a value computed at sequence `n` is still
 * true while none of the scopes it depends on changed after `n`.
 */
export class ChangeTracker {
  #seq = 0;
  #all = 0;
  #anyProject = 0;
  readonly #last = new Map<string, number>();

  /** The current sequence number: take it before computing a value. */
  get seq() {
    return this.#seq;
  }

  changed(scopes: readonly string[]) {
    if (scopes.length === 0) return;
    const at = ++this.#seq;
    for (const s of scopes) {
      if (s === ALL) {
        this.#all = at;
        continue;
      }
      this.#last.set(s, at);
      if (s.startsWith('project:')) this.#anyProject = at;
    }
  }

  /** Whether anything a value depending on `scopes` shows changed after `since`. */
  changedSince(scopes: readonly string[], since: number): boolean {
    if (this.#all > since) return true;
    for (const s of scopes) {
      const at = s === ANY_PROJECT ? this.#anyProject : (this.#last.get(s) ?? 0);
      if (at > since) return true;
    }
    return false;
  }
}

/**
 * Names the projects whose tables the calling transaction writes: its project-table writes then
 * change those projects' cached reads only (instead of everything). Name every project written.
 */
export async function nameProjects(tx: Kysely<any>, projectIds: readonly string[]): Promise<void> {
  await sql.raw(scopesMarker(projectIds.map((id) => `project:${id}`))).execute(tx);
}
