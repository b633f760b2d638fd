import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { type CompiledQuery, Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import { CHANGE_LOG_STALE_MS, changeLogReader } from './change-log.js';
import { ChangeTracker, classify, PendingChanges } from './changes.js';
import { connectSqlite, SEARCH_MMAP_BYTES } from './connect-sqlite.js';
import { queryTiming } from './query-timing.js';
import type { Database } from './types.js';

export { EXTERNAL_CHECK_MS } from './connect-sqlite.js';

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
   * Where searches read (src/domain/search/search.ts): committed data only, outside any
   * transaction. On PostgreSQL the same pool; on SQLite a read-only connection of its own with the
   * database file memory-mapped (decision 038, "Search reads mapped"): a search at 1,000,000 tickets
   * looks up tens of thousands of rows at random, each a system call and a copy through the page
   * cache of the main connection, where a mapped page is read in place.
   */
  search: Pick<Db, 'kysely' | 'arrays'>;
  /**
   * What changed when (src/db/changes.ts, decisions 047 and 053): this process's writes are announced
   * to `tracker` as they commit, by the scopes they changed; `refresh` folds in the changes other
   * processes committed: on SQLite, any commit of another connection (`data_version`) changes
   * everything; on PostgreSQL, each instance's commits leave their scopes in the change log
   * (`cache_changes`), read here. An answer computed after a refresh stays true while none of the
   * scopes it shows changes (src/domain/read-cache.ts).
   */
  changes: {
    tracker: ChangeTracker;
    /**
     * How late, at most, another process's commit reaches this process's cached reads (ms). A
     * refresh returns at once while what is known is this recent, and makes the caller wait for a
     * reading only when it is older.
     */
    staleMs: number;
    /**
     * Folds in other processes' commits, so that what is known is at most `staleMs` old; with
     * `force`, waits for a reading that starts now (every commit acknowledged before the call is
     * then known: the event follower does it before handing another instance's events to clients).
     */
    refresh(force?: boolean): void | Promise<void>;
    /** After the migrations: start writing and reading the change log, if this database has one. */
    startLog?(): Promise<void>;
  } | null;
  /** Every statement this process has sent, reads included (tests count the statements of a use case). */
  statements(): number;
  /**
   * Every message this process has sent to the database and waited for: on PostgreSQL a held-back
   * BEGIN or a statement sent with the COMMIT is no round trip of its own; on SQLite, every
   * statement (a call into the library).
   */
  roundTrips(): number;
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
  /** SQLite: bytes of the file the search connection maps (DOCKET_SEARCH_MMAP_MB; 0: none). */
  searchMmapBytes?: number;
}

// int8 (count(*), bigserial, bigint columns) as JavaScript numbers; every value here fits in 2^53.
pg.types.setTypeParser(20, (v) => Number(v));
// numeric / real as numbers
pg.types.setTypeParser(1700, (v) => Number(v));
pg.types.setTypeParser(700, (v) => Number(v));

const CHANGE_LOG_LOCK = 727_070_003;
/**
 * A change log entry, written just before COMMIT under a transaction-level lock that makes ids
 * commit in order: an instance that reads entries above the last id it saw never skips one.
 */
/**
 * Ends a write that goes to the database with its transaction's COMMIT, in the same message
 * (PostgreSQL): its answer comes once the COMMIT has been sent. See `WITH_COMMIT_MARK`.
 */
const WITH_COMMIT = /\/\*docket:with-commit\*\/$/;

/** Ends a write statement that is to be sent with its transaction's COMMIT (see WITH_COMMIT). */
export const WITH_COMMIT_MARK = '/*docket:with-commit*/';

interface Held {
  text: string;
  values: readonly unknown[];
  resolve(answer: unknown): void;
  reject(why: unknown): void;
}

/**
 * A statement with its `$n` parameters written as literals, for the simple protocol (which takes
 * several statements in one message but no parameters). Strings are quoted by the driver's own
 * `escapeLiteral`; only the plain values a held statement carries are accepted.
 */
function inlineValues(text: string, values: readonly unknown[]): string {
  return text.replace(/\$(\d+)/g, (_, n: string) => {
    const v = values[Number(n) - 1];
    if (v === null || v === undefined) return 'NULL';
    if (typeof v === 'string') return pg.escapeLiteral(v);
    if (typeof v === 'number' && Number.isFinite(v)) return String(v);
    if (typeof v === 'boolean') return v ? 'true' : 'false';
    throw new Error(`a statement sent with the COMMIT takes strings, numbers and booleans, not ${typeof v}`);
  });
}

/**
 * A statement with its `$n` parameters written as untyped literals (`'5'`, `'text'`, NULL), which
 * PostgreSQL types from their context exactly as it types the extended protocol's untyped text
 * parameters; null when a value is not a plain string, number or boolean (the driver's own
 * conversion of dates, buffers and objects is then needed).
 */
function inlineUntyped(text: string, values: readonly unknown[]): string | null {
  const plain = (v: unknown) =>
    v === null ||
    v === undefined ||
    typeof v === 'string' ||
    typeof v === 'boolean' ||
    typeof v === 'bigint' ||
    (typeof v === 'number' && Number.isFinite(v));
  if (!values.every(plain)) return null;
  return text.replace(/\$(\d+)/g, (_, n: string) => {
    const v = values[Number(n) - 1];
    return v === null || v === undefined ? 'NULL' : pg.escapeLiteral(String(v));
  });
}

/** A read that locks rows: it belongs inside its transaction, never ahead of a deferred BEGIN. */
const LOCKING = /\bfor\s+(?:update|share|no\s+key\s+update|key\s+share)\b/i;

/** A transaction's start that can wait for its first statement (READ COMMITTED, no options). */
const PLAIN_BEGIN = /^\s*begin\s*;?\s*$/i;

/** The name src/domain/prepared.ts gives a statement, at its end. */
const PREPARED = /\/\*docket:prepare ([A-Za-z0-9_-]+)\*\/$/;
const LOG_CHANGE_SQL = `with l as (select pg_advisory_xact_lock(${CHANGE_LOG_LOCK})) insert into cache_changes (origin, scopes, created_at) select $1, $2, $3 from l`;

export async function connect(opts: ConnectOptions): Promise<Db> {
  if (opts.databaseUrl) return connectPostgres(opts.databaseUrl, opts.pgSchema);
  return connectSqlite(
    path.join(opts.dataDir, opts.sqliteFile ?? 'docket.db'),
    opts.searchMmapBytes ?? SEARCH_MMAP_BYTES,
  );
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
    // No JIT compilation: Docket's statements run in milliseconds, and compiling one that the
    // planner costs high (a search's count over many matches) took 100 to 130 ms by itself here
    // (docs/performance.md, "Search"). The answers are the same.
    // 32 MB of memory per sort or bitmap instead of 4: a search's bitmap of a common word's or a
    // prefix's matches outgrew 4 MB at 1,000,000 tickets and went lossy, and every row of each page
    // it named was tested again (`gongonqui ropebel*`: 31,396 rows read for 11,096 matches).
    options: `-c jit=off -c work_mem=32MB${schema ? ` -c search_path="${schema}"` : ''}`,
  });
  pool.on('error', () => {
    // An idle client lost its connection; the pool replaces it. Queries report their own errors.
  });
  let statements = 0;
  let roundTrips = 0;
  const tracker = new ChangeTracker();
  // This instance's entries in the change log, which it has announced already.
  const origin = randomBytes(8).toString('hex');
  // The change log exists once the migrations made it (migrateToLatest calls startChangeLog).
  let logOn = false;
  const wrapped = new WeakSet<pg.PoolClient>();
  const watch = (client: pg.PoolClient) => {
    if (wrapped.has(client)) return client;
    wrapped.add(client);
    const pending = new PendingChanges();
    const send = client.query.bind(client) as (...args: unknown[]) => Promise<unknown>;
    const query = (...args: unknown[]) => {
      roundTrips++;
      return send(...args);
    };
    /** Statements held back to go with the COMMIT (`WITH_COMMIT`), answered once it is sent. */
    let held: Held[] = [];
    const dropHeld = (why: unknown) => {
      for (const h of held) h.reject(why);
      held = [];
    };
    /**
     * Commits, in one round trip with what must go with the COMMIT: the statements held back and,
     * when `scopes` is given, the change log's entry. They go as one message of several statements
     * (the simple protocol, values written as literals), so the ordering locks they take (the event
     * log's, the change log's) are held for no round trip at all. Should one fail, PostgreSQL skips
     * the rest, the COMMIT included, and the caller rolls back.
     */
    const commitWith = async (scopes: string[] | null, begin: string | null) => {
      const with_ = held;
      held = [];
      const parts = with_.map((h) => inlineValues(h.text, h.values));
      if (scopes)
        parts.push(inlineValues(LOG_CHANGE_SQL, [origin, scopes.join(' '), new Date().toISOString()]));
      if (begin !== null) parts.unshift(begin);
      if (parts.length === 0) return query('commit');
      const skip = begin === null ? 0 : 1;
      try {
        const answer = await query(`${parts.join(';\n')};\ncommit`);
        const results = Array.isArray(answer) ? answer : [answer];
        for (const [i, h] of with_.entries()) h.resolve(results[i + skip]);
        return results[results.length - 1];
      } catch (err) {
        for (const h of with_) h.reject(err);
        throw err;
      }
    };
    /**
     * A plain BEGIN not sent yet. It goes in one message with the transaction's first statement
     * that is not one of src/domain/prepared.ts's reads: those plain reads run before it, each in a
     * snapshot of its own, as READ COMMITTED gives every statement of a transaction anyway (they
     * take no lock and see no write of the transaction, which has made none yet). One round trip
     * less per transaction; a transaction that sent nothing else ends without a word.
     */
    let deferredBegin: string | null = null;
    const answered = (command: string) => Promise.resolve({ command, rowCount: 0, rows: [], fields: [] });
    /** Sends the deferred BEGIN with this statement, its values written as untyped literals. */
    const withBegin = async (args: unknown[]): Promise<unknown> => {
      const begin = deferredBegin as string;
      deferredBegin = null;
      const first = args[0];
      const inlined = typeof first === 'string' ? inlineUntyped(first, (args[1] ?? []) as unknown[]) : null;
      if (inlined === null) {
        await query(begin);
        return query(...args);
      }
      const answer = await query(`${begin};\n${inlined}`);
      return Array.isArray(answer) ? answer[answer.length - 1] : answer;
    };
    (client as { query: unknown }).query = (...args: unknown[]) => {
      // pg-pool's own `pool.query` passes a callback; the paths below answer with a promise, so a
      // callback is called from it (calling the driver with both would release the client twice).
      const callback =
        typeof args.at(-1) === 'function' ? (args.pop() as (e: unknown, r?: unknown) => void) : null;
      const answer = intercept(args);
      if (!callback) return answer;
      (answer as Promise<unknown>).then(
        (r) => callback(null, r),
        (e) => callback(e),
      );
      return undefined;
    };
    const intercept = (args: unknown[]): unknown => {
      const first = args[0] as string | { text?: string };
      const text = typeof first === 'string' ? first : (first?.text ?? '');
      const prepared = typeof first === 'string' ? PREPARED.exec(text) : null;
      // A statement of src/domain/prepared.ts: the driver's named statement, parsed and planned
      // once per connection.
      if (prepared) args = [{ name: prepared[1], text, values: args[1] }, ...args.slice(2)];
      const st = classify(text);
      if (st.kind === 'read') {
        statements++;
        if (deferredBegin !== null && (!prepared || LOCKING.test(text))) return withBegin(args);
        return query(...args);
      }
      if (st.kind === 'marker') {
        pending.name(st.scopes);
        return Promise.resolve({ command: 'SELECT', rowCount: 0, rows: [], fields: [] });
      }
      statements++;
      if (st.kind === 'begin') {
        pending.begin();
        dropHeld(new Error('a new transaction began'));
        deferredBegin = null;
        if (typeof first === 'string' && PLAIN_BEGIN.test(text)) {
          deferredBegin = text;
          return answered('BEGIN');
        }
        return query(...args);
      }
      if (st.kind === 'rollback') {
        pending.reset();
        dropHeld(new Error('the transaction rolled back'));
        if (deferredBegin !== null) {
          deferredBegin = null;
          return answered('ROLLBACK');
        }
        return query(...args);
      }
      if (st.kind === 'commit') {
        const scopes = pending.scopes();
        pending.reset();
        const begin = deferredBegin;
        deferredBegin = null;
        const logged = logOn && scopes.length > 0;
        // Nothing was sent since the BEGIN (every write sends it): nothing to commit.
        if (begin !== null && held.length === 0) return answered('COMMIT');
        if (begin === null && scopes.length === 0 && held.length === 0) return query(...args);
        if (begin === null && !logged && held.length === 0)
          return (query(...args) as Promise<unknown>).finally(() => tracker.changed(scopes));
        // Announced once the commit has answered: a read on another connection that ran while
        // the commit was under way may have missed it, and is then not kept (ChangeTracker).
        return (async () => {
          try {
            return await commitWith(logged ? scopes : null, begin);
          } catch (err) {
            await query('rollback').catch(() => {});
            throw err;
          } finally {
            tracker.changed(scopes);
          }
        })();
      }
      pending.write(st);
      if (pending.inTransaction) {
        if (!WITH_COMMIT.test(text)) return deferredBegin !== null ? withBegin(args) : query(...args);
        // Sent with the COMMIT; answered then (src/domain/event-log.ts appends events so).
        const values = (args[1] ?? []) as unknown[];
        return new Promise((resolve, reject) => held.push({ text, values, resolve, reject }));
      }
      // A write outside any transaction: it and its log entry commit together.
      const scopes = pending.scopes();
      pending.reset();
      if (scopes.length === 0 || !logOn) {
        return query(...args).finally(() => tracker.changed(scopes));
      }
      return (async () => {
        await query('begin');
        try {
          const result = await query(...args);
          await commitWith(scopes, null);
          return result;
        } catch (err) {
          await query('rollback').catch(() => {});
          throw err;
        } finally {
          tracker.changed(scopes);
        }
      })();
    };
    return client;
  };
  // Every client of the pool, whoever asks for it (Kysely, `arrays`, the change log's reading).
  pool.on('connect', watch);
  const timing = queryTiming();
  const arrays = async (query: CompiledQuery) => {
    const t0 = performance.now();
    const res = await pool.query({ text: query.sql, values: [...query.parameters], rowMode: 'array' });
    timing.took(performance.now() - t0);
    return res.rows as unknown[][];
  };
  const kysely = new Kysely<Database>({
    dialect: new PostgresDialect({
      pool: { connect: () => pool.connect(), end: () => pool.end() },
    }),
    log: timing.log,
  });
  await sql`select 1`.execute(kysely);

  // Other instances' commits: their entries in the change log, read by a thread of its own.
  const changeLog = changeLogReader({ pool, connectionString, schema, origin, tracker });
  logOn = await changeLog.start();
  return {
    kysely,
    dialect: 'postgres',
    pg: { connectionString, schema },
    statements: () => statements,
    roundTrips: () => roundTrips,
    poolStats: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
    observeQueries: timing.observe,
    changes: {
      tracker,
      staleMs: CHANGE_LOG_STALE_MS,
      refresh: changeLog.refresh,
      startLog: async () => {
        logOn = await changeLog.start();
      },
    },
    arrays,
    search: { kysely, arrays },
    async close() {
      await changeLog.close();
      await kysely.destroy();
    },
  };
}
