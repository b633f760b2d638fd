/**
 * Statements and round trips per request, for the speed run's scenarios (issue 47): a count that
 * holds on a loaded machine, where requests per second do not. Builds the app in-process (default
 * log level, as `npm start`), seeds a project like ../shared/speed-run (10 columns, 20 labels, 4
 * members, tickets with labels and assignees) over the API, then sends each scenario's request a
 * few times and prints, per request, the statements the database ran and, on PostgreSQL, the round
 * trips to it (Db.statements and Db.roundTrips: a held-back BEGIN or a statement sent with the
 * COMMIT is no round trip of its own), and with BENCH_TRACE=1 their SQL.
 *
 *   npx tsx bench/statements.ts                                   # SQLite
 *   BENCH_DATABASE_URL=postgres://… npx tsx bench/statements.ts   # PostgreSQL (a schema of its own)
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import pg from 'pg';
import { loadConfig } from '../src/config.js';
import { buildApp } from '../src/server/app.js';

const pgUrl = process.env.BENCH_DATABASE_URL;
const TICKETS = Number(process.env.BENCH_TICKETS ?? 200);
const trace = process.env.BENCH_TRACE === '1';

/** Every message sent to the database, as its SQL text (the driver's own functions, wrapped). */
const sent: string[] = [];
if (pgUrl) {
  const query = pg.Client.prototype.query;
  pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
    const first = args[0] as string | { text?: string };
    sent.push(typeof first === 'string' ? first : (first?.text ?? '?'));
    return (query as (...a: unknown[]) => unknown).apply(this, args);
  } as never;
} else {
  const probe = new BetterSqlite3(':memory:');
  const proto = Object.getPrototypeOf(probe.prepare('select 1'));
  probe.close();
  for (const m of ['run', 'get', 'all', 'iterate'] as const) {
    const f = proto[m];
    proto[m] = function (this: { source: string }, ...args: unknown[]) {
      sent.push(this.source);
      return f.apply(this, args);
    };
  }
}

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'docket-statements-'));
const config = loadConfig({
  DOCKET_DATA_DIR: dataDir,
  DOCKET_LOG_LEVEL: 'info',
  DOCKET_REGISTER_LIMIT: '100000',
  DOCKET_LOGIN_LIMIT: '100000',
  ...(pgUrl ? { DATABASE_URL: pgUrl } : {}),
});
if (pgUrl) config.pgSchema = `bench_${randomBytes(5).toString('hex')}`;
// The access lines to a file of their own: this script's output is the report.
const app = await buildApp(config, { logger: { level: 'info', stream: fs.createWriteStream('/dev/null') } });
const db = app.services.db;

async function inject(method: string, url: string, cookie: string, payload?: unknown) {
  const res = await app.inject({
    method: method as 'GET',
    url,
    headers: { cookie },
    payload: payload as never,
  });
  if (res.statusCode >= 300) throw new Error(`${method} ${url}: ${res.statusCode} ${res.body}`);
  return res.json();
}

async function register(username: string) {
  const password = 'Bench-password-42';
  await app.inject({
    method: 'POST',
    url: '/api/auth/register',
    payload: { username, password, email: `${username}@example.com`, name: username },
  });
  const res = await app.inject({
    method: 'POST',
    url: '/api/auth/callback/credentials',
    payload: { username, password },
  });
  const c = res.cookies.find((x) => x.name === 'docket_session');
  return { cookie: `docket_session=${c?.value}`, id: res.json().user.id as string };
}

try {
  const admin = await register('bench-admin');
  const project = await inject('POST', '/api/projects', admin.cookie, { name: 'Counted', key: 'CNT' });
  const P = `/api/projects/${project.id}`;
  for (let i = 3; i < 10; i++) await inject('POST', `${P}/columns`, admin.cookie, { name: `Stage ${i + 1}` });
  const columns = (await inject('GET', `${P}/columns`, admin.cookie)) as { id: string }[];
  const labels: string[] = [];
  for (let i = 0; i < 20; i++)
    labels.push((await inject('POST', `${P}/labels`, admin.cookie, { name: `label-${i}` })).id);
  const members: string[] = [];
  for (let i = 0; i < 4; i++) {
    const m = await register(`bench-member-${i}`);
    await inject('POST', `${P}/members`, admin.cookie, { userId: m.id, role: 'member' });
    members.push(m.id);
  }
  const ids: string[] = [];
  let made = 0;
  const seedOne = async (i: number) => {
    const t = await inject('POST', `${P}/tickets`, admin.cookie, {
      title: `Seeded ticket ${i}`,
      description: `Seeded ticket ${i}.\n\n- step one\n- step two`,
      type: 'Task',
      priority: 'Medium',
      columnId: columns[i % columns.length].id,
      storyPoints: 3,
      assigneeId: members[i % members.length],
      labelIds: [labels[i % 20], labels[(i * 7) % 20]],
    });
    ids.push(t.id);
  };
  // Eight in flight, as the speed run seeds.
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      while (made < TICKETS) await seedOne(made++);
    }),
  );
  let n = 0;
  const pick = () => ids[n++ % ids.length];
  const scenarios: [string, () => Promise<unknown>, (() => Promise<unknown>)?][] = [
    ['(a) full read by id, cached', () => inject('GET', `${P}/tickets/${ids[0]}`, admin.cookie)],
    ['(a) full read by id, uncached', () => inject('GET', `${P}/tickets/${pick()}`, admin.cookie)],
    [
      '(a) the same, project read often',
      () => inject('GET', `${P}/tickets/${pick()}`, admin.cookie),
      // Its columns' ranks kept (SQLite, src/domain/column-ranks.ts) by the reads before.
      async () => {
        for (let i = 0; i < 30; i++) await inject('GET', `${P}/tickets/${pick()}`, admin.cookie);
      },
    ],
    [
      '(b) list of one column',
      () => inject('GET', `${P}/tickets?columnId=${columns[1].id}`, admin.cookie),
      // A change in the project first: the list is read again, not served from the cache.
      () => inject('PATCH', `${P}/tickets/${ids[1]}`, admin.cookie, { title: `changed ${n++}` }),
    ],
    [
      '(c) create',
      () =>
        inject('POST', `${P}/tickets`, admin.cookie, {
          title: `created ${n++}`,
          type: 'Task',
          priority: 'Medium',
          columnId: columns[0].id,
        }),
    ],
    [
      '(c2) create as teams make them',
      () =>
        inject('POST', `${P}/tickets`, admin.cookie, {
          title: `created ${n++}`,
          description: 'What and why, with **Markdown**.',
          type: 'Bug',
          priority: 'High',
          columnId: columns[2].id,
          storyPoints: 5,
          assigneeId: members[n % members.length],
          labelIds: [labels[n % 20], labels[(n + 3) % 20]],
        }),
    ],
    [
      '(d) move (column and order)',
      () =>
        inject('PATCH', `${P}/tickets/${pick()}`, admin.cookie, {
          columnId: columns[n % columns.length].id,
          order: n % 5,
        }),
    ],
    [
      '(e) comment',
      () =>
        inject('POST', `${P}/tickets/${pick()}/comments`, admin.cookie, {
          content: `Bench comment ${n++}: looks good to me, shipping it.`,
        }),
    ],
  ];
  console.log(`${pgUrl ? 'PostgreSQL' : 'SQLite'}, ${TICKETS} tickets`);
  console.log(`scenario                           statements  ${pgUrl ? 'round trips' : ''}`);
  for (const [name, fn, before] of scenarios) {
    // The first runs warm the session and access answers; the last is counted.
    await fn();
    await fn();
    await before?.();
    const s0 = db.statements();
    // Db.roundTrips; counted from the driver's messages where the seam has no counter (before it).
    const trips0 = () => (typeof db.roundTrips === 'function' ? db.roundTrips() : sent.length);
    const r0 = trips0();
    const from = sent.length;
    await fn();
    const trips = pgUrl ? String(trips0() - r0) : '';
    console.log(`${name.padEnd(36)} ${String(db.statements() - s0).padStart(10)} ${trips.padStart(12)}`);
    // The messages sent (PostgreSQL) or statements run (SQLite), as the driver saw them.
    const mine = sent.slice(from).filter((s) => s !== 'pragma data_version');
    if (trace)
      for (const s of mine)
        console.log(`    ${s.replace(/\s+/g, ' ').slice(0, Number(process.env.BENCH_TRACE_WIDTH ?? 220))}`);
  }
} finally {
  await app.close();
  if (process.env.BENCH_KEEP === '1') console.log(`kept: ${config.pgSchema ?? dataDir}`);
  else if (config.pgSchema && pgUrl) {
    const c = new pg.Client({ connectionString: pgUrl });
    await c.connect();
    await c.query(`drop schema if exists "${config.pgSchema}" cascade`);
    await c.end();
  }
  if (process.env.BENCH_KEEP !== '1') fs.rmSync(dataDir, { recursive: true, force: true });
}
