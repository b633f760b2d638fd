/**
 * What being observable costs (issue 22): the same Docket started twice from its sources, without
 * and with DOCKET_METRICS_TOKEN (every request then goes through the onResponse timing hook, every
 * statement through the query-time histogram), and autocannon against the same cached ticket read
 * on each, in turn, BENCH_ROUNDS times. It prints requests per second, latency percentiles and the
 * median of the rounds' ratios (metrics on / off), plus the time one scrape of /metrics takes.
 * Aim: the ratio at 0.9 or more.
 *
 *   npm run bench:operations                      # SQLite in temporary directories
 *   BENCH_DURATION=10 BENCH_ROUNDS=5 npm run bench:operations
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { PASSWORD } from '../test/helpers/factories.js';
import { type ServerProcess, startDocketFromSource } from '../test/helpers/server.js';

const DURATION = Number(process.env.BENCH_DURATION ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
const TOKEN = 'bench-metrics-token-0123456789';

interface Target {
  name: string;
  server: ServerProcess;
  dir: string;
  url: string;
  headers: Record<string, string>;
}

async function json(res: Response, status: number) {
  if (res.status !== status) throw new Error(`${res.url}: ${res.status} ${await res.text()}`);
  return res.json() as Promise<Record<string, unknown>>;
}

/** A server with one user, one project and one ticket; answers the ticket's URL and the cookie. */
async function target(name: string, env: Record<string, string>): Promise<Target> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `docket-bench-ops-${name}-`));
  const server = await startDocketFromSource({
    DOCKET_DATA_DIR: dir,
    DATABASE_URL: '',
    DOCKET_LOG_LEVEL: 'warn',
    DOCKET_ADMIN_USERNAME: '',
    DOCKET_ADMIN_PASSWORD: '',
    ...env,
  });
  const post = (p: string, body: unknown, cookie = '') =>
    fetch(`${server.url}${p}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(cookie ? { cookie } : {}) },
      body: JSON.stringify(body),
    });
  await json(await post('/api/auth/register', { username: 'bench', password: PASSWORD }), 201);
  const signIn = await post('/api/auth/callback/credentials', { username: 'bench', password: PASSWORD });
  await json(signIn.clone(), 200);
  const cookie = signIn.headers
    .getSetCookie()
    .map((c) => c.split(';')[0])
    .find((c) => c.startsWith('docket_session=')) as string;
  const project = await json(await post('/api/projects', { name: 'Bench', key: 'BEN' }, cookie), 201);
  await json(await post(`/api/projects/${project.id}/tickets`, { title: 'Read me' }, cookie), 201);
  return { name, server, dir, url: `${server.url}/api/projects/BEN/tickets/BEN-1`, headers: { cookie } };
}

async function load(t: Target) {
  await autocannon({ url: t.url, connections: CONNECTIONS, duration: 1, headers: t.headers });
  const r = await autocannon({
    url: t.url,
    connections: CONNECTIONS,
    duration: DURATION,
    headers: t.headers,
  });
  if (r.errors || r.non2xx || r.timeouts)
    throw new Error(`${t.name}: ${r.errors} errors, ${r.non2xx} non-2xx, ${r.timeouts} timeouts`);
  return { rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99 };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function main() {
  const off = await target('off', {});
  const on = await target('on', { DOCKET_METRICS_TOKEN: TOKEN });
  try {
    const ratios: number[] = [];
    for (let round = 1; round <= ROUNDS; round++) {
      const a = await load(off);
      const b = await load(on);
      ratios.push(b.rps / a.rps);
      console.log(
        `round ${round}: metrics off ${a.rps.toFixed(0)} req/s (p50 ${a.p50} / p99 ${a.p99} ms), ` +
          `on ${b.rps.toFixed(0)} req/s (p50 ${b.p50} / p99 ${b.p99} ms), ratio ${(b.rps / a.rps).toFixed(3)}`,
      );
    }
    const scrapes: number[] = [];
    for (let i = 0; i < 20; i++) {
      const t0 = performance.now();
      const res = await fetch(`${on.server.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
      if (res.status !== 200) throw new Error(`/metrics: ${res.status}`);
      await res.text();
      scrapes.push(performance.now() - t0);
    }
    const ratio = median(ratios);
    console.log(`full ticket read, metrics on / off: median ratio ${ratio.toFixed(3)} (aim >= 0.9)`);
    console.log(`one scrape of /metrics: median ${median(scrapes).toFixed(1)} ms`);
  } finally {
    for (const t of [off, on]) {
      await t.server.stop();
      fs.rmSync(t.dir, { recursive: true, force: true });
    }
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
