/** A backup file read and checked before anything is written: its header, every row against the backup schemas, its files staged on disk. restore.ts writes what passed. */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { type FileKind, isSafeStoredName } from '../../files/storage.js';
import { ERR } from '../../shared/errors.js';
import { AppError } from '../errors.js';
import {
  BACKUP_FORMAT,
  BACKUP_TABLES,
  BACKUP_VERSION,
  type BackupTable,
  FILE_REFERENCES,
  isBackupTable,
  isFileKind,
  KEY_COLUMNS,
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

export const MAX_DETAILS = 50;

/**
 * A private copy of a string. Strings cut from a parsed chunk may share that chunk's memory (V8
 * sliced strings); keeping a 36-character id would then keep the whole chunk alive, and memory would
 * grow with the size of the backup.
 */
export const own = (s: string): string => Buffer.from(s, 'utf8').toString('utf8');

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

export const pathText = (p: readonly PathSeg[]) =>
  p.reduce<string>(
    (acc, seg) => (typeof seg === 'number' ? `${acc}[${seg}]` : acc ? `${acc}.${seg}` : seg),
    '',
  );

/** Reads the file once through a parser, reporting progress. */
export async function pass(
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
export class Base64ToFile {
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

export interface Header {
  format?: unknown;
  version?: unknown;
  exportedAt?: unknown;
  keys: string[];
}

export async function readHeader(file: string, report: (done: number) => void): Promise<Header> {
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

export function checkHeader(h: Header, current: number, oldest: number): number {
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

export interface Staged {
  dir: string;
  /** kind -> name -> {sha256, size} */
  files: Map<FileKind, Map<string, { sha: string; size: number }>>;
}

export interface Checked {
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
export async function validate(
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
