import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { type Kysely, sql } from 'kysely';
import type { FileKind } from '../../files/storage.js';
import { type Services, type Tx, transact } from '../context.js';
import { isForeignKeyViolation, isUniqueViolation } from '../errors.js';
import { ensureSettings } from '../settings.js';
import {
  BACKUP_TABLES,
  BACKUP_VERSION,
  type BackupTable,
  isBackupTable,
  OLDEST_VERSION,
  ROW_SCHEMAS,
  type Row,
  UPGRADES,
  upgradeRow,
} from './format.js';
import { JsonStreamParser, JsonSyntaxError } from './json-stream.js';
import {
  type Checked,
  checkHeader,
  InvalidBackup,
  own,
  pass,
  type RestoreOptions,
  type RestorePhase,
  type RestoreResult,
  readHeader,
  type Staged,
  validate,
} from './restore-check.js';

export {
  InvalidBackup,
  type RestoreOptions,
  type RestorePhase,
  type RestoreResult,
  type ValidationDetail,
} from './restore-check.js';

/** Rows per INSERT: well under the parameter limits of both databases. */
const batchSize = (table: BackupTable) =>
  Math.max(1, Math.min(500, Math.floor(30_000 / Object.keys(ROW_SCHEMAS[table].shape).length)));

/** Deletes every row of every table, children first. */
export async function deleteEverything(tx: Tx, dialect: 'sqlite' | 'postgres'): Promise<void> {
  // Instances sharing one PostgreSQL database replace everything one at a time.
  if (dialect === 'postgres') await sql`select pg_advisory_xact_lock(727070010)`.execute(tx);
  await tx.deleteFrom('events').execute();
  await tx.deleteFrom('mail_outbox').execute();
  await tx.deleteFrom('notification_jobs').execute();
  // OAuth clients and grants are not backed up: a restore or wipe signs every client out.
  for (const table of ['oauth_tokens', 'oauth_codes', 'oauth_grants', 'oauth_clients'] as const)
    await tx.deleteFrom(table).execute();
  await tx.deleteFrom('webhook_deliveries').execute();
  await tx.deleteFrom('webhooks').execute();
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
