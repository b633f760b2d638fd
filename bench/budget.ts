/**
 * The performance budget (issue 11), one command: `npm run bench`.
 *
 * For SQLite, and for PostgreSQL when BENCH_DATABASE_URL (or DOCKET_TEST_DATABASE_URL) names a
 * server (a fresh database is created there and dropped after): builds the data set of
 * bench/dataset.ts (20 projects, 100 users, 100,000 tickets with labels, watchers, comments,
 * history and sprints), starts the real server on it (start-up time measured until it listens) and a
 * bare Fastify route serving 1 KB of JSON (bench/bare-server.ts), then runs autocannon against each
 * scenario and prints requests per second, p50 and p99 latency, and the ratio to the bare route
 * measured in the same run. Also: server memory (RSS) after the load, and the database size. The
 * aims of issues 16 and 24 are then measured again in rounds, each ratio's runs back to back, and
 * printed as the median of the rounds (see ROUNDS).
 *
 *   npm run bench
 *   BENCH_DURATION=10 BENCH_CONNECTIONS=10 npm run bench
 *   BENCH_ONLY=sqlite npm run bench          # or postgres
 *   BENCH_TICKETS_PER_PROJECT=500 npm run bench   # a quick smaller run
 *   BENCH_ROUNDS=3 npm run bench             # rounds of the aims' runs, each aim their median (default 5)
 *   BENCH_IMPORT=0 npm run bench             # without the imports of 100,000 Jira CSV rows (issue 21,
 *                                            # bench/import.ts: about a minute per database, quiet)
 *   BENCH_CPU_PROF=/tmp/prof npm run bench   # each Docket server writes a CPU profile there when it stops
 *   BENCH_HEAP_SNAPSHOT=/tmp/heap npm run bench   # and a heap snapshot once the load has stopped
 *   BENCH_SEARCH=1 npm run bench             # then search at 10,000 and 1,000,000 tickets (issue 17's
 *                                            # aims, bench/search.ts; long: see docs/performance.md)
 */
import { type ChildProcess, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import pg from 'pg';
import { connect } from '../src/db/connect.js';
import { migrateToLatest } from '../src/db/migrate.js';
import { newId } from '../src/domain/ids.js';
import { startProcess } from '../test/helpers/server.js';
import { buildDataset } from './dataset.js';
import { generate } from './generate.js';

const DURATION = Number(process.env.BENCH_DURATION ?? 5);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
const PER_PROJECT = Number(process.env.BENCH_TICKETS_PER_PROJECT ?? 5_000);
/**
 * Rounds of the aims' scenarios (after the table's pass): each round measures a group's runs back to
 * back (the bare route, the reads; creates and the moves), and each aim is the median of its
 * rounds' ratios, so that the machine's drift (the bare route itself swings by half on this shared
 * 2-core machine) weighs on both sides of a ratio instead of on one.
 */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length === 0 ? Number.NaN : s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const _root = path.resolve(import.meta.dirname, '..');
const pgBase = process.env.BENCH_DATABASE_URL ?? process.env.DOCKET_TEST_DATABASE_URL;
const only = process.env.BENCH_ONLY;
const children: ChildProcess[] = [];
/** The Docket server under test, whose last output is printed when a scenario fails. */
let serverUnderTest: { output(): string } | undefined;

/** A server process, ready when it prints `listening at` (start-up is timed to it). */
async function start(
  args: string[],
  env: Record<string, string>,
): Promise<{ url: string; child: ChildProcess; ms: number; output(): string }> {
  // Docket as `npm start` runs it (the built server: main() builds it first); the
  // bare route from its TypeScript source.
  const profile = [
    ...(process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : []),
    ...(process.env.BENCH_HEAP_SNAPSHOT
      ? ['--heapsnapshot-signal=SIGUSR2', `--diagnostic-dir=${process.env.BENCH_HEAP_SNAPSHOT}`]
      : []),
  ];
  const node = args[0].startsWith('dist/') ? [...profile, ...args] : ['--import', 'tsx', ...args];
  const started = await startProcess({ args: node, env, ready: 'listening' });
  children.push(started.child);
  return started;
}

interface Result {
  name: string;
  rps: number;
  p50: number;
  p99: number;
  /** The read cache's hits among its look-ups during the run (from /metrics), when known. */
  hitRate?: number;
}

/** The server under test's read-cache counters, set once it runs. */
let cacheCounters: { base: string; read: () => Promise<{ hits: number; misses: number } | null> } | null =
  null;

async function readCacheCounters(base: string) {
  const res = await fetch(`${base}/metrics`, { headers: { authorization: `Bearer ${metricsToken}` } }).catch(
    () => null,
  );
  if (!res?.ok) return null;
  const text = await res.text();
  const n = (result: string) =>
    Number(
      new RegExp(`^docket_read_cache_lookups_total\\{result="${result}"\\} (\\S+)`, 'm').exec(text)?.[1] ?? 0,
    );
  return { hits: n('hit'), misses: n('miss') };
}

type Req = { method?: string; path?: string; body?: string; headers?: Record<string, string> };

async function run(
  name: string,
  url: string,
  opts: {
    method?: string;
    headers?: Record<string, string>;
    body?: () => string;
    /** A path per request (for requests that each name another record). */
    path?: () => string;
    connections?: number;
  } = {},
): Promise<Result> {
  const connections = opts.connections ?? CONNECTIONS;
  const headers = { ...(opts.body ? { 'content-type': 'application/json' } : {}), ...opts.headers };
  const requests =
    opts.body || opts.path
      ? [
          {
            method: opts.method ?? (opts.body ? 'POST' : 'GET'),
            setupRequest: (r: Req) => ({
              ...r,
              ...(opts.body ? { body: opts.body() } : {}),
              ...(opts.path ? { path: opts.path() } : {}),
            }),
          },
        ]
      : undefined;
  const cfg = { url, connections, headers, method: (opts.method ?? 'GET') as 'GET', requests };
  await autocannon({ ...cfg, duration: 1 } as never);
  const counted = cacheCounters && url.startsWith(cacheCounters.base) ? cacheCounters : null;
  const before = await counted?.read();
  const r = await autocannon({ ...cfg, duration: DURATION } as never);
  const after = before ? await counted?.read() : null;
  if (r.errors || r.non2xx || r.timeouts)
    throw new Error(`${name}: ${r.errors} errors, ${r.non2xx} non-2xx, ${r.timeouts} timeouts`);
  const looked = before && after ? after.hits + after.misses - before.hits - before.misses : 0;
  const hitRate = before && after && looked > 0 ? (after.hits - before.hits) / looked : undefined;
  return { name, rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, hitRate };
}

const metricsToken = randomBytes(16).toString('hex');

/** Where the server's memory is, from its /metrics (V8 heap used and reserved, buffers outside it). */
async function memoryParts(base: string): Promise<string> {
  const res = await fetch(`${base}/metrics`, { headers: { authorization: `Bearer ${metricsToken}` } });
  if (!res.ok) return `(no metrics: ${res.status})`;
  const text = await res.text();
  const mb = (name: string) => {
    const v = new RegExp(`^${name} (\\S+)`, 'm').exec(text)?.[1];
    return v ? `${Math.round(Number(v) / 2 ** 20)} MB` : '?';
  };
  return `heap used ${mb('nodejs_heap_size_used_bytes')} of ${mb('nodejs_heap_size_total_bytes')}, outside the heap ${mb('nodejs_external_memory_bytes')}`;
}

function rssMb(pid: number, field = 'VmRSS'): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? 0);
  return Math.round(kb / 1024);
}

/** What the resident memory is made of: anonymous memory (heaps, allocators) and mapped files (code). */
function rssParts(pid: number): string {
  return `${rssMb(pid, 'RssAnon')} MB anonymous, ${rssMb(pid, 'RssFile')} MB mapped files`;
}

async function bench(dialect: 'sqlite' | 'postgres') {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'docket-budget-'));
  let databaseUrl = '';
  let database: string | null = null;
  if (dialect === 'postgres' && pgBase) {
    database = `docket_budget_${randomBytes(5).toString('hex')}`;
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
    const data = await buildDataset(db, { ticketsPerProject: PER_PROJECT });
    // The moves project: columns of 10, 10,000, 10 and 10 cards (a move's cost must not grow with
    // its column), joined by the signed-in user.
    const moves = await generate(db, {
      tickets: 10_030,
      inColumn: 10_000,
      key: `MV${Date.now().toString(36).toUpperCase()}`.slice(0, 10),
    });
    const mainUser = await db.kysely
      .selectFrom('users')
      .select('id')
      .where('username', '=', data.main.username)
      .executeTakeFirstOrThrow();
    await db.kysely
      .insertInto('project_members')
      .values({
        id: newId(),
        project_id: moves.projectId,
        user_id: mainUser.id,
        role: 'member',
        created_at: new Date().toISOString(),
      })
      .execute();
    await db.close();
    if (dialect === 'postgres') {
      const c = new pg.Client({ connectionString: databaseUrl });
      await c.connect();
      await c.query('vacuum analyze');
      await c.end();
    }
    console.log(
      `\n[${dialect}] generated ${data.projects.length} projects, ${data.users} users, ${data.tickets} tickets, ${data.comments} comments, ${data.history} history entries in ${(data.millis / 1000).toFixed(1)} s`,
    );

    // The server as `npm start` runs it (default log level), on this data set.
    const serverEnv = {
      PORT: '0',
      HOST: '127.0.0.1',
      DOCKET_DATA_DIR: dataDir,
      DATABASE_URL: databaseUrl,
      DOCKET_LOG_LEVEL: 'info',
      DOCKET_LOGIN_LIMIT: '1000000',
      DOCKET_METRICS_TOKEN: metricsToken,
    };
    const [docket, bare] = await Promise.all([
      start(['dist/server/main.js'], serverEnv),
      start(['bench/bare-server.ts'], {}),
    ]);
    serverUnderTest = docket;
    cacheCounters = { base: docket.url, read: () => readCacheCounters(docket.url) };
    const base = docket.url;
    const { main } = data;
    const signIn = JSON.stringify({ username: main.username, password: main.password });
    const sessionOn = async (url: string) => {
      const login = await fetch(`${url}/api/auth/callback/credentials`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: signIn,
      });
      if (login.status !== 200) throw new Error(`login failed: ${login.status} ${await login.text()}`);
      const found = login.headers
        .getSetCookie()
        .map((c) => c.split(';')[0])
        .find((c) => c.startsWith('docket_session='));
      if (!found) throw new Error('no session cookie');
      return found;
    };
    const cookie = await sessionOn(base);
    const auth = { cookie };
    const get = async (p: string) => (await fetch(`${base}${p}`, { headers: auth })).json();
    const P = `/api/projects/${main.projectKey}`;
    const board = (await get(`${P}/tickets?columnId=${main.busyColumnId}`)) as { id: string }[];
    console.log(
      `[${dialect}] the board list of ${board.length} is ${Math.round(JSON.stringify(board).length / 1024)} KB of JSON`,
    );
    if (board.length !== Math.min(1000, PER_PROJECT))
      throw new Error(`the board column has ${board.length} tickets`);
    const projects = (await get('/api/projects')) as unknown[];
    if (projects.length !== 21) throw new Error(`the project list has ${projects.length}`);
    const columns = (await get(`${P}/columns`)) as { id: string }[];
    const M = `/api/projects/${moves.projectKey}`;
    const moveColumns = (await get(`${M}/columns`)) as { id: string }[];
    const small = (await get(`${M}/tickets?columnId=${moveColumns[0].id}`)) as { id: string }[];
    const huge = (await get(`${M}/tickets?columnId=${moves.busyColumnId}`)) as { id: string }[];
    if (small.length !== 10 || huge.length !== 10_000)
      throw new Error(`the moves project has columns of ${small.length} and ${huge.length}`);
    const random = (n: number) => Math.floor(Math.random() * n);
    const bulkIds = board.slice(100, 200).map((t) => t.id);
    const keyRes = await fetch(`${base}/api/me/mcp-key`, { method: 'POST', headers: auth });
    const apiKey = ((await keyRes.json()) as { apiKey: string }).apiKey;
    const mcpHeaders = { authorization: `Bearer ${apiKey}`, accept: 'application/json, text/event-stream' };
    const mcp = (name: string, args: Record<string, unknown>) =>
      JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } });
    const probe = await fetch(`${base}/api/mcp`, {
      method: 'POST',
      headers: { ...mcpHeaders, 'content-type': 'application/json' },
      body: mcp('list_tickets', { projectKey: main.projectKey, limit: 20 }),
    });
    const probeText = await probe.text();
    const hasMcp = probe.status === 200 && !probeText.includes('"isError":true');
    if (!hasMcp) console.log(`MCP over HTTP not measured: ${probe.status} ${probeText.slice(0, 200)}`);

    let n = 0;
    const results: Result[] = [];
    results.push(await run('bare 1 KB JSON', `${bare.url}/bare`));
    results.push(await run('sign-in', `${base}/api/auth/callback/credentials`, { body: () => signIn }));
    results.push(await run('project list (20)', `${base}/api/projects`, { headers: auth }));
    results.push(
      await run('board list of 1,000', `${base}${P}/tickets?columnId=${main.busyColumnId}`, {
        headers: auth,
      }),
    );
    // Full reads as users make them: spread over every ticket of a 10,000-ticket project, quiet and
    // while 20 writes a second land in another project; the one hot ticket is the best case.
    const spread = () => `${M}/tickets/${moves.projectKey}-${1 + random(moves.tickets)}`;
    const other = data.projects[1];
    const elsewhere = async <T>(fn: () => Promise<T>): Promise<T> => {
      let w = 0;
      const timer = setInterval(() => {
        void fetch(
          `${base}/api/projects/${other.projectKey}/tickets/${other.projectKey}-${1 + random(other.tickets)}`,
          {
            method: 'PATCH',
            headers: { ...auth, 'content-type': 'application/json' },
            body: JSON.stringify({ priority: w++ % 2 ? 'Low' : 'High' }),
          },
        ).then((r) => r.arrayBuffer());
      }, 50);
      try {
        return await fn();
      } finally {
        clearInterval(timer);
      }
    };
    // Warm: every ticket of the project read once first, so that the quiet and busy runs below
    // compare a warm cache with itself (the cold case is the server without a cache, at the end).
    const warm = async () => {
      let next = 1;
      await Promise.all(
        Array.from({ length: CONNECTIONS }, async () => {
          while (next <= moves.tickets) {
            const n = next++;
            await (
              await fetch(`${base}${M}/tickets/${moves.projectKey}-${n}`, { headers: auth })
            ).arrayBuffer();
          }
        }),
      );
    };
    await warm();
    const bareRun = () => run('bare 1 KB JSON', `${bare.url}/bare`);
    const quietRead = () =>
      run('full read, spread over 10k', `${base}${spread()}`, { headers: auth, path: spread });
    const busyRead = () =>
      elsewhere(() =>
        run('full read, spread, +writes', `${base}${spread()}`, { headers: auth, path: spread }),
      );
    const busyList = () =>
      elsewhere(() =>
        run('board list of 1k, +writes', `${base}${P}/tickets?columnId=${main.busyColumnId}`, {
          headers: auth,
        }),
      );
    results.push(await quietRead());
    results.push(await busyRead());
    // The whole 100,000-ticket data set: a random ticket of a random project of the 20.
    const anywhere = () => {
      const q = data.projects[random(data.projects.length)];
      return `/api/projects/${q.projectKey}/tickets/${q.projectKey}-${1 + random(q.tickets)}`;
    };
    results.push(
      await run('full read, spread over 100k', `${base}${anywhere()}`, { headers: auth, path: anywhere }),
    );
    results.push(
      await run('full read, one hot ticket', `${base}${P}/tickets/${main.sampleTicketKey}`, {
        headers: auth,
      }),
    );
    results.push(await busyList());
    // The reads' rounds, before any write lands in the measured projects: the project read once more
    // (the spread over 100k above pushed part of it out of the cache), then the bare route, the read
    // quiet and with writes elsewhere, and the list of 1,000 with writes elsewhere, back to back.
    const readRounds: Result[][] = [];
    for (let r = 0; r < ROUNDS; r++) {
      await warm();
      readRounds.push([await bareRun(), await quietRead(), await busyRead(), await busyList()]);
    }
    const create = () =>
      run('ticket create', `${base}${P}/tickets`, {
        headers: auth,
        body: () =>
          JSON.stringify({ title: `Load ticket ${n++}`, priority: 'High', columnId: columns[0].id }),
      });
    results.push(await create());
    // Moves: a random card of the column to a random place in it (the column keeps its size), for
    // columns of 10, 1,000 and 10,000 cards; then random cards of the 1,000-card column to a random
    // column and place (PATCH columnId + order).
    const moveWithin = (label: string, prefix: string, ids: { id: string }[]) =>
      run(label, `${base}${prefix}/tickets/${ids[0].id}`, {
        headers: auth,
        method: 'PATCH',
        path: () => `${prefix}/tickets/${ids[random(ids.length)].id}`,
        body: () => JSON.stringify({ order: random(ids.length) }),
      });
    const moveRuns = [
      () => moveWithin('move in a column of 10', M, small),
      () => moveWithin('move in a column of 1,000', P, board),
      () => moveWithin('move in a column of 10,000', M, huge),
      () =>
        run('move to a random column', `${base}${P}/tickets/${board[0].id}`, {
          headers: auth,
          method: 'PATCH',
          path: () => `${P}/tickets/${board[random(board.length)].id}`,
          body: () => JSON.stringify({ columnId: columns[random(columns.length)].id, order: random(1_000) }),
        }),
    ];
    for (const move of moveRuns) results.push(await move());
    results.push(
      await run('comment create', `${base}${P}/tickets/${main.sampleTicketKey}/comments`, {
        headers: auth,
        body: () => JSON.stringify({ content: `Load comment ${n++}` }),
      }),
    );
    results.push(
      await run('bulk update of 100', `${base}${P}/tickets`, {
        headers: auth,
        method: 'PATCH',
        body: () => JSON.stringify({ ticketIds: bulkIds, updates: { priority: n++ % 2 ? 'Low' : 'High' } }),
      }),
    );
    if (hasMcp) {
      results.push(
        await run('MCP list_tickets', `${base}/api/mcp`, {
          headers: mcpHeaders,
          body: () => mcp('list_tickets', { projectKey: main.projectKey, limit: 20 }),
        }),
      );
      results.push(
        await run('MCP create_ticket', `${base}/api/mcp`, {
          headers: mcpHeaders,
          body: () => mcp('create_ticket', { projectKey: main.projectKey, title: `MCP ticket ${n++}` }),
        }),
      );
    }
    // The writes' rounds (see ROUNDS): the bare route, a create, the four moves, back to back.
    const writeRounds: Result[][] = [];
    for (let r = 0; r < ROUNDS; r++) {
      const round = [await bareRun(), await create()];
      for (const move of moveRuns) round.push(await move());
      writeRounds.push(round);
    }
    const memory = rssMb(docket.child.pid as number);
    // And once the load has stopped for 10 s (V8 gives back heap it no longer needs when idle).
    await new Promise((r) => setTimeout(r, 10_000));
    const settled = rssMb(docket.child.pid as number);
    const heap = `${await memoryParts(base)}; ${rssParts(docket.child.pid as number)}`;
    if (process.env.BENCH_HEAP_SNAPSHOT) {
      // A heap snapshot of the server as the load left it (BENCH_HEAP_SNAPSHOT=dir).
      fs.writeFileSync(
        path.join(process.env.BENCH_HEAP_SNAPSHOT, `smaps-${dialect}`),
        fs.readFileSync(`/proc/${docket.child.pid}/smaps`),
      );
      const before = new Set(fs.readdirSync(process.env.BENCH_HEAP_SNAPSHOT));
      docket.child.kill('SIGUSR2');
      const dir = process.env.BENCH_HEAP_SNAPSHOT;
      for (let i = 0; i < 600; i++) {
        await new Promise((r) => setTimeout(r, 500));
        const made = fs.readdirSync(dir).find((f) => !before.has(f) && f.endsWith('.heapsnapshot'));
        if (!made) continue;
        // Written when its size stops changing.
        const size = () => fs.statSync(path.join(dir, made)).size;
        let last = -1;
        while (size() !== last) {
          last = size();
          await new Promise((r) => setTimeout(r, 2000));
        }
        console.log(`[${dialect}] heap snapshot: ${path.join(dir, made)}`);
        break;
      }
    }
    let dbSize = 0;
    if (dialect === 'sqlite') {
      for (const f of ['docket.db', 'docket.db-wal']) {
        const s = fs.statSync(path.join(dataDir, f), { throwIfNoEntry: false });
        dbSize += s?.size ?? 0;
      }
    } else {
      const c = new pg.Client({ connectionString: databaseUrl });
      await c.connect();
      dbSize = Number((await c.query('select pg_database_size(current_database()) as n')).rows[0].n);
      await c.end();
    }
    for (const c of [docket.child, bare.child]) c.kill('SIGTERM');

    // Start-up on the (now larger) database, measured again from a cold process.
    const again = await start(['dist/server/main.js'], {
      PORT: '0',
      HOST: '127.0.0.1',
      DOCKET_DATA_DIR: dataDir,
      DATABASE_URL: databaseUrl,
      DOCKET_LOG_LEVEL: 'info',
    });
    // Cold: the same spread reads with the read cache off (DOCKET_READ_CACHE_MB=0), what every
    // read costs when its answer is not kept.
    again.child.kill('SIGTERM');
    const cold = await start(['dist/server/main.js'], { ...serverEnv, DOCKET_READ_CACHE_MB: '0' });
    const bareAgain = await start(['bench/bare-server.ts'], {});
    {
      const coldCookie = await sessionOn(cold.url);
      const bareCold = await run('bare (for the cold run)', `${bareAgain.url}/bare`);
      const coldRead = await run('full read, spread, no cache', `${cold.url}${spread()}`, {
        headers: { cookie: coldCookie },
        path: spread,
      });
      // Against the bare route of its own run, as a rate comparable to the others.
      coldRead.rps = (coldRead.rps / bareCold.rps) * results[0].rps;
      results.push(coldRead);
    }
    cold.child.kill('SIGTERM');
    bareAgain.child.kill('SIGTERM');

    const bareRps = results[0].rps;
    console.log(`[${dialect}] ${DURATION} s per scenario, ${CONNECTIONS} connections`);
    console.log('scenario                      req/s    ratio   p50 ms   p99 ms   cache hits');
    for (const r of results)
      console.log(
        `${r.name.padEnd(26)} ${r.rps.toFixed(0).padStart(8)} ${(r.rps / bareRps).toFixed(3).padStart(8)} ${String(r.p50).padStart(8)} ${String(r.p99).padStart(8)} ${r.hitRate === undefined ? '' : `${(r.hitRate * 100).toFixed(0).padStart(9)} %`}`,
      );
    // The aims, each the median of its rounds' ratios (the runs of a ratio measured back to back).
    const inRound = (round: Result[], name: string) => round.find((r) => r.name === name) as Result;
    const fmt = (rounds: Result[][], f: (round: Result[]) => number, digits = 2) =>
      `${median(rounds.map(f)).toFixed(digits)} (rounds ${rounds.map((r) => f(r).toFixed(digits)).join(', ')})`;
    console.log(`aims: the median of ${ROUNDS} rounds, each measuring its runs back to back`);
    // The moves' names, as the rounds measured them (after the bare route and the create).
    const moveNames = (writeRounds[0] ?? []).slice(2).map((r) => r.name);
    console.log(
      `a move's cost in creates (aim <= 1.25): ${moveNames
        .map(
          (m) =>
            `${m.replace('move ', '')} ${fmt(writeRounds, (r) => inRound(r, 'ticket create').rps / inRound(r, m).rps)}`,
        )
        .join('; ')}`,
    );
    const quietOf = (r: Result[]) => inRound(r, 'full read, spread over 10k').rps;
    console.log(
      `reads while 20 writes a second land elsewhere (issue 24): full read keeps ${fmt(readRounds, (r) => inRound(r, 'full read, spread, +writes').rps / quietOf(r))} of its quiet rate (aim >= 0.8); quiet full read ${fmt(readRounds, (r) => quietOf(r) / r[0].rps)}x bare (aim ${dialect === 'sqlite' ? '0.4' : '0.25'}); board list of 1k p50 ${fmt(readRounds, (r) => inRound(r, 'board list of 1k, +writes').p50, 0)} ms (aim < 15)`,
    );
    // The rates behind the ratios, so that a round's swing shows which side moved.
    for (const [what, rounds] of [
      ['reads', readRounds],
      ['writes', writeRounds],
    ] as const)
      for (const [i, round] of rounds.entries())
        console.log(
          `  ${what} round ${i + 1} (req/s): ${round.map((r) => `${r.name} ${r.rps.toFixed(0)}`).join(', ')}`,
        );
    const createShare = writeRounds.map((r) => inRound(r, 'ticket create').rps / r[0].rps);
    console.log(`start-up until listening: ${docket.ms} ms (first), ${again.ms} ms (after the load)`);
    console.log(
      `server memory (RSS) after the load: ${memory} MB at once, ${settled} MB 10 s later (${heap})`,
    );
    console.log(`database size: ${(dbSize / 1024 / 1024).toFixed(0)} MB`);
    return { dialect, results, createShare, startup: [docket.ms, again.ms], memory, settled, dbSize };
  } finally {
    for (const c of children) if (c.exitCode === null) c.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 800));
    if (database && pgBase) {
      const c = new pg.Client({ connectionString: pgBase });
      await c.connect();
      await c.query(`drop database if exists "${database}" with (force)`);
      await c.end();
    }
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

async function main() {
  console.log(
    `machine: ${os.cpus().length} cores (${os.cpus()[0]?.model.trim()}), ${(os.totalmem() / 2 ** 30).toFixed(0)} GB, node ${process.version}, ${os.platform()} ${os.release()}`,
  );
  // Built once up front, so that the start-up times measure a start, not a build.
  const built = spawnSync(process.execPath, ['scripts/build.js'], { cwd: _root, stdio: 'inherit' });
  if (built.status !== 0) throw new Error('the build failed');
  const lite = only !== 'postgres' ? await bench('sqlite') : null;
  const post = only !== 'sqlite' && pgBase ? await bench('postgres') : null;
  if (only !== 'sqlite' && !pgBase)
    console.log('\n[postgres] skipped: set BENCH_DATABASE_URL=postgres://… to measure PostgreSQL too');
  if (process.env.BENCH_IMPORT !== '0') {
    // Issue 21's import aims: 100,000 Jira CSV rows through `docket import`, on each database measured.
    const { DATABASE_URL: _unset, ...plain } = process.env;
    const targets = [
      ...(only !== 'postgres' ? [plain] : []),
      ...(only !== 'sqlite' && pgBase ? [{ ...plain, DATABASE_URL: pgBase }] : []),
    ];
    for (const env of targets) {
      const imported = spawnSync(process.execPath, ['--import', 'tsx', 'bench/import.ts'], {
        cwd: _root,
        stdio: 'inherit',
        env,
      });
      if (imported.status !== 0) throw new Error('the import bench failed');
    }
  }
  if (process.env.BENCH_SEARCH) {
    // Issue 17's search aims: bench/search.ts at 10,000 and 1,000,000 tickets, on the same databases.
    const searched = spawnSync(process.execPath, ['--import', 'tsx', 'bench/search.ts'], {
      cwd: _root,
      stdio: 'inherit',
      env: {
        ...process.env,
        BENCH_TICKETS: process.env.BENCH_SEARCH_TICKETS ?? '10000,1000000',
        ...(pgBase ? { BENCH_DATABASE_URL: pgBase } : {}),
      },
    });
    if (searched.status !== 0) throw new Error('the search bench failed');
  }
  if (lite && post) {
    // Each database's creates against the bare route run just before them, median of the rounds.
    const share = median(post.createShare) / median(lite.createShare);
    console.log(
      `\nPostgreSQL creates as a share of SQLite's (each against the bare route run just before, median of ${ROUNDS} rounds; aim >= 0.5): ${share.toFixed(2)}`,
    );
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    if (serverUnderTest)
      console.error(`\nthe server's last output:\n${serverUnderTest.output().slice(-4000)}`);
    for (const c of children) c.kill('SIGTERM');
    process.exit(1);
  },
);
