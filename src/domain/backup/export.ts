import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, SqliteDialect, sql } from 'kysely';
import type { Database } from '../../db/types.js';
import { FILE_KINDS } from '../../files/storage.js';
import type { Services } from '../context.js';
import { nowIso } from '../ids.js';
import { BACKUP_FORMAT, BACKUP_TABLES, BACKUP_VERSION, type BackupTable, KEY_COLUMNS } from './format.js';

const PAGE_SIZE = 500;

/** What an export wrote, for the CLI's summary. */
export interface ExportStats {
  rows: Partial<Record<BackupTable, number>>;
  files: number;
  fileBytes: number;
}

interface Snapshot {
  kysely: Kysely<Database>;
  close(): Promise<void>;
}

/**
 * A read-only view of the database frozen at one moment, so that a backup taken while people work
 * is consistent (no comment without its ticket). PostgreSQL: a REPEATABLE READ, READ ONLY
 * transaction on one pooled connection. SQLite: a second, read-only connection to the same file
 * holding a read transaction; in WAL mode it neither blocks nor is blocked by the server's writes.
 */
async function openSnapshot(s: Services): Promise<Snapshot> {
  if (s.db.dialect === 'postgres') {
    const trx = await s.db.kysely
      .startTransaction()
      .setIsolationLevel('repeatable read')
      .setAccessMode('read only')
      .execute();
    // The snapshot is taken at the first statement, not at BEGIN.
    await sql`select count(*) from users`.execute(trx);
    return {
      kysely: trx,
      async close() {
        await trx.commit().execute();
      },
    };
  }
  // The embedded database lives at DOCKET_DATA_DIR/docket.db (src/db/connect.ts).
  const raw = new BetterSqlite3(path.join(s.config.dataDir, 'docket.db'), {
    readonly: true,
    fileMustExist: true,
  });
  raw.pragma('busy_timeout = 10000');
  const kysely = new Kysely<Database>({ dialect: new SqliteDialect({ database: raw }) });
  await sql`begin`.execute(kysely);
  // A deferred transaction takes its snapshot at the first read of the database.
  await sql`select count(*) from users`.execute(kysely);
  return {
    kysely,
    async close() {
      try {
        await sql`commit`.execute(kysely);
      } finally {
        await kysely.destroy();
      }
    },
  };
}

/** Rows of one table in key order, one page at a time (keyset pagination: memory stays flat). */
async function* tableRows(
  k: Kysely<Database>,
  table: BackupTable,
): AsyncGenerator<Record<string, unknown>[]> {
  const keys = KEY_COLUMNS[table];
  const db = k as unknown as Kysely<any>;
  let last: unknown[] | null = null;
  for (;;) {
    let q = db.selectFrom(table).selectAll();
    if (last) {
      const after = last;
      q = q.where(({ eb }) =>
        eb(
          sql`(${sql.join(keys.map((c) => sql.ref(c)))})`,
          '>',
          sql`(${sql.join(after.map((v) => sql`${v}`))})`,
        ),
      );
    }
    for (const key of keys) q = q.orderBy(sql.ref(key));
    const rows: Record<string, unknown>[] = await q.limit(PAGE_SIZE).execute();
    if (rows.length === 0) return;
    yield rows;
    if (rows.length < PAGE_SIZE) return;
    const tail = rows[rows.length - 1];
    last = keys.map((c) => tail[c]);
  }
}

/** Base64 of a byte stream, in pieces that always end on a 3-byte boundary. */
async function* base64Of(first: Buffer | null, rest: AsyncIterator<Buffer>): AsyncGenerator<string> {
  let carry = Buffer.alloc(0);
  let chunk: Buffer | null = first;
  while (chunk) {
    const all = carry.length ? Buffer.concat([carry, chunk]) : chunk;
    const usable = all.length - (all.length % 3);
    if (usable > 0) yield all.subarray(0, usable).toString('base64');
    carry = Buffer.from(all.subarray(usable));
    const next = await rest.next();
    chunk = next.done ? null : (next.value as Buffer);
  }
  if (carry.length) yield carry.toString('base64');
}

/**
 * The backup document as a stream of text pieces: the rows of every table from one consistent
 * snapshot, then every stored file, read one by one. Nothing is held in memory beyond one page of
 * rows or one chunk of a file.
 */
export async function* backupStream(s: Services, stats?: ExportStats): AsyncGenerator<string> {
  const st = stats ?? { rows: {}, files: 0, fileBytes: 0 };
  const snapshot = await openSnapshot(s);
  try {
    yield `{"format":${JSON.stringify(BACKUP_FORMAT)},"version":${BACKUP_VERSION},"exportedAt":${JSON.stringify(nowIso())},"data":{`;
    let firstTable = true;
    for (const table of BACKUP_TABLES) {
      yield `${firstTable ? '' : ','}\n${JSON.stringify(table)}:[`;
      firstTable = false;
      let n = 0;
      for await (const page of tableRows(snapshot.kysely, table)) {
        yield page.map((r, i) => `${n + i === 0 ? '' : ','}\n${JSON.stringify(r)}`).join('');
        n += page.length;
      }
      st.rows[table] = n;
      yield ']';
    }
  } finally {
    await snapshot.close();
  }
  yield '\n},"files":{';
  let firstKind = true;
  for (const kind of FILE_KINDS) {
    yield `${firstKind ? '' : ','}\n${JSON.stringify(kind)}:{`;
    firstKind = false;
    let firstFile = true;
    for (const name of await s.files.list(kind)) {
      const iterator = (s.files.read(kind, name) as AsyncIterable<Buffer>)[Symbol.asyncIterator]();
      let first: IteratorResult<Buffer>;
      try {
        first = await iterator.next();
      } catch (err) {
        // Deleted since it was listed (a concurrent ticket deletion): it is no longer part of the data.
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') continue;
        throw err;
      }
      yield `${firstFile ? '' : ','}\n${JSON.stringify(name)}:"`;
      firstFile = false;
      for await (const piece of base64Of(first.done ? null : first.value, iterator)) yield piece;
      yield '"';
      const size = await s.files.stat(kind, name);
      st.files++;
      st.fileBytes += size?.size ?? 0;
    }
    yield '}';
  }
  yield '\n}}\n';
}
