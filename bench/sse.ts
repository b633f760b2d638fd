/**
 * Event stream load (issue 6 "Load"): one server instance holds N concurrent project streams
 * (default 1,000); a ticket is updated through the HTTP API and the bench measures the delay from
 * sending the update to the event's arrival at every client (median and p99 over all deliveries,
 * and per update the time until the last client had it), against a baseline of one stream in the
 * same run, plus the server's resident memory per idle stream.
 *
 *   npm run bench:sse                        # SQLite in a temporary directory
 *   BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npm run bench:sse
 *                                            # PostgreSQL: a fresh database is created and dropped
 *   BENCH_STREAMS=2000 BENCH_ROUNDS=50 npm run bench:sse
 *
 * The server runs as a separate process (node --import tsx src/server/main.ts), so its memory is
 * measured alone (/proc/<pid>/status VmRSS, Linux).
 */
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { startProcess } from '../test/helpers/server.js';

const STREAMS = Number(process.env.BENCH_STREAMS ?? 1000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 30);
const USERS = Math.min(20, STREAMS);
const PASSWORD = 'Bench-password-42';
const _root = path.resolve(import.meta.dirname, '..');

let server: ChildProcess | null = null;
let dataDir = '';
let database: string | null = null;
const serverErrors: string[] = [];
const pgBase = process.env.BENCH_DATABASE_URL;

function rssKb(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
}

async function startServer(): Promise<{ url: string; pid: number }> {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'docket-bench-sse-'));
  let databaseUrl = '';
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
  const started = await startProcess({
    args: ['--import', 'tsx', 'src/server/main.ts'],
    env: {
      PORT: '0',
      HOST: '127.0.0.1',
      DOCKET_DATA_DIR: dataDir,
      DATABASE_URL: databaseUrl,
      DOCKET_LOG_LEVEL: 'info',
      DOCKET_REGISTER_LIMIT: '100000',
      DOCKET_LOGIN_LIMIT: '100000',
      DOCKET_DRAIN_SECONDS: '0',
    },
    ready: 'listening',
    onStdout: (chunk) => {
      for (const line of chunk.split('\n')) if (/"level":(50|60)/.test(line)) serverErrors.push(line);
    },
  });
  server = started.child;
  return { url: started.url, pid: started.child.pid as number };
}

async function api(base: string, method: string, url: string, cookie: string | null, body?: unknown) {
  const res = await fetch(`${base}${url}`, {
    method,
    headers: {
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      ...(cookie ? { cookie } : {}),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (res.status >= 400) throw new Error(`${method} ${url}: ${res.status} ${text}`);
  return { res, json: text ? JSON.parse(text) : null };
}

async function account(base: string, username: string) {
  await api(base, 'POST', '/api/auth/register', null, { username, password: PASSWORD });
  const { res, json } = await api(base, 'POST', '/api/auth/callback/credentials', null, {
    username,
    password: PASSWORD,
  });
  const cookie = res.headers
    .getSetCookie()
    .map((c) => c.split(';')[0])
    .find((c) => c.startsWith('docket_session='))!;
  return { cookie, userId: json.user.id as string };
}

/**
 * One stream client on a raw TCP socket (the HTTP client's parser would cost more than the server's
 * work and the bench would measure itself): records when each `round-N` title first arrives.
 */
class Client {
  private socket: net.Socket | null = null;
  readonly arrivals = new Map<number, number>();
  /** Arrival minus the event's timestamp (taken by the server when it wrote the event). */
  readonly sinceWrite = new Map<number, number>();
  private waiter: { round: number; resolve: () => void } | null = null;
  ready!: Promise<void>;

  open(url: string, cookie: string) {
    const u = new URL(url);
    this.ready = new Promise((resolve, reject) => {
      const socket = net.connect(Number(u.port), u.hostname, () => {
        socket.write(
          `GET ${u.pathname} HTTP/1.1\r\nHost: ${u.host}\r\nCookie: ${cookie}\r\nAccept: text/event-stream\r\n\r\n`,
        );
      });
      this.socket = socket;
      socket.setEncoding('latin1');
      let buf = '';
      let first = true;
      socket.on('data', (chunk: string) => {
        const now = performance.now();
        const wall = performance.timeOrigin + now;
        if (first) {
          first = false;
          if (!chunk.startsWith('HTTP/1.1 200')) reject(new Error(`stream answered ${chunk.slice(0, 40)}`));
          else resolve();
        }
        buf += chunk;
        const end = buf.lastIndexOf('\n\n');
        if (end < 0) return;
        const text = buf.slice(0, end);
        buf = buf.slice(end + 2);
        for (const m of text.matchAll(/"title":"round-(\d+)"[^\n]*"timestamp":"([^"]+)"\}/g)) {
          const round = Number(m[1]);
          if (this.arrivals.has(round)) continue;
          this.arrivals.set(round, now);
          this.sinceWrite.set(round, wall - Date.parse(m[2]));
          if (this.waiter?.round === round) {
            this.waiter.resolve();
            this.waiter = null;
          }
        }
      });
      socket.on('error', reject);
    });
  }

  arrived(round: number): Promise<void> {
    if (this.arrivals.has(round)) return Promise.resolve();
    return new Promise((resolve) => {
      this.waiter = { round, resolve };
    });
  }

  close() {
    this.socket?.destroy();
  }
}

const pct = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function measure(
  clients: Client[],
  update: (round: number) => Promise<void>,
  rounds: number,
  first: number,
) {
  const all: number[] = [];
  const fromWrite: number[] = [];
  const lastArrival: number[] = [];
  for (let r = first; r < first + rounds; r++) {
    const t0 = performance.now();
    const done = Promise.all(clients.map((c) => c.arrived(r)));
    await update(r);
    await done;
    let max = 0;
    for (const c of clients) {
      const d = c.arrivals.get(r)! - t0;
      all.push(d);
      fromWrite.push(c.sinceWrite.get(r)!);
      if (d > max) max = d;
    }
    lastArrival.push(max);
    await sleep(30);
  }
  all.sort((a, b) => a - b);
  fromWrite.sort((a, b) => a - b);
  lastArrival.sort((a, b) => a - b);
  return {
    median: pct(all, 50),
    p99: pct(all, 99),
    lastMedian: pct(lastArrival, 50),
    lastP99: pct(lastArrival, 99),
    writeMedian: pct(fromWrite, 50),
    writeP99: pct(fromWrite, 99),
  };
}

async function main() {
  const { url, pid } = await startServer();
  const owner = await account(url, `bench_owner_${randomBytes(3).toString('hex')}`);
  const project = (await api(url, 'POST', '/api/projects', owner.cookie, { name: 'Bench', key: 'BENCH' }))
    .json;
  const ticket = (
    await api(url, 'POST', `/api/projects/${project.id}/tickets`, owner.cookie, { title: 'round-start' })
  ).json;
  const users = [owner];
  for (let i = 1; i < USERS; i++) {
    const u = await account(url, `bench_u${i}_${randomBytes(3).toString('hex')}`);
    await api(url, 'POST', `/api/projects/${project.id}/members`, owner.cookie, {
      userId: u.userId,
      role: 'member',
    });
    users.push(u);
  }
  const streamUrl = `${url}/api/projects/${project.id}/events`;
  const update = async (round: number) => {
    await api(url, 'PATCH', `/api/projects/${project.id}/tickets/${ticket.id}`, owner.cookie, {
      title: `round-${round}`,
    });
  };

  // Warm up (JIT, statement caches), then the one-stream baseline.
  const single = new Client();
  single.open(streamUrl, owner.cookie);
  await single.ready;
  await measure([single], update, 10, 0);
  const baseline = await measure([single], update, ROUNDS, 1000);
  single.close();
  await sleep(1000);

  const rssBefore = rssKb(pid);
  const clients: Client[] = [];
  const tOpen = performance.now();
  for (let i = 0; i < STREAMS; i++) {
    const c = new Client();
    c.open(streamUrl, users[i % users.length].cookie);
    clients.push(c);
    if (i % 100 === 99) await Promise.all(clients.slice(i - 99, i + 1).map((x) => x.ready));
  }
  await Promise.all(clients.map((c) => c.ready));
  const openMs = performance.now() - tOpen;
  await sleep(3000);
  const rssIdle = rssKb(pid);
  const loaded = await measure(clients, update, ROUNDS, 2000);
  const rssAfter = rssKb(pid);
  for (const c of clients) c.close();

  const f = (n: number) => n.toFixed(1);
  const rows = [
    [
      'scenario',
      'streams',
      'median ms',
      'p99 ms',
      'last client median',
      'last client p99',
      'from write median',
      'from write p99',
    ],
    ...(
      [
        ['baseline', 1, baseline],
        ['loaded', STREAMS, loaded],
      ] as const
    ).map(([name, n, m]) => [
      name,
      String(n),
      f(m.median),
      f(m.p99),
      f(m.lastMedian),
      f(m.lastP99),
      f(m.writeMedian),
      f(m.writeP99),
    ]),
  ];
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  console.log(
    `\nSSE fan-out: ${pgBase ? 'PostgreSQL' : 'SQLite'}, ${ROUNDS} ticket updates per scenario, Node ${process.version}, ` +
      `${os.cpus().length} CPUs, load average ${os.loadavg()[0].toFixed(1)}`,
  );
  for (const r of rows) console.log(`| ${r.map((c, i) => c.padEnd(widths[i])).join(' | ')} |`);
  console.log(
    `\nratio loaded/baseline: median x${f(loaded.median / baseline.median)}, p99 x${f(loaded.p99 / baseline.p99)}`,
  );
  console.log(`opening ${STREAMS} streams took ${f(openMs)} ms`);
  console.log(
    `server RSS: ${(rssBefore / 1024).toFixed(1)} MB before, ${(rssIdle / 1024).toFixed(1)} MB with ${STREAMS} idle streams ` +
      `(${f((rssIdle - rssBefore) / STREAMS)} KB per stream), ${(rssAfter / 1024).toFixed(1)} MB after the updates`,
  );
}

async function cleanup() {
  if (server && server.exitCode === null) {
    const s = server;
    await new Promise<void>((resolve) => {
      s.once('exit', () => resolve());
      s.kill('SIGTERM');
    });
  }
  if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
  if (database && pgBase) {
    const c = new pg.Client({ connectionString: pgBase });
    await c.connect();
    await c.query(`drop database if exists "${database}" with (force)`);
    await c.end();
  }
}

main()
  .then(cleanup)
  .catch(async (err) => {
    console.error(err);
    for (const line of serverErrors.slice(-5)) console.error(line);
    await cleanup();
    process.exit(1);
  });
