import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dialect } from './helpers/app.js';
import { newKey } from './helpers/board.js';
import { PASSWORD } from './helpers/factories.js';
import { multipartBody } from './helpers/files.js';
import { type Balancer, haproxyInstalled, startBalancer } from './helpers/haproxy.js';
import { type HttpUser, type ProcessDatabase, processDatabase, signUpOver } from './helpers/instances.js';
import { type S3Server, startS3Server } from './helpers/s3-server.js';
import { type ServerProcess, startDocketFromSource } from './helpers/server.js';
import { SseClient } from './helpers/sse.js';

/**
 * Two Docket instances on one PostgreSQL database and one S3 bucket (a real S3 test server) behind
 * HAProxy (Debian's package, running the shipped deploy/haproxy.cfg), without sticky sessions: what
 * a client does through the balancer works whichever instance answers, a file uploaded to one
 * instance is served by the other, a stream follows a forced switch with Last-Event-ID,
 * the login limit holds across both, and an instance killed under load loses no acknowledged write.
 * PostgreSQL only: SQLite is one machine's embedded database (docs/deploy.md).
 */
const METRICS_TOKEN = 'balanced-metrics-token-123';

let db: ProcessDatabase;
let s3: S3Server;
let bucket: string;
let a: ServerProcess;
let b: ServerProcess;
let lb: Balancer;
const streams: SseClient[] = [];

const hostOf = (s: ServerProcess) => new URL(s.url).host;

async function startInstance(name: string): Promise<ServerProcess> {
  return startDocketFromSource({
    ...db.env,
    // Each instance its own disk: whatever they share goes through the database and the bucket.
    DOCKET_DATA_DIR: `${db.dataDir}/${name}`,
    ...s3.env(bucket),
    DOCKET_TRUST_PROXY: '1',
    DOCKET_LOGIN_LIMIT: '3',
    DOCKET_METRICS_TOKEN: METRICS_TOKEN,
    DOCKET_SSE_KEEPALIVE_SECONDS: '0.5',
    DOCKET_DRAIN_SECONDS: '1',
    DOCKET_ADMIN_USERNAME: '',
    DOCKET_ADMIN_PASSWORD: '',
  });
}

/** One series of an instance's /metrics (summed over the lines that carry these labels). */
async function metric(s: ServerProcess, name: string, labels: Record<string, string> = {}): Promise<number> {
  const res = await fetch(`${s.url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
  expect(res.status).toBe(200);
  let sum = 0;
  for (const line of (await res.text()).split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    if (Object.entries(labels).every(([k, v]) => line.includes(`${k}="${v}"`)))
      sum += Number(line.split(' ').pop());
  }
  return sum;
}

async function waitFor(check: () => Promise<boolean>, what: string, ms = 15_000) {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const run = dialect === 'postgres' && haproxyInstalled();

beforeAll(async () => {
  if (!run) return;
  db = await processDatabase('lb');
  s3 = await startS3Server();
  bucket = await s3.createBucket();
  // One after the other: the second finds the schema migrated (both would also wait on the lock).
  a = await startInstance('a');
  b = await startInstance('b');
  lb = await startBalancer(hostOf(a), hostOf(b));
}, 180_000);

afterAll(async () => {
  for (const s of streams) s.close();
  await lb?.stop();
  await Promise.all([a?.stop(), b?.stop()]);
  await s3?.stop();
  await db?.drop();
}, 60_000);

describe.runIf(run)('two instances behind HAProxy on one PostgreSQL', () => {
  let user: HttpUser;
  let projectId: string;

  it('signs in through the balancer, and every request works whichever instance answers it', async () => {
    user = await signUpOver(lb.url, 'lb');
    const created = await user.send(lb.url, 'POST', '/api/projects', { name: 'Balanced', key: newKey('LB') });
    expect(created.status).toBe(201);
    projectId = ((await created.json()) as { id: string }).id;
    for (let i = 0; i < 6; i++) {
      const res = await user.send(lb.url, 'GET', `/api/projects/${projectId}`);
      expect(res.status).toBe(200);
    }
    // Round robin without stickiness: both instances served this session's reads.
    const served = { method: 'GET', route: '/api/projects/:projectId', status: '200' };
    expect(await metric(a, 'docket_http_request_duration_seconds_count', served)).toBeGreaterThanOrEqual(1);
    expect(await metric(b, 'docket_http_request_duration_seconds_count', served)).toBeGreaterThanOrEqual(1);
  });

  it('serves a file uploaded to one instance from the other, through the shared bucket', async () => {
    const bytes = Buffer.from(`Release notes for the balanced test ${Date.now()}\n`);
    const { payload, headers } = multipartBody([
      { filename: 'notes.txt', contentType: 'text/plain', data: bytes },
    ]);
    const up = await fetch(`${a.url}/api/upload`, {
      method: 'POST',
      headers: { ...headers, cookie: user.cookie },
      body: payload,
    });
    expect(up.status).toBe(201);
    const { url } = (await up.json()) as { url: string };
    const name = url.split('/').pop() as string;
    expect((await s3.keys(bucket)).some((k) => k.endsWith(name))).toBe(true);
    // B has its own, empty disk: only the bucket can answer.
    const direct = await fetch(`${b.url}${url}`, { headers: { cookie: user.cookie } });
    expect(direct.status).toBe(200);
    expect(Buffer.from(await direct.arrayBuffer())).toEqual(bytes);
    for (let i = 0; i < 4; i++) {
      const res = await fetch(`${lb.url}${url}`, { headers: { cookie: user.cookie } });
      expect(res.status).toBe(200);
      expect(Buffer.from(await res.arrayBuffer())).toEqual(bytes);
    }
    // Access control holds on every instance: no cookie, no file.
    expect((await fetch(`${b.url}${url}`)).status).toBe(401);
  });

  it('follows a project stream across a switch the balancer forces, replaying what it missed', async () => {
    const first = await SseClient.open(`${lb.url}/api/projects/${projectId}/events`, { cookie: user.cookie });
    streams.push(first);
    expect(first.status).toBe(200);
    await first.until(() => first.messages.length > 0, 10_000, 'the first message');
    const holder = (await metric(a, 'docket_event_streams_open')) === 1 ? 'a' : 'b';
    const other = holder === 'a' ? b : a;
    expect(await metric(holder === 'a' ? a : b, 'docket_event_streams_open')).toBe(1);

    const before = await user.send(lb.url, 'POST', `/api/projects/${projectId}/tickets`, { title: 'Before' });
    expect(before.status).toBe(201);
    await first.waitForType('ticket.created', 10_000);
    const lastId = first.messages[first.messages.length - 1].id as string;

    // The balancer takes the stream's instance out and cuts its connections.
    await lb.command(`set server docket_instances/${holder} state maint`);
    await lb.command(`shutdown sessions server docket_instances/${holder}`);
    await first.waitForEnd(10_000);

    const missed: string[] = [];
    for (const title of ['While away 1', 'While away 2', 'While away 3']) {
      const res = await user.send(lb.url, 'POST', `/api/projects/${projectId}/tickets`, { title });
      expect(res.status).toBe(201);
      missed.push(((await res.json()) as { id: string }).id);
    }
    const resumed = await SseClient.open(`${lb.url}/api/projects/${projectId}/events`, {
      cookie: user.cookie,
      'last-event-id': lastId,
    });
    streams.push(resumed);
    expect(resumed.status).toBe(200);
    await resumed.until(
      () => resumed.events.filter((m) => m.json?.type === 'ticket.created').length >= 3,
      10_000,
      'the three missed tickets',
    );
    const replayed = resumed.events
      .filter((m) => m.json?.type === 'ticket.created')
      .map((m) => m.json?.data.id);
    expect(replayed).toEqual(missed);
    expect(await metric(other, 'docket_event_streams_open')).toBe(1);
    // And live again on the other instance.
    const after = await user.send(lb.url, 'POST', `/api/projects/${projectId}/tickets`, { title: 'Live' });
    const live = ((await after.json()) as { id: string }).id;
    await resumed.until(
      () => resumed.events.some((m) => m.json?.data?.id === live),
      10_000,
      'the live ticket',
    );
    resumed.close();

    await lb.command(`set server docket_instances/${holder} state ready`);
    await waitFor(async () => (await lb.states())[holder] === 'UP', `instance ${holder} back up`);
  });

  it('holds the login limit across both instances', async () => {
    const victim = await signUpOver(lb.url, 'lim');
    const codes: number[] = [];
    for (let i = 0; i < 4; i++) {
      const res = await fetch(`${lb.url}/api/auth/callback/credentials`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-forwarded-for': `10.9.0.${i}` },
        body: JSON.stringify({ username: victim.username, password: 'Wrong-password-1' }),
      });
      codes.push(res.status);
    }
    expect(codes).toEqual([401, 401, 401, 429]);
    // The right password now waits too, on either instance.
    for (const s of [a, b]) {
      const res = await fetch(`${s.url}/api/auth/callback/credentials`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ username: victim.username, password: PASSWORD }),
      });
      expect(res.status).toBe(429);
    }
    // Both instances took part in counting.
    const failed = { route: '/api/auth/callback/credentials', status: '401' };
    expect(await metric(a, 'docket_http_request_duration_seconds_count', failed)).toBeGreaterThanOrEqual(1);
    expect(await metric(b, 'docket_http_request_duration_seconds_count', failed)).toBeGreaterThanOrEqual(1);
  });

  it('loses no acknowledged write when an instance is killed under load', async () => {
    const acknowledged: string[] = [];
    let refused = 0;
    let stop = false;
    const writer = async (w: number) => {
      for (let i = 0; !stop; i++) {
        try {
          const res = await user.send(lb.url, 'POST', `/api/projects/${projectId}/tickets`, {
            title: `Load ${w}-${i}`,
          });
          if (res.status === 201) acknowledged.push(((await res.json()) as { id: string }).id);
          else refused++;
        } catch {
          refused++;
        }
      }
    };
    const writers = Promise.all([0, 1, 2, 3].map(writer));
    await waitFor(async () => acknowledged.length >= 20, '20 acknowledged writes');
    b.child.kill('SIGKILL');
    const atKill = acknowledged.length;
    await waitFor(async () => (await lb.states()).b === 'DOWN', 'the balancer to mark b down');
    await waitFor(async () => acknowledged.length >= atKill + 20, '20 more writes on the surviving instance');
    stop = true;
    await writers;

    expect(acknowledged.length).toBeGreaterThanOrEqual(atKill + 20);
    for (const id of acknowledged) {
      const res = await user.send(lb.url, 'GET', `/api/projects/${projectId}/tickets/${id}`);
      expect(res.status, `acknowledged ticket ${id}`).toBe(200);
    }
    // Requests refused or cut by the kill were never acknowledged: the clients would send them again.
    console.info(`kill under load: ${acknowledged.length} acknowledged, ${refused} refused or cut`);
  }, 90_000);
});
