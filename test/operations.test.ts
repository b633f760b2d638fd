import type { AddressInfo } from 'node:net';
import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MIGRATION_NAMES } from '../src/db/migrate.js';
import { createTestApp, dialect, type TestApp } from './helpers/app.js';
import { makeProject, makeTicket } from './helpers/board.js';
import { signUp } from './helpers/factories.js';
import { SseClient } from './helpers/sse.js';

/**
 * Operations (issue 22): GET /metrics in the Prometheus text format behind DOCKET_METRICS_TOKEN,
 * scraped here from a listening app, and GET /api/ready, which a balancer asks before sending work.
 */
const TOKEN = 'metrics-token-0123456789';

/** The value of one sample line, `name{labels} value`; undefined when the line is missing. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split('\n')) {
    if (line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const have = Object.fromEntries([...(m[2] ?? '').matchAll(/(\w+)="([^"]*)"/g)].map((x) => [x[1], x[2]]));
    if (Object.entries(labels).every(([k, v]) => have[k] === v)) return Number(m[3]);
  }
  return undefined;
}

describe('GET /metrics', () => {
  let t: TestApp;
  let url: string;
  const scrape = async (auth = `Bearer ${TOKEN}`) => {
    const res = await fetch(`${url}/metrics`, { headers: { authorization: auth } });
    return { status: res.status, type: res.headers.get('content-type'), text: await res.text() };
  };

  beforeAll(async () => {
    t = await createTestApp({ DOCKET_METRICS_TOKEN: TOKEN, DOCKET_SSE_KEEPALIVE_SECONDS: '0.2' });
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    url = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  });
  afterAll(async () => t.close());

  it('answers 401 without the token or with a wrong one, and 404 when no token is configured', async () => {
    expect((await fetch(`${url}/metrics`)).status).toBe(401);
    const wrong = await scrape('Bearer metrics-token-wrong-456789');
    expect(wrong.status).toBe(401);
    expect(JSON.parse(wrong.text)).toEqual({ error: 'Authentication required' });
    const off = await createTestApp();
    const res = await off.app.inject({
      method: 'GET',
      url: '/metrics',
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    expect(res.statusCode).toBe(404);
    await off.close();
  });

  it('counts requests by route pattern and status, with latency buckets', async () => {
    for (let i = 0; i < 3; i++) expect((await fetch(`${url}/api/health`)).status).toBe(200);
    expect((await fetch(`${url}/api/projects/no-such-project`)).status).toBe(401);
    const m = await scrape();
    expect(m.status).toBe(200);
    expect(m.type).toContain('text/plain');
    const health = { method: 'GET', route: '/api/health', status: '200' };
    expect(sample(m.text, 'docket_http_request_duration_seconds_count', health)).toBeGreaterThanOrEqual(3);
    expect(
      sample(m.text, 'docket_http_request_duration_seconds_bucket', { ...health, le: '+Inf' }),
    ).toBeGreaterThanOrEqual(3);
    // The pattern, not the URL: one series for every project id.
    expect(
      sample(m.text, 'docket_http_request_duration_seconds_count', {
        route: '/api/projects/:projectId',
        status: '401',
      }),
    ).toBe(1);
    expect(m.text).not.toContain('no-such-project');
  });

  it('reports open streams, fan-out lag, database time, the read cache, outboxes and memory', async () => {
    const owner = await signUp(t.app);
    const project = await makeProject(owner);
    const stream = await SseClient.open(`${url}/api/projects/${project.id}/events`, { cookie: owner.cookie });
    try {
      expect(stream.status).toBe(200);
      await stream.until(() => stream.messages.length > 0, 5000, 'the first message');
      await makeTicket(owner, project.id, { title: 'Watched' });
      await stream.waitForType('ticket.created');
      // The project read twice: the second answer comes from the read cache.
      for (let i = 0; i < 2; i++)
        expect((await owner.get(`/api/projects/${project.id}`)).statusCode).toBe(200);
      const m = (await scrape()).text;
      expect(sample(m, 'docket_event_streams_open')).toBe(1);
      expect(sample(m, 'docket_event_fanout_lag_seconds_count')).toBeGreaterThanOrEqual(1);
      expect(sample(m, 'docket_db_query_duration_seconds_count')).toBeGreaterThan(10);
      const hits = sample(m, 'docket_read_cache_lookups_total', { result: 'hit' }) ?? -1;
      const misses = sample(m, 'docket_read_cache_lookups_total', { result: 'miss' }) ?? -1;
      expect(hits + misses).toBeGreaterThanOrEqual(2);
      // On PostgreSQL, any commit in the cluster (other tests) may empty the cache between two reads.
      if (dialect === 'sqlite') expect(hits).toBeGreaterThanOrEqual(1);
      expect(sample(m, 'docket_read_cache_hit_ratio')).toBeCloseTo(hits / (hits + misses), 6);
      const pending = await t.app.services.db.kysely
        .selectFrom('mail_outbox')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('status', '=', 'pending')
        .executeTakeFirstOrThrow();
      expect(sample(m, 'docket_outbox_depth', { outbox: 'mail' })).toBe(Number(pending.n));
      expect(sample(m, 'process_resident_memory_bytes')).toBeGreaterThan(1_000_000);
      expect(sample(m, 'nodejs_heap_size_used_bytes')).toBeGreaterThan(1_000_000);
      if (dialect === 'postgres') {
        expect(sample(m, 'docket_db_pool_connections', { state: 'total' })).toBeGreaterThanOrEqual(1);
        expect(sample(m, 'docket_db_pool_connections', { state: 'waiting' })).toBe(0);
      } else {
        expect(sample(m, 'docket_db_pool_connections', { state: 'total' })).toBeUndefined();
      }
    } finally {
      stream.close();
    }
    let open: number | undefined;
    for (let i = 0; i < 50; i++) {
      open = sample((await scrape()).text, 'docket_event_streams_open');
      if (open === 0) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(open).toBe(0);
  });

  it('reports the webhook outbox, and lets another outbox add its depth', async () => {
    const text = (await scrape()).text;
    expect(sample(text, 'docket_outbox_depth', { outbox: 'webhooks' })).toBe(0);
    t.app.metrics?.addOutbox('elsewhere', async () => 7);
    expect(sample((await scrape()).text, 'docket_outbox_depth', { outbox: 'elsewhere' })).toBe(7);
  });
});

describe('GET /api/ready', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => t.close());
  const ready = () => t.app.inject({ method: 'GET', url: '/api/ready' });

  it('answers 200 with the database when the schema is this code’s', async () => {
    const res = await ready();
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ status: 'ok', database: dialect });
  });

  it('answers 503 while a migration this code knows is not applied, then 200 again', async () => {
    const db = t.app.services.db.kysely;
    const last = MIGRATION_NAMES[MIGRATION_NAMES.length - 1];
    const row = await sql<{
      name: string;
      timestamp: string;
    }>`select name, timestamp from kysely_migration where name = ${last}`.execute(db);
    await sql`delete from kysely_migration where name = ${last}`.execute(db);
    try {
      const res = await ready();
      expect(res.statusCode).toBe(503);
      expect(res.json()).toEqual({ status: 'unavailable', error: 'Migrations pending' });
      // Liveness keeps its meaning: the process and the database are fine.
      expect((await t.app.inject({ method: 'GET', url: '/api/health' })).statusCode).toBe(200);
    } finally {
      await sql`insert into kysely_migration (name, timestamp) values (${last}, ${row.rows[0].timestamp})`.execute(
        db,
      );
    }
    expect((await ready()).statusCode).toBe(200);
  });

  it.runIf(dialect === 'postgres')('answers 503 while another process holds the migration lock', async () => {
    const { connectionString } = t.app.services.db.pg ?? { connectionString: '' };
    const other = new pg.Client({ connectionString });
    await other.connect();
    try {
      await other.query('select pg_advisory_lock(727070001)');
      const res = await ready();
      expect(res.statusCode).toBe(503);
      expect(res.json()).toEqual({ status: 'unavailable', error: 'Migrations running' });
      await other.query('select pg_advisory_unlock(727070001)');
    } finally {
      await other.end();
    }
    // Other test files on this database migrate too: wait out their brief hold of the lock.
    for (let i = 0; i < 100 && (await ready()).statusCode !== 200; i++)
      await new Promise((r) => setTimeout(r, 100));
    expect((await ready()).statusCode).toBe(200);
  });

  it('answers 503 Database unreachable when the database is gone, while health says the same', async () => {
    const gone = await createTestApp();
    await gone.app.services.db.close();
    const res = await gone.app.inject({ method: 'GET', url: '/api/ready' });
    expect(res.statusCode).toBe(503);
    expect(res.json()).toEqual({ status: 'unavailable', error: 'Database unreachable' });
  });
});
