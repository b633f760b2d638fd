/**
 * The embedded database's connections (SQLite through better-sqlite3): the main one, through which
 * every write and most reads go, and the read-only, memory-mapped one of searches (Db.search).
 * PostgreSQL's pool is in connect.ts, beside `connect`, which picks one or the other.
 */
import fs from 'node:fs';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { type CompiledQuery, Kysely, SqliteDialect } from 'kysely';
import { ALL, ChangeTracker, classify, PendingChanges } from './changes.js';
import type { Db } from './connect.js';
import { queryTiming } from './query-timing.js';
import type { Database } from './types.js';

/**
 * SQLite: how long a reading of the other connections' commit counter is trusted. Reading it takes
 * two file-lock system calls, which cost more than all the rest of a cached read; the requests of the
 * same millisecond share one reading. So a commit made by another process (the CLI) reaches this
 * process's cached reads at most this late. This process's own writes count at once, always.
 */
export const EXTERNAL_CHECK_MS = 1;

/** SQLite: prepared statements kept by their text (the cache starts over when full). */
const STATEMENT_CACHE_SIZE = 400;

export function connectSqlite(file: string, searchMmapBytes: number): Db {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const raw = new BetterSqlite3(file);
  raw.pragma('journal_mode = WAL');
  raw.pragma('synchronous = FULL');
  raw.pragma('foreign_keys = ON');
  raw.pragma('busy_timeout = 10000');
  // Kysely prepares every query afresh; caching statements by SQL text is several times faster.
  const cache = new Map<string, BetterSqlite3.Statement>();
  let statements = 0;
  const tracker = new ChangeTracker();
  // One connection, whose statements the driver runs one transaction at a time.
  const pending = new PendingChanges();
  const dataVersion = raw.prepare('pragma data_version').pluck();
  let version = Number(dataVersion.get());
  let versionAt = Number.NEGATIVE_INFINITY;
  /** Runs nothing: a marker only names its transaction's scopes. */
  const marker = { reader: false, run: () => ({ changes: 0, lastInsertRowid: 0 }) };
  const database = {
    close: () => raw.close(),
    prepare(text: string) {
      // The driver runs the statement right after preparing it, synchronously: the change is
      // announced here, before it happens (INSERT … RETURNING included, which the driver runs as a
      // read), and no read can run in between.
      const st = classify(text);
      if (st.kind === 'marker') {
        pending.name(st.scopes);
        return marker;
      }
      if (st.kind === 'begin') pending.begin();
      else if (st.kind === 'rollback') pending.reset();
      else if (st.kind === 'commit') {
        tracker.changed(pending.scopes());
        pending.reset();
      } else if (st.kind === 'write') {
        pending.write(st);
        if (!pending.inTransaction) {
          tracker.changed(pending.scopes());
          pending.reset();
        }
      }
      // Write transactions take the write lock at BEGIN: a deferred transaction that reads first and
      // writes later would fail with SQLITE_BUSY_SNAPSHOT when another process wrote in between.
      if (text === 'begin') text = 'begin immediate';
      let stmt = cache.get(text);
      if (!stmt) {
        stmt = raw.prepare(text);
        // Each prepared statement holds about 25 KB of SQLite's memory (a join with a list of ids,
        // measured): 2,000 of them, as lists of every length accumulate, were 50 MB resident.
        if (cache.size >= STATEMENT_CACHE_SIZE) cache.clear();
        cache.set(text, stmt);
      }
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
  const search = sqliteSearchReader(file, searchMmapBytes, timing, () => statements++);
  return {
    kysely,
    dialect: 'sqlite',
    search,
    pg: null,
    statements: () => statements,
    roundTrips: () => statements,
    poolStats: () => null,
    observeQueries: timing.observe,
    changes: {
      tracker,
      staleMs: EXTERNAL_CHECK_MS,
      refresh: (force) => {
        // The time is taken before the reading, so a reading is never trusted for longer than the bound.
        const now = performance.now();
        if (!force && now - versionAt < EXTERNAL_CHECK_MS) return;
        versionAt = now;
        const v = Number(dataVersion.get());
        // Another process (the CLI) committed: it says nothing of what, so everything changed.
        if (v !== version) tracker.changed([ALL]);
        version = v;
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

/**
 * How much of the SQLite file the search connection maps by default (DOCKET_SEARCH_MMAP_MB; SQLite
 * caps it at its own limit, 2 GB). Mapped pages are the operating system's file cache, shared and
 * reclaimable: they show in the process's resident memory as file pages (RssFile), not as memory
 * it allocated.
 */
export const SEARCH_MMAP_BYTES = 2 ** 31;

/**
 * SQLite: the search connection (Db.search), opened at the first search (the migrations have made
 * the file by then). Read-only, so it never takes the write lock; in WAL mode each statement reads
 * the last commit, as the main connection's reads outside a transaction do.
 */
function sqliteSearchReader(
  file: string,
  mmapBytes: number,
  timing: ReturnType<typeof queryTiming>,
  count: () => void,
) {
  let conn: BetterSqlite3.Database | null = null;
  const open = () => {
    if (conn) return conn;
    conn = new BetterSqlite3(file, { readonly: true, fileMustExist: true });
    conn.pragma('busy_timeout = 10000');
    conn.pragma(`mmap_size = ${Math.floor(mmapBytes)}`);
    return conn;
  };
  const cache = new Map<string, BetterSqlite3.Statement>();
  const rawCache = new Map<string, BetterSqlite3.Statement>();
  const prepared = (map: Map<string, BetterSqlite3.Statement>, text: string, rawMode: boolean) => {
    let stmt = map.get(text);
    if (!stmt) {
      stmt = open().prepare(text);
      if (rawMode) stmt.raw(true);
      if (map.size >= 200) map.clear();
      map.set(text, stmt);
    }
    count();
    return stmt;
  };
  const kysely = new Kysely<Database>({
    dialect: new SqliteDialect({
      database: { close: () => {}, prepare: (text: string) => prepared(cache, text, false) } as never,
    }),
    log: timing.log,
  });
  return {
    kysely,
    async arrays(query: CompiledQuery) {
      const stmt = prepared(rawCache, query.sql, true);
      const t0 = performance.now();
      const rows = stmt.all(...query.parameters) as unknown[][];
      timing.took(performance.now() - t0);
      return rows;
    },
    close() {
      cache.clear();
      rawCache.clear();
      conn?.close();
      conn = null;
    },
  };
}
