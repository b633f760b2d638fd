import fs from 'node:fs';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { type CompiledQuery, Kysely, type LogEvent, PostgresDialect, SqliteDialect, sql } from 'kysely';
import pg from 'pg';
import type { Database } from './types.js';

export type Dialect = 'sqlite' | 'postgres';

/** The one dialect seam: everything above this file speaks Kysely and never asks which database it is. */
export interface Db {
  kysely: Kysely<Database>;
  dialect: Dialect;
  /** PostgreSQL connection settings, for LISTEN/NOTIFY clients; null on SQLite. */
  pg: { connectionString: string; schema?: string } | null;
  /**
   * Runs a compiled read outside any transaction and returns its rows as arrays, in the order of its
   * select list: for the largest reads (a 1,000-ticket board column), where building an object per
   * row costs as much as the query.
   */
  arrays(query: CompiledQuery): Promise<unknown[][]>;
  /**
   * Counters that move whenever anything in the database may have changed: `local`, every write
   * statement of this process (counted before it runs, committed or not: free to read), and
   * `external`, commits by other connections (read at most once per EXTERNAL_CHECK_MS: SQLite's
   * data_version; PostgreSQL's WAL insert position, a query, hence the promise). An answer computed
   * after reading both stays true while neither moves (src/domain/read-cache.ts).
   */
  changes: { local(): number; external(): number | Promise<number> } | null;
  /** Every statement this process has sent, reads included (tests count the statements of a use case). */
  statements(): number;
  /** The PostgreSQL pool's connections (up to 10) for /metrics; null on SQLite (one connection). */
  poolStats(): { total: number; idle: number; waiting: number } | null;
  /** Calls `observe` with the seconds each statement took (src/server/metrics.ts); null stops it. */
  observeQueries(observe: ((seconds: number) => void) | null): void;
  close(): Promise<void>;
}

export interface ConnectOptions {
  /** postgres://… selects PostgreSQL; otherwise SQLite in dataDir. */
  databaseUrl?: string;
  /** PostgreSQL schema to use (tests use one schema per app); created when missing. */
  pgSchema?: string;
  dataDir: string;
  /** SQLite file name inside dataDir. */
  sqliteFile?: string;
}

// int8 (count(*), bigserial, bigint columns) as JavaScript numbers; every value here fits in 2^53.
pg.types.setTypeParser(20, (v) => Number(v));
// numeric / real as numbers
pg.types.setTypeParser(1700, (v) => Number(v));
pg.types.setTypeParser(700, (v) => Number(v));

/**
 * How long a reading of the other connections' commit counter is trusted. On SQLite, reading it takes
 * two file-lock system calls, which cost more than all the rest of a cached read; on PostgreSQL it
 * is a round trip. Under load, the requests of the same millisecond share one reading. So a commit
 * made by another process (the CLI, another Docket on the same database) reaches this process's
 * cached reads at most this late. This process's own writes count at once, always.
 */
export const EXTERNAL_CHECK_MS = 1;

/**
 * The statements that change nothing: everything else (insert, update, delete, begin, commit,
 * rollback, a `with` that may write, DDL) counts as a write. `select … for update` only locks.
 */
const READ_ONLY = /^\s*select\b/i;

export async function connect(opts: ConnectOptions): Promise<Db> {
  if (opts.databaseUrl) return connectPostgres(opts.databaseUrl, opts.pgSchema);
  return connectSqlite(path.join(opts.dataDir, opts.sqliteFile ?? 'docket.db'));
}

function connectSqlite(file: string): Db {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const raw = new BetterSqlite3(file);
  raw.pragma('journal_mode = WAL');
  raw.pragma('synchronous = FULL');
  raw.pragma('foreign_keys = ON');
  raw.pragma('busy_timeout = 10000');
  // Kysely prepares every query afresh; caching statements by SQL text is several times faster.
  const cache = new Map<string, BetterSqlite3.Statement>();
  let writes = 0;
  let statements = 0;
  const dataVersion = raw.prepare('pragma data_version').pluck();
  let external = 0;
  let externalAt = Number.NEGATIVE_INFINITY;
  const database = {
    close: () => raw.close(),
    prepare(text: string) {
      // Write transactions take the write lock at BEGIN: a deferred transaction that reads first and
      // writes later would fail with SQLITE_BUSY_SNAPSHOT when another process wrote in between.
      if (text === 'begin') text = 'begin immediate';
      let stmt = cache.get(text);
      if (!stmt) {
        stmt = raw.prepare(text);
        if (cache.size >= 2000) cache.clear();
        cache.set(text, stmt);
      }
      // The driver runs the statement right after preparing it, synchronously: counting here counts
      // every write before it happens (INSERT … RETURNING included, which the driver runs as a read).
      if (!stmt.readonly) writes++;
      statements++;
      return stmt;
    },
  };
  const timing = queryTiming();
  const kysely = new Kysely<Database>({
    dialect: new SqliteDialect({ database: database as never }),
    log: timing.log,
  });
  // Raw (array) mode is a property of the statement: these get statements of their own.
  const rawCache = new Map<string, BetterSqlite3.Statement>();
  return {
    kysely,
    dialect: 'sqlite',
    pg: null,
    statements: () => statements,
    poolStats: () => null,
    observeQueries: timing.observe,
    changes: {
      local: () => writes,
      external: () => {
        // The time is taken before the reading, so a reading is never trusted for longer than the bound.
        const now = performance.now();
        if (now - externalAt >= EXTERNAL_CHECK_MS) {
          externalAt = now;
          external = Number(dataVersion.get());
        }
        return external;
      },
    },
    async arrays(query) {
      let stmt = rawCache.get(query.sql);
      if (!stmt) {
        stmt = raw.prepare(query.sql).raw(true);
        if (rawCache.size >= 200) rawCache.clear();
        rawCache.set(query.sql, stmt);
      }
      const run = stmt;
      statements++;
      // Through the driver's connection lock: the one connection may be inside another request's
      // transaction, whose uncommitted rows this read must not see.
      return kysely.connection().execute(async () => {
        const t0 = performance.now();
        const rows = run.all(...query.parameters) as unknown[][];
        timing.took(performance.now() - t0);
        return rows;
      });
    },
    async close() {
      await kysely.destroy();
    },
  };
}

async function connectPostgres(connectionString: string, schema?: string): Promise<Db> {
  if (schema) {
    if (!/^[a-z_][a-z0-9_]*$/.test(schema)) throw new Error(`Invalid schema name: ${schema}`);
    const client = new pg.Client({ connectionString });
    await client.connect();
    try {
      await client.query(`create schema if not exists "${schema}"`);
    } catch (err) {
      // Two connections creating the same schema at once: the loser sees a duplicate; the schema exists.
      const code = (err as { code?: string }).code;
      if (code !== '23505' && code !== '42P06') throw err;
    } finally {
      await client.end();
    }
  }
  const pool = new pg.Pool({
    connectionString,
    max: 10,
    ...(schema ? { options: `-c search_path="${schema}"` } : {}),
  });
  pool.on('error', () => {
    // An idle client lost its connection; the pool replaces it. Queries report their own errors.
  });
  // Every write statement of this process is counted twice: when it is sent, and when it is done.
  // The second count matters for COMMIT: a read that ran on another connection while the commit was
  // under way may have missed it, and must not be kept once the commit's answer is back.
  let writes = 0;
  let statements = 0;
  const counted = new WeakSet<pg.PoolClient>();
  const countWrites = (client: pg.PoolClient) => {
    if (counted.has(client)) return client;
    counted.add(client);
    const query = client.query.bind(client) as (...args: unknown[]) => unknown;
    (client as { query: unknown }).query = (...args: unknown[]) => {
      const first = args[0] as string | { text?: string };
      const text = typeof first === 'string' ? first : (first?.text ?? '');
      statements++;
      if (READ_ONLY.test(text)) return query(...args);
      writes++;
      const result = query(...args);
      if (result instanceof Promise) return result.finally(() => writes++);
      writes++;
      return result;
    };
    return client;
  };
  const timing = queryTiming();
  const kysely = new Kysely<Database>({
    dialect: new PostgresDialect({
      pool: { connect: async () => countWrites(await pool.connect()), end: () => pool.end() },
    }),
    log: timing.log,
  });
  await sql`select 1`.execute(kysely);

  // Other instances' commits: the WAL insert position moves before any commit becomes visible (and
  // with any other change of the cluster, which only empties the cache more often). One reading at
  // a time; requests meanwhile share it. A failed reading trusts nothing: the counter moves.
  let external = 0;
  let externalAt = Number.NEGATIVE_INFINITY;
  let lsn: string | null = null;
  let reading: Promise<number> | null = null;
  const readExternal = (now: number) =>
    pool
      .query<{ lsn: string }>('select pg_current_wal_insert_lsn()::text as lsn')
      .then(
        (r) => {
          if (r.rows[0].lsn !== lsn) {
            lsn = r.rows[0].lsn;
            external++;
          }
          externalAt = now;
          return external;
        },
        () => ++external,
      )
      .finally(() => {
        reading = null;
      });
  return {
    kysely,
    dialect: 'postgres',
    pg: { connectionString, schema },
    statements: () => statements,
    poolStats: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
    observeQueries: timing.observe,
    changes: {
      local: () => writes,
      external: () => {
        const now = performance.now();
        if (now - externalAt < EXTERNAL_CHECK_MS) return external;
        reading ??= readExternal(now);
        return reading;
      },
    },
    async arrays(query) {
      statements++;
      const t0 = performance.now();
      const res = await pool.query({ text: query.sql, values: [...query.parameters], rowMode: 'array' });
      timing.took(performance.now() - t0);
      return res.rows as unknown[][];
    },
    async close() {
      await kysely.destroy();
    },
  };
}

/**
 * Statement timing for /metrics: Kysely's log reports each query's duration; the raw array reads
 * time themselves. Nothing is recorded until an observer is set.
 */
function queryTiming() {
  let observer: ((seconds: number) => void) | null = null;
  const took = (ms: number) => observer?.(ms / 1000);
  return {
    took,
    log: (event: LogEvent) => took(event.queryDurationMillis),
    observe: (fn: ((seconds: number) => void) | null) => {
      observer = fn;
    },
  };
}
