import type { ChildProcess } from 'node:child_process';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dialect } from './helpers/app.js';
import { PASSWORD, unique } from './helpers/factories.js';
import { type ProcessDatabase, processDatabase } from './helpers/instances.js';
import { type ServerProcess, startDocketFromSource } from './helpers/server.js';
import { SseClient } from './helpers/sse.js';

/**
 * Two real server processes on one database (a fresh PostgreSQL database, or one SQLite file): a
 * change made through one instance reaches the stream clients of the other, in log order.
 */

interface Instance {
  url: string;
  child: ChildProcess;
}

const servers: ServerProcess[] = [];
const clients: SseClient[] = [];
let database: ProcessDatabase;
let a: Instance;
let b: Instance;

async function startInstance(name: string): Promise<Instance> {
  const started = await startDocketFromSource({
    ...database.env,
    DOCKET_LOG_LEVEL: 'info',
    DOCKET_SSE_KEEPALIVE_SECONDS: '0.3',
    DOCKET_REGISTER_LIMIT: '1000',
    DOCKET_ADMIN_USERNAME: '',
    DOCKET_ADMIN_PASSWORD: '',
  }).catch((err: Error) => {
    throw new Error(`instance ${name} did not start: ${err.message}`);
  });
  servers.push(started);
  return { url: started.url, child: started.child };
}

async function signUpVia(inst: Instance): Promise<{ cookie: string; userId: string; username: string }> {
  const username = unique('mi');
  const reg = await fetch(`${inst.url}/api/auth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username, password: PASSWORD }),
  });
  expect(reg.status).toBe(201);
  return signInVia(inst, username);
}

async function signInVia(inst: Instance, username: string) {
  const res = await fetch(`${inst.url}/api/auth/callback/credentials`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username, password: PASSWORD }),
  });
  expect(res.status).toBe(200);
  const cookie = res.headers
    .getSetCookie()
    .map((c) => c.split(';')[0])
    .find((c) => c.startsWith('docket_session='))!;
  return { cookie, userId: (await res.json()).user.id as string, username };
}

async function rename(inst: Instance, cookie: string, name: string) {
  const res = await fetch(`${inst.url}/api/me`, {
    method: 'PATCH',
    headers: { 'content-type': 'application/json', cookie },
    body: JSON.stringify({ name }),
  });
  expect(res.status).toBe(200);
}

async function listen(inst: Instance, cookie: string, headers: Record<string, string> = {}) {
  const c = await SseClient.open(`${inst.url}/api/users/events`, { cookie, ...headers });
  clients.push(c);
  expect(c.status).toBe(200);
  await c.until(() => c.messages.length > 0, 10_000, 'the first message');
  return c;
}

beforeAll(async () => {
  database = await processDatabase('mi');
  a = await startInstance('A');
  b = await startInstance('B');
}, 120_000);

afterAll(async () => {
  for (const c of clients) c.close();
  await Promise.all(servers.map((s) => s.stop()));
  await database?.drop();
}, 60_000);

describe(`two server processes on one ${dialect === 'postgres' ? 'PostgreSQL database' : 'SQLite file'}`, () => {
  it('delivers a change made through instance A to a client of instance B, and the other way round', async () => {
    const user = await signUpVia(a);
    const onB = await signInVia(b, user.username);
    const streamB = await listen(b, onB.cookie);
    const streamA = await listen(a, user.cookie);
    await rename(a, user.cookie, 'Via A');
    // Well within the 30 s safety poll: the NOTIFY (PostgreSQL) or the 1 s poll (SQLite) brought it.
    const m = await streamB.waitForType('user.updated', 5000);
    expect(m.json?.data).toMatchObject({ id: user.userId, name: 'Via A' });
    await rename(b, onB.cookie, 'Via B');
    await streamA.until(
      () => streamA.events.some((e) => e.json?.data.name === 'Via B'),
      10_000,
      'Via B on A',
    );
  });

  it('gives clients of both instances the same events in the same order', async () => {
    const user = await signUpVia(a);
    const onB = await signInVia(b, user.username);
    const streamA = await listen(a, user.cookie);
    const streamB = await listen(b, onB.cookie);
    const writer = (inst: Instance, cookie: string, prefix: string) => async () => {
      for (let i = 0; i < 10; i++) await rename(inst, cookie, `${prefix}${i}`);
    };
    if (dialect === 'postgres') {
      // Both instances write at the same time.
      await Promise.all([writer(a, user.cookie, 'a')(), writer(b, onB.cookie, 'b')()]);
    } else {
      // SQLite serves one process at a time: two processes writing at the same instant can get
      // SQLITE_BUSY, so they take turns here (the events still come from both instances).
      for (let i = 0; i < 10; i++) {
        await rename(a, user.cookie, `a${i}`);
        await rename(b, onB.cookie, `b${i}`);
      }
    }
    const mine = (s: SseClient) => s.events.filter((e) => e.json?.data.id === user.userId);
    await streamA.until(() => mine(streamA).length >= 20, 15_000, '20 events on A');
    await streamB.until(() => mine(streamB).length >= 20, 15_000, '20 events on B');
    const idsA = mine(streamA).map((e) => Number(e.id));
    const idsB = mine(streamB).map((e) => Number(e.id));
    expect(idsA).toEqual(idsB);
    expect([...idsA].sort((x, y) => x - y)).toEqual(idsA);
    expect(new Set(idsA).size).toBe(20);
  });

  it('resumes on instance B from the last event id seen on instance A', async () => {
    const user = await signUpVia(a);
    const onB = await signInVia(b, user.username);
    const streamA = await listen(a, user.cookie);
    await rename(a, user.cookie, 'seen on A');
    const seen = await streamA.waitForType('user.updated', 10_000);
    streamA.close();
    await rename(a, user.cookie, 'missed');
    const resumed = await listen(b, onB.cookie, { 'last-event-id': seen.id! });
    const m = await resumed.until(
      () => resumed.events.find((e) => e.json?.data.name === 'missed'),
      10_000,
      'missed',
    );
    expect(resumed.events[0]).toBe(m);
  });

  it('ends a stream on instance B when its session is signed out through instance A', async () => {
    const user = await signUpVia(a);
    const streamB = await listen(b, user.cookie);
    const out = await fetch(`${a.url}/api/auth/signout`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json', cookie: user.cookie },
      body: '{}',
    });
    expect(out.status).toBe(200);
    await streamB.waitForEnd(10_000);
  });

  if (dialect === 'postgres') {
    it('reconnects the LISTEN connection after PostgreSQL drops it and delivers what happened meanwhile', async () => {
      const user = await signUpVia(a);
      const onB = await signInVia(b, user.username);
      const streamB = await listen(b, onB.cookie);
      const admin = new pg.Client({ connectionString: database.env.DATABASE_URL });
      await admin.connect();
      try {
        const listeners = `select pid from pg_stat_activity where datname = current_database() and application_name = 'docket-events'`;
        expect((await admin.query(listeners)).rowCount).toBe(2);
        await admin.query(`select pg_terminate_backend(pid) from (${listeners}) l`);
        await rename(a, user.cookie, 'while B was not listening');
        const m = await streamB.waitForType('user.updated', 10_000);
        expect(m.json?.data.name).toBe('while B was not listening');
        const deadline = Date.now() + 10_000;
        while ((await admin.query(listeners)).rowCount !== 2 && Date.now() < deadline)
          await new Promise((r) => setTimeout(r, 100));
        expect((await admin.query(listeners)).rowCount).toBe(2);
        await rename(a, user.cookie, 'listening again');
        await streamB.until(
          () => streamB.events.some((e) => e.json?.data.name === 'listening again'),
          10_000,
          'after reconnect',
        );
      } finally {
        await admin.end();
      }
    });
  }
});
