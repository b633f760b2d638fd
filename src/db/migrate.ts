import { type Kysely, type Migration, type MigrationProvider, Migrator, sql } from 'kysely';
import type { Db } from './connect.js';
import * as m001 from './migrations/001_initial.js';
import * as m002 from './migrations/002_sprint_started_at.js';
import * as m003 from './migrations/003_board_ranks.js';
import * as m010 from './migrations/010_session_details.js';
import * as m011 from './migrations/011_scoped_api_keys.js';
import * as m012 from './migrations/012_audit_log.js';
import * as m013 from './migrations/013_two_factor.js';
import * as m014 from './migrations/014_require_two_factor.js';
import * as m020 from './migrations/020_sprint_names_unique.js';
import * as m030 from './migrations/030_notifications.js';
import * as m040 from './migrations/040_search_index.js';
import * as m041 from './migrations/041_saved_views.js';
import * as m042 from './migrations/042_search_sort_index.js';
import * as m050 from './migrations/050_import_sources.js';
import * as m051 from './migrations/051_search_fold_speed.js';
import * as m055 from './migrations/055_webhooks.js';
import * as m063 from './migrations/063_rate_limits.js';
import * as m066 from './migrations/066_password_resets.js';
import * as m067 from './migrations/067_oidc.js';
import * as m069 from './migrations/069_oauth.js';
import * as m072 from './migrations/072_ticket_delete_rule.js';
import * as m076 from './migrations/076_cache_changes.js';
import * as m080 from './migrations/080_trash.js';
import * as m082 from './migrations/082_ticket_templates.js';
import * as m084 from './migrations/084_search_filter_indexes.js';
import * as m086 from './migrations/086_search_row_columns.js';
import * as m087 from './migrations/087_search_row_labels.js';
import * as m088 from './migrations/088_sprint_budget_double.js';
import * as m089 from './migrations/089_column_ticket_counts.js';
import * as m090 from './migrations/090_column_rank_blocks.js';
import * as m091 from './migrations/091_label_columns.js';
import * as m092 from './migrations/092_search_titles.js';
import * as m093 from './migrations/093_search_facets.js';
import * as m094 from './migrations/094_search_facets_postgres.js';
import * as m120 from './migrations/120_notification_jobs.js';

type DialectMigration = { up(db: Kysely<any>, dialect: Db['dialect']): Promise<void> };

/** Migrations in order; add new ones at the end, never edit an applied one. */
const MIGRATIONS: Record<string, DialectMigration> = {
  '001_initial': m001,
  '002_sprint_started_at': m002,
  '003_board_ranks': m003,
  '010_session_details': m010,
  '011_scoped_api_keys': m011,
  '012_audit_log': m012,
  '013_two_factor': m013,
  '014_require_two_factor': m014,
  '020_sprint_names_unique': m020,
  '030_notifications': m030,
  '040_search_index': m040,
  '041_saved_views': m041,
  '042_search_sort_index': m042,
  '050_import_sources': m050,
  '051_search_fold_speed': m051,
  '055_webhooks': m055,
  '063_rate_limits': m063,
  '066_password_resets': m066,
  '067_oidc': m067,
  '069_oauth': m069,
  '072_ticket_delete_rule': m072,
  '076_cache_changes': m076,
  '080_trash': m080,
  '082_ticket_templates': m082,
  '084_search_filter_indexes': m084,
  '086_search_row_columns': m086,
  '087_search_row_labels': m087,
  '088_sprint_budget_double': m088,
  '089_column_ticket_counts': m089,
  '090_column_rank_blocks': m090,
  '091_label_columns': m091,
  '092_search_titles': m092,
  '093_search_facets': m093,
  '094_search_facets_postgres': m094,
  '120_notification_jobs': m120,
};

/** Every migration's name, in order. */
export const MIGRATION_NAMES = Object.keys(MIGRATIONS);

const MIGRATION_LOCK = 727_070_001;

/**
 * Applies pending migrations, each exactly once and in order. On PostgreSQL an advisory lock makes
 * instances that start together wait for each other instead of racing on the schema.
 */
export async function migrateToLatest(
  db: Db,
  /** Stop after this migration (tests of a migration build the schema before it). */
  upTo?: keyof typeof MIGRATIONS,
): Promise<string[]> {
  const provider = (dialect: Db['dialect']): MigrationProvider => ({
    async getMigrations() {
      const out: Record<string, Migration> = {};
      for (const [name, m] of Object.entries(MIGRATIONS)) out[name] = { up: (k) => m.up(k, dialect) };
      return out;
    },
  });
  const run = async (k: Kysely<any>) => {
    const migrator = new Migrator({
      db: k,
      provider: provider(db.dialect),
      ...(db.pg?.schema ? { migrationTableSchema: db.pg.schema } : {}),
    });
    const { error, results } = await (upTo ? migrator.migrateTo(upTo) : migrator.migrateToLatest());
    if (error) throw error instanceof Error ? error : new Error(String(error));
    return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
  };
  if (db.dialect === 'sqlite') {
    // SQLite has no advisory locks; migrations run in a transaction, so a process that lost the race
    // to another one on the same file rolls back and, on retry, finds the migrations applied.
    for (let attempt = 1; ; attempt++) {
      try {
        return await run(db.kysely);
      } catch (err) {
        if (attempt >= 5) throw err;
        await new Promise((r) => setTimeout(r, 50 * attempt));
      }
    }
  }
  const applied = await db.kysely.connection().execute(async (conn) => {
    await sql`select pg_advisory_lock(${MIGRATION_LOCK})`.execute(conn);
    try {
      return await run(conn);
    } finally {
      await sql`select pg_advisory_unlock(${MIGRATION_LOCK})`.execute(conn);
    }
  });
  // The read cache's change log exists now (migration 076).
  await db.changes?.startLog?.();
  return applied;
}

/**
 * Whether the database's schema is this code's (GET /api/ready): `running` while any process holds
 * the migration lock (PostgreSQL), `pending` while a migration this code knows is not applied.
 */
export async function migrationState(db: Db): Promise<'ready' | 'pending' | 'running'> {
  if (db.dialect === 'postgres') {
    const held = await sql<{ held: number }>`select count(*) as held from pg_locks
      where locktype = 'advisory' and classid = 0 and objid = ${MIGRATION_LOCK} and objsubid = 1
        and database = (select oid from pg_database where datname = current_database())`.execute(db.kysely);
    if (Number(held.rows[0]?.held) > 0) return 'running';
  }
  const applied = await sql<{ name: string }>`select name from kysely_migration`.execute(db.kysely);
  const names = new Set(applied.rows.map((r) => r.name));
  return MIGRATION_NAMES.every((n) => names.has(n)) ? 'ready' : 'pending';
}
