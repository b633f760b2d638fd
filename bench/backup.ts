/**
 * Memory and time of `docket backup` and `docket restore` on a large instance, against the memory of
 * `docket migrate` (the process baseline) in the same run. The claim under test: memory stays flat
 * whatever the size of the data and files.
 *
 *   npx tsx bench/backup.ts                                    # embedded database
 *   BENCH_TICKETS=50000 BENCH_FILES=200 BENCH_FILE_MB=1 npx tsx bench/backup.ts
 *   DATABASE_URL=postgres://… npx tsx bench/backup.ts          # PostgreSQL (uses and drops two databases)
 */
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { connect } from '../src/db/connect.js';
import { migrateToLatest } from '../src/db/migrate.js';
import { newId, nowIso } from '../src/domain/ids.js';
import { DiskFileStore, generateStoredName } from '../src/files/storage.js';
import { generate } from './generate.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const tickets = Number(process.env.BENCH_TICKETS ?? 20_000);
const files = Number(process.env.BENCH_FILES ?? 100);
const fileMb = Number(process.env.BENCH_FILE_MB ?? 1);
const baseUrl = process.env.DATABASE_URL;

async function freshDatabase(): Promise<string | undefined> {
  if (!baseUrl) return undefined;
  const name = `docket_bench_${randomBytes(4).toString('hex')}`;
  const c = new pg.Client({ connectionString: baseUrl });
  await c.connect();
  await c.query(`create database ${name}`);
  await c.end();
  const url = new URL(baseUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

async function dropDatabase(url: string | undefined) {
  if (!url || !baseUrl) return;
  const c = new pg.Client({ connectionString: baseUrl });
  await c.connect();
  await c.query(`drop database if exists ${new URL(url).pathname.slice(1)} with (force)`);
  await c.end();
}

/** Runs the CLI under /usr/bin/time: peak resident memory (MB) and wall time (s). */
function measure(args: string[], env: Record<string, string>): { mb: number; seconds: number } {
  const r = spawnSync(
    '/usr/bin/time',
    ['-f', 'BENCH %M %e', process.execPath, path.join(root, 'bin', 'docket.js'), ...args],
    {
      env: {
        ...process.env,
        ...env,
        DOCKET_LOG_LEVEL: 'silent',
        // e.g. BENCH_CHILD_NODE_OPTIONS=--max-old-space-size=64 shows how little live heap the CLI needs.
        ...(process.env.BENCH_CHILD_NODE_OPTIONS
          ? { NODE_OPTIONS: process.env.BENCH_CHILD_NODE_OPTIONS }
          : {}),
      },
      stdio: ['ignore', 'ignore', 'pipe'],
      maxBuffer: 16 * 1024 * 1024,
    },
  );
  const out = r.stderr.toString();
  if (r.status !== 0) throw new Error(`docket ${args.join(' ')} failed: ${out}`);
  const m = /BENCH (\d+) ([\d.]+)/.exec(out);
  if (!m) throw new Error(`no measurement in: ${out}`);
  return { mb: Number(m[1]) / 1024, seconds: Number(m[2]) };
}

const sourceDir = fs.mkdtempSync(path.join(os.tmpdir(), 'docket-bench-src-'));
const targetDir = fs.mkdtempSync(path.join(os.tmpdir(), 'docket-bench-dst-'));
const sourceUrl = await freshDatabase();
const targetUrl = await freshDatabase();
const envOf = (dir: string, url?: string) => ({
  DOCKET_DATA_DIR: dir,
  ...(url ? { DATABASE_URL: url } : {}),
});
try {
  const db = await connect({ databaseUrl: sourceUrl, dataDir: sourceDir });
  await migrateToLatest(db);
  const g = await generate(db, { tickets });
  const store = new DiskFileStore(path.join(sourceDir, 'uploads'));
  const ticket = await db.kysely.selectFrom('tickets').select('id').limit(1).executeTakeFirstOrThrow();
  const owner = await db.kysely.selectFrom('users').select('id').limit(1).executeTakeFirstOrThrow();
  await db.kysely.updateTable('users').set({ is_system_admin: 1 }).where('id', '=', owner.id).execute();
  for (let i = 0; i < files; i++) {
    const name = generateStoredName('bin');
    await store.write('attachments', name, randomBytes(fileMb * 1024 * 1024));
    await db.kysely
      .insertInto('attachments')
      .values({
        id: newId(),
        ticket_id: ticket.id,
        uploader_id: null,
        filename: `f${i}.bin`,
        mime_type: 'application/pdf',
        size: fileMb * 1024 * 1024,
        stored_name: name,
        created_at: nowIso(),
      })
      .execute();
  }
  await db.close();

  const backupFile = path.join(sourceDir, 'backup.json');
  const baseline = measure(['migrate'], envOf(sourceDir, sourceUrl));
  const backup = measure(['backup', backupFile], envOf(sourceDir, sourceUrl));
  const size = fs.statSync(backupFile).size / 1024 / 1024;
  measure(['migrate'], envOf(targetDir, targetUrl));
  const restore = measure(['restore', backupFile, '--yes'], envOf(targetDir, targetUrl));
  console.log(
    `${baseUrl ? 'PostgreSQL' : 'SQLite'}: ${g.tickets} tickets, ${files} files of ${fileMb} MB; backup file ${size.toFixed(0)} MB`,
  );
  console.log(`  process baseline (migrate): ${baseline.mb.toFixed(0)} MB peak`);
  console.log(
    `  backup : ${backup.mb.toFixed(0)} MB peak (${(backup.mb / baseline.mb).toFixed(2)}x baseline), ${backup.seconds.toFixed(1)} s, ${(size / backup.seconds).toFixed(0)} MB/s`,
  );
  console.log(
    `  restore: ${restore.mb.toFixed(0)} MB peak (${(restore.mb / baseline.mb).toFixed(2)}x baseline), ${restore.seconds.toFixed(1)} s, ${(size / restore.seconds).toFixed(0)} MB/s`,
  );
} finally {
  fs.rmSync(sourceDir, { recursive: true, force: true });
  fs.rmSync(targetDir, { recursive: true, force: true });
  await dropDatabase(sourceUrl);
  await dropDatabase(targetUrl);
}
