/**
 * Time and memory of `docket import jira-csv` (issue 21): a generated Jira CSV export of 100,000
 * issues (labels, sprints, a comment each, every tenth a subtask, every twentieth blocking another)
 * imported into an empty project, against the targets (60 s on SQLite, 120 s on PostgreSQL) and
 * against the memory of `docket migrate` (the process baseline) in the same run. A tenth-size file
 * is imported too: memory should not grow with the file (streamed parsing).
 *
 *   npm run bench:import                               # embedded database
 *   BENCH_ROWS=20000 npm run bench:import
 *   DATABASE_URL=postgres://… npm run bench:import     # PostgreSQL (uses and drops fresh databases)
 */
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { loadConfig } from '../src/config.js';
import { connect } from '../src/db/connect.js';
import { migrateToLatest } from '../src/db/migrate.js';
import { requestCtx, type Services } from '../src/domain/context.js';
import { createProject } from '../src/domain/projects.js';
import { ensureSettings } from '../src/domain/settings.js';
import { createUserDirect } from '../src/domain/users.js';
import { DiskFileStore } from '../src/files/storage.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const rows = Number(process.env.BENCH_ROWS ?? 100_000);
const baseUrl = process.env.DATABASE_URL;
const target = baseUrl ? 120 : 60;

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

/** Runs the CLI under /usr/bin/time: peak resident memory (MB), wall time (s) and its output. */
function measure(args: string[], env: Record<string, string>) {
  const r = spawnSync(
    '/usr/bin/time',
    ['-f', 'BENCH %M %e', process.execPath, path.join(root, 'bin', 'docket.js'), ...args],
    {
      env: { ...process.env, ...env, DOCKET_LOG_LEVEL: 'silent' },
      stdio: ['ignore', 'pipe', 'pipe'],
      maxBuffer: 64 * 1024 * 1024,
    },
  );
  const err = r.stderr.toString();
  if (r.status !== 0) throw new Error(`docket ${args.join(' ')} failed: ${err}\n${r.stdout}`);
  const m = /BENCH (\d+) ([\d.]+)/.exec(err);
  if (!m) throw new Error(`no measurement in: ${err}`);
  return { mb: Number(m[1]) / 1024, seconds: Number(m[2]), out: r.stdout.toString().split('\n')[0] };
}

const q = (v: string) => `"${v.replace(/"/g, '""')}"`;

/** A Jira CSV export of n issues, written to file (streamed). */
async function writeJiraCsv(file: string, n: number) {
  const out = fs.createWriteStream(file);
  const write = async (s: string) => {
    if (!out.write(s)) await new Promise<void>((r) => out.once('drain', () => r()));
  };
  await write(
    '\ufeffSummary,Issue key,Issue id,Issue Type,Status,Priority,Assignee,Reporter,Created,Updated,Labels,Labels,Description,Sprint,Custom field (Story Points),Parent id,Comment,Outward issue link (Blocks)\n',
  );
  const statuses = ['To Do', 'In Progress', 'In Review', 'Done', 'Blocked'];
  const priorities = ['Highest', 'High', 'Medium', 'Low', 'Lowest'];
  for (let i = 1; i <= n; i++) {
    const sub = i % 10 === 0;
    const day = String((i % 28) + 1).padStart(2, '0');
    await write(
      [
        q(`Issue number ${i}: something to do with part ${i % 97}`),
        `BEN-${i}`,
        String(10_000 + i),
        sub ? 'Sub-task' : i % 3 === 0 ? 'Bug' : 'Story',
        statuses[i % statuses.length],
        priorities[i % priorities.length],
        `person${i % 10}`,
        `person${(i + 3) % 10}`,
        `${day}/Mar/24 9:${String(i % 60).padStart(2, '0')} AM`,
        `${day}/Apr/24 10:00 AM`,
        `area-${i % 20}`,
        i % 2 ? 'customer' : '',
        q(
          `What happens: issue ${i} goes wrong.\nSteps:\n1. open "page ${i % 50}"\n2. click, wait\nExpected: it works.`,
        ),
        `Sprint ${(i % 10) + 1}`,
        String([1, 2, 3, 5, 8][i % 5]),
        sub ? String(10_000 + i - 1) : '',
        q(`${day}/Mar/24 11:00 AM;person${i % 10};Looked at it; comment on ${i}.`),
        i % 20 === 0 && i > 1 ? `BEN-${i - 1}` : '',
      ].join(',') + '\n',
    );
  }
  await new Promise<void>((r) => out.end(() => r()));
}

async function run(n: number) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'docket-bench-import-'));
  const url = await freshDatabase();
  const env = { DOCKET_DATA_DIR: dir, ...(url ? { DATABASE_URL: url } : {}) };
  try {
    const config = loadConfig({ ...env, DOCKET_LOG_LEVEL: 'silent' });
    const db = await connect({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
    await migrateToLatest(db);
    await ensureSettings(db.kysely);
    const services: Services = {
      db,
      config,
      events: { published() {}, origin: null },
      files: new DiskFileStore(path.join(dir, 'uploads')),
      log: { info() {}, warn() {}, error() {} },
    };
    const owner = await createUserDirect(services, {
      username: 'benchowner',
      password: 'Correct-horse-42',
      email: null,
      name: null,
      isSystemAdmin: true,
      mustChangePassword: false,
    });
    const ctx = requestCtx(services, null);
    ctx.actor = { userId: owner.id, isSystemAdmin: true, via: 'session', sessionId: null };
    await createProject(ctx, { name: 'Bench', key: 'BEN' });
    await db.close();
    const file = path.join(dir, 'jira.csv');
    await writeJiraCsv(file, n);
    const mb = fs.statSync(file).size / 1024 / 1024;
    const baseline = measure(['migrate'], env);
    const result = measure(['import', 'jira-csv', file, '--project', 'BEN'], env);
    return { n, mb, baseline, result };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
    await dropDatabase(url);
  }
}

const small = await run(Math.max(1, Math.round(rows / 10)));
const big = await run(rows);
console.log(
  `${baseUrl ? 'PostgreSQL' : 'SQLite'}: import of a Jira CSV export (target: ${rows.toLocaleString('en')} rows in ${target} s)`,
);
console.log(`  process baseline (migrate): ${big.baseline.mb.toFixed(0)} MB peak`);
for (const r of [small, big])
  console.log(
    `  ${r.n.toLocaleString('en').padStart(8)} rows, ${r.mb.toFixed(1)} MB file: ${r.result.seconds.toFixed(1)} s ` +
      `(${Math.round(r.n / r.result.seconds).toLocaleString('en')} rows/s), ${r.result.mb.toFixed(0)} MB peak ` +
      `(${(r.result.mb / r.baseline.mb).toFixed(2)}x baseline)`,
  );
console.log(`  ${big.result.out}`);
console.log(
  `  ${big.result.seconds <= target ? 'within' : 'OVER'} the target: ${(big.result.seconds / target).toFixed(2)} of ${target} s; ` +
    `memory ${(big.result.mb / small.result.mb).toFixed(2)}x for a ${(big.mb / small.mb).toFixed(0)}x larger file`,
);
