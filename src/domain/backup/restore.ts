import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { type Kysely, sql } from 'kysely';
import { type FileKind, isSafeStoredName } from '../../files/storage.js';
import { ERR } from '../../shared/errors.js';
import { type Services, type Tx, transact } from '../context.js';
import { AppError, isForeignKeyViolation, isUniqueViolation } from '../errors.js';
import { ensureSettings } from '../settings.js';
import {
  BACKUP_FORMAT,
  BACKUP_TABLES,
  BACKUP_VERSION,
  type BackupTable,
  FILE_REFERENCES,
  isBackupTable,
  isFileKind,
  KEY_COLUMNS,
  OLDEST_VERSION,
  REFERENCES,
  ROW_SCHEMAS,
  type Row,
  type RowUpgrade,
  UNIQUE_KEYS,
  UPGRADES,
  upgradeRow,
} from './format.js';
import { JsonStreamParser, JsonSyntaxError, type Mode, type PathSeg } from './json-stream.js';

export interface ValidationDetail {
  path: string;
  message: string;
}

const MAX_DETAILS = 50;

/**
 * A private copy of a string. Strings cut from a parsed chunk may share that chunk's memory (V8
 * sliced strings); keeping a 36-character id would then keep the whole chunk alive, and memory would
 * grow with the size of the backup.
 */
const own = (s: string): string => Buffer.from(s, 'utf8').toString('utf8');

/** A backup that cannot be restored: 400 `Invalid backup file` with details; nothing was changed. */
export class InvalidBackup extends AppError {
  constructor(readonly details: ValidationDetail[]) {
    super(400, ERR.invalidBackup, { details });
  }
}

export type RestorePhase = 'reading' | 'checking' | 'files' | 'writing';
export interface RestoreOptions {
  /** Progress of each pass over the file, in bytes. */
  onProgress?: (phase: RestorePhase, done: number, total: number) => void;
  /** Upgrade chain and current version (tests exercise the chain with a synthetic older format). */
  upgrades?: Record<number, RowUpgrade>;
  currentVersion?: number;
  oldestVersion?: number;
}

export interface RestoreResult {
  imported: { users: number; projects: number; tickets: number; sprints: number };
  rows: Record<BackupTable, number>;
  files: number;
  /** Users whose sessions were ended (their live streams should close). */
  endedSessionsOf: string[];
}

const pathText = (p: readonly PathSeg[]) =>
  p.reduce<string>(
    (acc, seg) => (typeof seg === 'number' ? `${acc}[${seg}]` : acc ? `${acc}.${seg}` : seg),
    '',
  );

/** Reads the file once through a parser, reporting progress. */
async function pass(
  file: string,
  parser: JsonStreamParser,
  onBytes: (done: number) => void,
  afterChunk?: () => Promise<void>,
) {
  let done = 0;
  const stream = fs.createReadStream(file, { highWaterMark: 256 * 1024 });
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    parser.write(chunk);
    done += chunk.length;
    onBytes(done);
    if (afterChunk) await afterChunk();
  }
  parser.end();
}

/** Strict, padded base64 decoded piece by piece into a file. */
class Base64ToFile {
  private rest = '';
  private padded = false;
  private readonly fd: number;
  private readonly hash = createHash('sha256');
  size = 0;
  error: string | null = null;

  constructor(readonly target: string) {
    this.fd = fs.openSync(target, 'w');
  }

  push(text: string): void {
    if (this.error) return;
    if (!/^[A-Za-z0-9+/=]*$/.test(text)) {
      this.error = 'File content is not valid base64';
      return;
    }
    if (this.padded && text.length > 0) {
      this.error = 'File content is not valid base64 (data after padding)';
      return;
    }
    const all = this.rest + text;
    const usable = all.length - (all.length % 4);
    const body = all.slice(0, usable);
    const pad = body.indexOf('=');
    if (pad !== -1 && (pad < body.length - 2 || !/^=*$/.test(body.slice(pad)))) {
      this.error = 'File content is not valid base64 (misplaced padding)';
      return;
    }
    if (pad !== -1) this.padded = true;
    if (body) {
      const bytes = Buffer.from(body, 'base64');
      fs.writeSync(this.fd, bytes);
      this.hash.update(bytes);
      this.size += bytes.length;
    }
    this.rest = all.slice(usable);
  }

  finish(): string | null {
    fs.closeSync(this.fd);
    if (!this.error && this.rest.length !== 0) this.error = 'File content is not valid base64 (truncated)';
    return this.error ? null : this.hash.digest('hex');
  }
}

interface Header {
  format?: unknown;
  version?: unknown;
  exportedAt?: unknown;
  keys: string[];
}

async function readHeader(file: string, report: (done: number) => void): Promise<Header> {
  const header: Header = { keys: [] };
  const parser = new JsonStreamParser({
    mode: (p, kind) => {
      if (p.length === 0) {
        if (kind !== 'object') throw new InvalidBackup([{ path: '', message: 'A backup is a JSON object' }]);
        return 'walk';
      }
      header.keys.push(String(p[0]));
      return p[0] === 'format' || p[0] === 'version' || p[0] === 'exportedAt' ? 'build' : 'skip';
    },
    value: (p, v) => {
      if (p[0] === 'format') header.format = v;
      if (p[0] === 'version') header.version = v;
      if (p[0] === 'exportedAt') header.exportedAt = v;
    },
  });
  await pass(file, parser, report);
  return header;
}

function checkHeader(h: Header, current: number, oldest: number): number {
  const details: ValidationDetail[] = [];
  if (h.format !== BACKUP_FORMAT) details.push({ path: 'format', message: `Must be "${BACKUP_FORMAT}"` });
  if (typeof h.version !== 'number' || !Number.isInteger(h.version))
    details.push({ path: 'version', message: 'Must be a whole number' });
  else if (h.version > current)
    details.push({
      path: 'version',
      message: `Version ${h.version} is newer than this Docket supports (${current})`,
    });
  else if (h.version < oldest)
    details.push({
      path: 'version',
      message: `Version ${h.version} is too old (oldest supported: ${oldest})`,
    });
  if (typeof h.exportedAt !== 'string') details.push({ path: 'exportedAt', message: 'Must be a timestamp' });
  for (const key of ['data', 'files'])
    if (!h.keys.includes(key)) details.push({ path: key, message: 'Missing' });
  for (const key of h.keys) {
    if (!['format', 'version', 'exportedAt', 'data', 'files'].includes(key))
      details.push({ path: key, message: 'Unknown property' });
  }
  if (details.length) throw new InvalidBackup(details);
  return h.version as number;
}

interface Staged {
  dir: string;
  /** kind -> name -> {sha256, size} */
  files: Map<FileKind, Map<string, { sha: string; size: number }>>;
}

interface Checked {
  rows: Record<BackupTable, number>;
  admins: number;
  /** Tables appear in the file parents first, so one insert pass suffices. */
  ordered: boolean;
}

/**
 * The validating pass: every row against its table's schema (after upgrading older versions),
 * keys and uniqueness, references between records, file contents decoded into a staging folder,
 * and every file a record names. Throws InvalidBackup listing what is wrong.
 */
async function validate(
  file: string,
  version: number,
  staged: Staged,
  opts: RestoreOptions,
  report: (done: number) => void,
): Promise<Checked> {
  const details: ValidationDetail[] = [];
  const add = (p: string, message: string) => {
    if (details.length < MAX_DETAILS) details.push({ path: p, message });
    if (details.length >= MAX_DETAILS) throw new InvalidBackup(details);
  };
  const upgrades = opts.upgrades ?? UPGRADES;
  const current = opts.currentVersion ?? BACKUP_VERSION;
  const ids = new Map<BackupTable, Set<string>>(BACKUP_TABLES.map((t) => [t, new Set<string>()]));
  const uniques = new Map<string, Set<string>>();
  const pending: { where: string; table: BackupTable; value: string }[] = [];
  const fileRefs: { where: string; kind: FileKind; name: string }[] = [];
  const rows = Object.fromEntries(BACKUP_TABLES.map((t) => [t, 0])) as Record<BackupTable, number>;
  const seenTables = new Set<string>();
  let lastIndex = -1;
  let ordered = true;
  let admins = 0;
  let writer: Base64ToFile | null = null;

  const onRow = (where: string, sourceTable: string, raw: unknown) => {
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return add(where, 'Must be an object');
    let upgraded: { table: string; row: Row }[];
    try {
      upgraded = upgradeRow(version, sourceTable, raw as Row, upgrades, current);
    } catch (err) {
      return add(where, err instanceof Error ? err.message : 'Cannot upgrade');
    }
    for (const { table, row } of upgraded) {
      if (!isBackupTable(table)) return add(where, `Unknown table ${table}`);
      const parsed = ROW_SCHEMAS[table].safeParse(row);
      if (!parsed.success) {
        for (const issue of parsed.error.issues.slice(0, 5))
          add(`${where}.${issue.path.join('.')}`.replace(/\.$/, ''), issue.message);
        continue;
      }
      const r = parsed.data as Row;
      const index = BACKUP_TABLES.indexOf(table);
      if (index < lastIndex) ordered = false;
      lastIndex = Math.max(lastIndex, index);
      rows[table]++;
      const key = KEY_COLUMNS[table].map((c) => String(r[c])).join('\u0000');
      const set = ids.get(table) as Set<string>;
      if (set.has(key)) add(where, `Duplicate ${KEY_COLUMNS[table].join(', ')} in ${table}`);
      set.add(own(key));
      for (const u of UNIQUE_KEYS[table] ?? []) {
        const v = u.of(r);
        if (v === null) continue;
        const name = `${table}:${u.name}`;
        let seen = uniques.get(name);
        if (!seen) {
          seen = new Set();
          uniques.set(name, seen);
        }
        if (seen.has(v)) add(where, `Duplicate ${u.name} in ${table}`);
        seen.add(own(v));
      }
      for (const [column, target] of Object.entries(REFERENCES[table] ?? {})) {
        const value = r[column];
        if (value === null || value === undefined) continue;
        if (!(ids.get(target) as Set<string>).has(String(value))) {
          pending.push({ where: own(`${where}.${column}`), table: target, value: own(String(value)) });
        }
      }
      const fileRef = FILE_REFERENCES[table];
      if (fileRef && typeof r[fileRef.column] === 'string') {
        fileRefs.push({
          where: own(`${where}.${fileRef.column}`),
          kind: fileRef.kind,
          name: own(r[fileRef.column] as string),
        });
      }
      if (table === 'users' && r.is_system_admin === 1 && r.is_active === 1) admins++;
    }
  };

  const mode = (p: readonly PathSeg[], kind: string): Mode => {
    const where = pathText(p);
    if (p.length === 0) return 'walk';
    if (p.length === 1) {
      if (p[0] === 'data' || p[0] === 'files') {
        if (kind !== 'object') add(where, 'Must be an object');
        return kind === 'object' ? 'walk' : 'skip';
      }
      return 'skip';
    }
    if (p[0] === 'data') {
      if (p.length === 2) {
        const table = String(p[1]);
        if (kind !== 'array') {
          add(where, 'Must be an array of records');
          return 'skip';
        }
        if (version === current && !isBackupTable(table)) {
          add(where, 'Unknown table');
          return 'skip';
        }
        if (seenTables.has(table)) add(where, 'Table appears twice');
        seenTables.add(table);
        return 'walk';
      }
      return 'build';
    }
    // files
    if (p.length === 2) {
      if (!isFileKind(String(p[1]))) {
        add(where, 'Unknown kind of file (avatars, attachments or files)');
        return 'skip';
      }
      if (kind !== 'object') {
        add(where, 'Must be an object of files');
        return 'skip';
      }
      return 'walk';
    }
    const kindName = p[1] as FileKind;
    const name = String(p[2]);
    if (kind !== 'string') {
      add(where, 'Must be base64 text');
      return 'skip';
    }
    if (!isSafeStoredName(name)) {
      add(where, 'Not a valid stored file name');
      return 'skip';
    }
    if (staged.files.get(kindName)?.has(name)) {
      add(where, 'File appears twice');
      return 'skip';
    }
    writer = new Base64ToFile(path.join(staged.dir, kindName, name));
    return 'stream';
  };

  const parser = new JsonStreamParser({
    mode,
    value: (p, v) => {
      if (p[0] === 'data' && p.length === 3) onRow(pathText(p), String(p[1]), v);
    },
    chunk: (_p, t) => writer?.push(t),
    end: (p) => {
      const w = writer as Base64ToFile;
      writer = null;
      const sha = w.finish();
      if (sha === null) add(pathText(p), w.error as string);
      else
        (staged.files.get(p[1] as FileKind) as Map<string, { sha: string; size: number }>).set(
          own(String(p[2])),
          {
            sha,
            size: w.size,
          },
        );
    },
  });
  try {
    await pass(file, parser, report);
  } catch (err) {
    (writer as Base64ToFile | null)?.finish();
    if (err instanceof JsonSyntaxError) {
      details.push({ path: '', message: `Not valid JSON: ${err.message}` });
      throw new InvalidBackup(details);
    }
    throw err;
  }

  for (const table of BACKUP_TABLES)
    if (version === current && !seenTables.has(table)) add(`data.${table}`, 'Missing');
  for (const ref of pending) {
    if (!(ids.get(ref.table) as Set<string>).has(ref.value))
      add(ref.where, `Refers to a missing record in ${ref.table}`);
  }
  for (const ref of fileRefs) {
    if (!staged.files.get(ref.kind)?.has(ref.name))
      add(ref.where, `The file ${ref.kind}/${ref.name} is not in the backup`);
  }
  if (admins === 0 && details.length === 0)
    add('data.users', 'The backup has no active system administrator');
  if (details.length) throw new InvalidBackup(details);
  return { rows, admins, ordered };
}

/** Rows per INSERT: well under the parameter limits of both databases. */
const batchSize = (table: BackupTable) =>
  Math.max(1, Math.min(500, Math.floor(30_000 / Object.keys(ROW_SCHEMAS[table].shape).length)));

/** Deletes every row of every table, children first. */
export async function deleteEverything(tx: Tx, dialect: 'sqlite' | 'postgres'): Promise<void> {
  // Instances sharing one PostgreSQL database replace everything one at a time.
  if (dialect === 'postgres') await sql`select pg_advisory_xact_lock(727070010)`.execute(tx);
  await tx.deleteFrom('events').execute();
  for (const table of [...BACKUP_TABLES].reverse()) {
    if (table === 'users') await tx.deleteFrom('sessions').execute();
    await (tx as unknown as Kysely<any>).deleteFrom(table).execute();
  }
}

/** The inserting pass(es), inside the transaction. */
async function insertAll(
  tx: Tx,
  file: string,
  version: number,
  checked: Checked,
  opts: RestoreOptions,
  report: (done: number) => void,
) {
  const db = tx as unknown as Kysely<any>;
  const upgrades = opts.upgrades ?? UPGRADES;
  const current = opts.currentVersion ?? BACKUP_VERSION;
  const parents: { id: string; parent: string }[] = [];
  const queue = new Map<BackupTable, Row[]>();
  // Rows arrive parents first; a batch of a table goes in only after every row of the tables
  // before it, so that the references of each row already exist.
  const flush = async (all: boolean) => {
    const queued = BACKUP_TABLES.filter((t) => (queue.get(t)?.length ?? 0) > 0);
    const last = queued[queued.length - 1];
    for (const table of queued) {
      const rows = queue.get(table) as Row[];
      const size = batchSize(table);
      const complete = all || table !== last;
      while (rows.length >= size || (complete && rows.length > 0)) {
        await db.insertInto(table).values(rows.splice(0, size)).execute();
      }
    }
  };
  const onlyTable = async (only: BackupTable | null) => {
    const parser = new JsonStreamParser({
      mode: (p) => (p.length === 0 ? 'walk' : p[0] !== 'data' ? 'skip' : p.length <= 2 ? 'walk' : 'build'),
      value: (p, v) => {
        if (p[0] !== 'data' || p.length !== 3) return;
        for (const { table, row } of upgradeRow(version, String(p[1]), v as Row, upgrades, current)) {
          if (!isBackupTable(table) || (only && table !== only)) continue;
          const r = ROW_SCHEMAS[table].parse(row) as Row;
          if (table === 'tickets' && r.parent_id) {
            // Inserted without its parent first: a parent may come later in the file.
            parents.push({ id: own(r.id as string), parent: own(r.parent_id as string) });
            r.parent_id = null;
          }
          let rows = queue.get(table);
          if (!rows) {
            rows = [];
            queue.set(table, rows);
          }
          rows.push(r);
        }
      },
    });
    await pass(file, parser, report, () => flush(false));
    await flush(true);
  };
  if (checked.ordered) await onlyTable(null);
  else for (const table of BACKUP_TABLES) await onlyTable(table);
  for (const p of parents)
    await tx.updateTable('tickets').set({ parent_id: p.parent }).where('id', '=', p.id).execute();
}

/** Removes what a crashed restore or upload left in DOCKET_DATA_DIR/tmp more than a day ago. */
async function sweepStale(dir: string): Promise<void> {
  const cutoff = Date.now() - 24 * 60 * 60 * 1000;
  const entries = await fsp.readdir(dir).catch(() => [] as string[]);
  for (const entry of entries) {
    if (!/^(restore|upload)-/.test(entry)) continue;
    const full = path.join(dir, entry);
    const st = await fsp.stat(full).catch(() => null);
    if (st && st.mtimeMs < cutoff) await fsp.rm(full, { recursive: true, force: true });
  }
}

let busy: Promise<unknown> = Promise.resolve();

/** Runs destructive database operations one at a time in this process. */
export function exclusively<T>(fn: () => Promise<T>): Promise<T> {
  const run = busy.then(fn, fn);
  busy = run.catch(() => {});
  return run;
}

async function sameContent(
  s: Services,
  kind: FileKind,
  name: string,
  expected: { sha: string; size: number },
): Promise<boolean> {
  const st = await s.files.stat(kind, name);
  if (!st || st.size !== expected.size) return false;
  const hash = createHash('sha256');
  await pipeline(s.files.read(kind, name), hash);
  return hash.digest('hex') === expected.sha;
}

/**
 * Restores a backup file: validates all of it first (nothing changes when it is invalid), then
 * replaces every table in one transaction, ends every session and emits `database.wiped`.
 *
 * Files: new files are written to the store before the transaction, under their own names (stored
 * names are unique, so they cannot clash with the old data); if the transaction fails they are
 * removed again. Old files are removed only after the commit. So at every moment, whatever the
 * committed database refers to exists in the store; a crash can at worst leave unreferenced files.
 */
export async function restoreBackup(
  s: Services & { tabId?: string | null },
  file: string,
  opts: RestoreOptions = {},
): Promise<RestoreResult> {
  return exclusively(async () => {
    const total = (await fsp.stat(file)).size;
    const progress = (phase: RestorePhase) => (done: number) => opts.onProgress?.(phase, done, total);
    const tmpRoot = path.join(s.config.dataDir, 'tmp');
    await sweepStale(tmpRoot);
    const staged: Staged = {
      dir: path.join(tmpRoot, `restore-${randomBytes(8).toString('hex')}`),
      files: new Map(),
    };
    for (const kind of ['avatars', 'attachments', 'files'] as FileKind[]) {
      staged.files.set(kind, new Map());
      await fsp.mkdir(path.join(staged.dir, kind), { recursive: true });
    }
    const written: { kind: FileKind; name: string }[] = [];
    try {
      const header = await readHeader(file, progress('reading')).catch((err) => {
        if (err instanceof JsonSyntaxError)
          throw new InvalidBackup([{ path: '', message: `Not valid JSON: ${err.message}` }]);
        throw err;
      });
      const version = checkHeader(
        header,
        opts.currentVersion ?? BACKUP_VERSION,
        opts.oldestVersion ?? OLDEST_VERSION,
      );
      const checked = await validate(file, version, staged, opts, progress('checking'));

      // Files the new data needs that the store does not have yet (or has with other content).
      const later: { kind: FileKind; name: string }[] = [];
      let fileCount = 0;
      let i = 0;
      const fileTotal = [...staged.files.values()].reduce((n, m) => n + m.size, 0);
      for (const [kind, files] of staged.files) {
        for (const [name, meta] of files) {
          fileCount++;
          opts.onProgress?.('files', ++i, fileTotal);
          const exists = await s.files.stat(kind, name);
          if (!exists) {
            await s.files.write(kind, name, fs.createReadStream(path.join(staged.dir, kind, name)));
            written.push({ kind, name });
          } else if (!(await sameContent(s, kind, name, meta))) later.push({ kind, name });
        }
      }

      const endedSessionsOf: string[] = [];
      try {
        await transact(s, async (tx, emit) => {
          const sessions = await tx.selectFrom('sessions').select('user_id').distinct().execute();
          endedSessionsOf.push(...sessions.map((r) => r.user_id));
          await deleteEverything(tx, s.db.dialect);
          await insertAll(tx, file, version, checked, opts, progress('writing'));
          await ensureSettings(tx);
          emit({ scope: 'all', type: 'database.wiped', data: {} });
        });
      } catch (err) {
        if (isUniqueViolation(err) || isForeignKeyViolation(err)) {
          throw new InvalidBackup([
            {
              path: 'data',
              message: 'The records break a rule of the database (a duplicate or a missing reference)',
            },
          ]);
        }
        throw err;
      }
      written.length = 0;

      // Committed: now the files of the old data can go, and clashing names take the new content.
      for (const f of later)
        await s.files.write(f.kind, f.name, fs.createReadStream(path.join(staged.dir, f.kind, f.name)));
      for (const [kind, files] of staged.files) {
        for (const name of await s.files.list(kind))
          if (!files.has(name)) await s.files.remove(kind, name).catch(() => {});
      }
      const rows = checked.rows;
      return {
        imported: {
          users: rows.users,
          projects: rows.projects,
          tickets: rows.tickets,
          sprints: rows.sprints,
        },
        rows,
        files: fileCount,
        endedSessionsOf,
      };
    } finally {
      for (const f of written) await s.files.remove(f.kind, f.name).catch(() => {});
      await fsp.rm(staged.dir, { recursive: true, force: true });
    }
  });
}
