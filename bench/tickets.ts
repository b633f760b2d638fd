/**
 * Ticket read load (issue 3 "Quality"): builds a 10,000-ticket project with bench/generate.ts,
 * starts the real server and a bare Fastify route (1 KB JSON) as separate processes, and runs
 * autocannon against each in the same run:
 *   - bare:       GET /bare on the baseline server
 *   - full read:  GET /api/projects/KEY/tickets/KEY-n (column, people, labels, links, counts)
 *   - list 1,000: GET /api/projects/KEY/tickets?columnId=<the column with 1,000 tickets>
 *   - both again while another client writes BENCH_WRITES (20) times a second: every write empties
 *     the read cache (src/domain/read-cache.ts), so these are the reads of a busy team
 * It prints requests per second and latency percentiles, and the ratios to the bare route. Aims:
 * the full read at no less than half the bare route's requests per second (the bare route and the
 * full read run in turn, BENCH_ROUNDS times, and the median of the rounds' ratios is judged); the list
 * of 1,000 under 15 ms at the median (measured with one connection, so the median is latency, not
 * queueing).
 *
 *   npm run bench:tickets                           # SQLite in a temporary directory
 *   BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npm run bench:tickets
 *                                                   # PostgreSQL: a fresh database, dropped after
 *   BENCH_DURATION=20 BENCH_CONNECTIONS=20 BENCH_ROUNDS=5 BENCH_LOG_LEVEL=info npm run bench:tickets
 */
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import pg from 'pg';
import { connect } from '../src/db/connect.js';
import { migrateToLatest } from '../src/db/migrate.js';
import { startProcess } from '../test/helpers/server.js';
import { generate } from './generate.js';

const DURATION = Number(process.env.BENCH_DURATION ?? 10);
/**
 * The server's log level: `warn` measures the read path alone. At `info` (the default) one buffered
 * access line per request is written too: the full read measured 0.48 to 0.54 of the bare route
 * there, against 0.65 at `warn` (docs/performance.md, "Logging").
 */
const LOG_LEVEL = process.env.BENCH_LOG_LEVEL ?? 'warn';
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
const TICKETS = Number(process.env.BENCH_TICKETS ?? 10_000);
/** Rounds of bare route and full read in turn; the aim is judged on the median ratio. */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
/** Writes per second during the "writes landing" runs. */
const WRITES = Number(process.env.BENCH_WRITES ?? 20);
const _root = path.resolve(import.meta.dirname, '..');
const pgBase = process.env.BENCH_DATABASE_URL;
const children: ChildProcess[] = [];

/** Starts Docket on its own port with request logging off (warn), and waits until it answers. */
async function startDocket(env: Record<string, string>): Promise<string> {
  const started = await startProcess({
    args: ['--import', 'tsx', 'src/server/main.ts'],
    env: { ...env, DOCKET_LOG_LEVEL: LOG_LEVEL, DOCKET_DRAIN_SECONDS: '0' },
  });
  children.push(started.child);
  return started.url;
}

/** Ends the child processes: SIGTERM, then SIGKILL for any still running after 3 s. */
async function stopChildren() {
  for (const c of children) if (c.exitCode === null) c.kill('SIGTERM');
  const deadline = Date.now() + 3000;
  while (children.some((c) => c.exitCode === null && c.signalCode === null) && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 100));
  }
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
}

/** A process that prints `listening at <url>` (the bare route). */
async function start(args: string[], env: Record<string, string>): Promise<string> {
  const started = await startProcess({ args: ['--import', 'tsx', ...args], env, ready: 'listening' });
  children.push(started.child);
  return started.url;
}

interface Result {
  name: string;
  rps: number;
  p50: number;
  p90: number;
  p99: number;
}

async function run(
  name: string,
  url: string,
  headers: Record<string, string>,
  connections = CONNECTIONS,
): Promise<Result> {
  // A short warm-up, so that caches and JIT are in the same state for every target.
  await autocannon({ url, connections, duration: 2, headers });
  const r = await autocannon({ url, connections, duration: DURATION, headers });
  if (r.errors || r.non2xx || r.timeouts)
    throw new Error(`${name}: ${r.errors} errors, ${r.non2xx} non-2xx, ${r.timeouts} timeouts`);
  return { name, rps: r.requests.average, p50: r.latency.p50, p90: r.latency.p90, p99: r.latency.p99 };
}

/**
 * The same load while another client writes at a steady rate (a ticket title in the same project):
 * every write empties the read cache, so this is the read under an active team, not a quiet board.
 */
async function runWhileWriting(
  name: string,
  url: string,
  headers: Record<string, string>,
  connections: number,
  writeUrl: string,
  writesPerSecond: number,
) {
  // Two titles in turn: every request changes the ticket.
  const writer = autocannon({
    url: writeUrl,
    connections: 1,
    overallRate: writesPerSecond,
    duration: DURATION + 2,
    headers: { ...headers, 'content-type': 'application/json' },
    requests: ['Written A', 'Written B'].map((title) => ({
      method: 'PATCH',
      body: JSON.stringify({ title }),
    })),
  });
  const read = await run(name, url, headers, connections);
  const w = await writer;
  if (w.errors || w.non2xx)
    throw new Error(`${name}: the writer had ${w.errors} errors, ${w.non2xx} non-2xx`);
  return { ...read, name: `${name} (${Math.round(w.requests.average)} writes/s)` };
}

async function main() {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'docket-bench-tickets-'));
  let databaseUrl = '';
  let database: string | null = null;
  if (pgBase) {
    database = `docket_bench_${randomBytes(5).toString('hex')}`;
    const c = new pg.Client({ connectionString: pgBase });
    await c.connect();
    await c.query(`create database "${database}"`);
    await c.end();
    const u = new URL(pgBase);
    u.pathname = `/${database}`;
    databaseUrl = u.toString();
  }
  try {
    const db = await connect({ databaseUrl: databaseUrl || undefined, dataDir });
    await migrateToLatest(db);
    const data = await generate(db, { tickets: TICKETS, inColumn: 1_000 });
    await db.close();
    console.log(`generated ${data.tickets} tickets in ${data.millis} ms (${db.dialect})`);

    const [docket, bare] = await Promise.all([
      startDocket({ DOCKET_DATA_DIR: dataDir, DATABASE_URL: databaseUrl, DOCKET_LOGIN_LIMIT: '100000' }),
      start(['bench/bare-server.ts'], {}),
    ]);
    const login = await fetch(`${docket}/api/auth/callback/credentials`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: data.username, password: data.password }),
    });
    if (login.status !== 200) throw new Error(`login failed: ${login.status} ${await login.text()}`);
    const cookie = login.headers
      .getSetCookie()
      .map((c) => c.split(';')[0])
      .find((c) => c.startsWith('docket_session='));
    if (!cookie) throw new Error('no session cookie');
    const headers = { cookie };
    const listUrl = `${docket}/api/projects/${data.projectKey}/tickets?columnId=${data.busyColumnId}`;
    const fullUrl = `${docket}/api/projects/${data.projectKey}/tickets/${data.sampleTicketKey}`;
    const writeUrl = `${docket}/api/projects/${data.projectKey}/tickets/${data.projectKey}-1`;
    const check = await fetch(listUrl, { headers });
    const listBody = await check.text();
    if (check.headers.get('x-total-count') !== '1000')
      throw new Error(`the list has ${check.headers.get('x-total-count')} tickets`);
    const fullBody = await (await fetch(fullUrl, { headers })).text();
    console.log(
      `list body ${(listBody.length / 1024).toFixed(0)} KB, full read body ${fullBody.length} bytes`,
    );

    // The bare route and the full read in turn, ROUNDS times: a machine that slows down or speeds up
    // during the run then weighs on both, and the aim is judged on the median of the rounds' ratios.
    const rounds: { bare: Result; full: Result }[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      rounds.push({
        bare: await run(`bare 1 KB JSON (round ${i + 1})`, `${bare}/bare`, {}),
        full: await run(`full ticket read (round ${i + 1})`, fullUrl, headers),
      });
    }
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
    const base = median(rounds.map((r) => r.bare.rps));
    const fullRatio = median(rounds.map((r) => r.full.rps / r.bare.rps));
    const list = await run('list of 1,000 (1 connection)', listUrl, headers, 1);
    const others = [
      list,
      await run(`list of 1,000 (${CONNECTIONS} connections)`, listUrl, headers),
      await runWhileWriting('full read, writes landing', fullUrl, headers, CONNECTIONS, writeUrl, WRITES),
      await runWhileWriting('list of 1,000, writes landing', listUrl, headers, 1, writeUrl, WRITES),
    ];
    console.log(
      `\n${DURATION} s per target, ${CONNECTIONS} connections unless stated, ${db.dialect}, ${os.cpus().length} cores, server log level ${LOG_LEVEL}, load average ${os.loadavg()[0].toFixed(1)}`,
    );
    console.log('target                                      req/s   ratio    p50    p90    p99 (ms)');
    const line = (r: Result, ratio: number) =>
      console.log(
        `${r.name.padEnd(41)} ${r.rps.toFixed(0).padStart(7)} ${ratio.toFixed(3).padStart(7)} ${String(r.p50).padStart(6)} ${String(r.p90).padStart(6)} ${String(r.p99).padStart(6)}`,
      );
    for (const r of rounds) {
      line(r.bare, 1);
      line(r.full, r.full.rps / r.bare.rps);
    }
    // The other targets against the median bare route.
    for (const r of others) line(r, r.rps / base);
    console.log(
      `\nfull read / bare, median of ${ROUNDS} rounds = ${fullRatio.toFixed(2)} (aim >= 0.5): ${fullRatio >= 0.5 ? 'met' : 'NOT met'}`,
    );
    console.log(`list of 1,000 median = ${list.p50} ms (aim < 15 ms): ${list.p50 < 15 ? 'met' : 'NOT met'}`);
    const [, , busyFull, busyList] = others;
    console.log(
      `with ${WRITES} writes/s landing: full read / median bare = ${(busyFull.rps / base).toFixed(2)}, list of 1,000 median = ${busyList.p50} ms`,
    );
  } finally {
    await stopChildren();
    if (database && pgBase) {
      const c = new pg.Client({ connectionString: pgBase });
      await c.connect();
      await c.query(`drop database if exists "${database}" with (force)`);
      await c.end();
    }
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  async (err) => {
    console.error(err);
    await stopChildren();
    process.exit(1);
  },
);
