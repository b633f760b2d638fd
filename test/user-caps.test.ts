/**
 * Issue 49: per-user caps. Event streams over all of one user's sessions and keys stop at
 * DOCKET_STREAMS_PER_USER (429); signing in past DOCKET_SESSIONS_PER_USER ends the session idle
 * longest (its streams close), also when the sign-ins come at once.
 */
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';
import { createTestApp, type TestApp } from './helpers/app.js';
import { PASSWORD, signIn, signUp } from './helpers/factories.js';
import { SseClient } from './helpers/sse.js';

describe('the configuration', () => {
  it('has the caps of the issue by default and refuses values that are not positive whole numbers', () => {
    const c = loadConfig({});
    expect(c.streamsPerUser).toBe(64);
    expect(c.sessionsPerUser).toBe(50);
    const set = loadConfig({ DOCKET_STREAMS_PER_USER: '5', DOCKET_SESSIONS_PER_USER: '3' });
    expect([set.streamsPerUser, set.sessionsPerUser]).toEqual([5, 3]);
    expect(() => loadConfig({ DOCKET_STREAMS_PER_USER: '0' })).toThrow(/DOCKET_STREAMS_PER_USER/);
    expect(() => loadConfig({ DOCKET_SESSIONS_PER_USER: 'many' })).toThrow(/DOCKET_SESSIONS_PER_USER/);
  });
});

describe('event streams per user', () => {
  let t: TestApp;
  let url: string;
  const streams: SseClient[] = [];
  beforeAll(async () => {
    t = await createTestApp({ DOCKET_STREAMS_PER_USER: '5' });
    await signUp(t.app);
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    url = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    for (const s of streams) s.close();
    await t?.close();
  });
  const open = async (path: string, headers: Record<string, string>) => {
    const s = await SseClient.open(`${url}${path}`, headers);
    streams.push(s);
    return s;
  };

  it('answers 429 past the cap over all of a user’s sessions and keys, and lets one in again when one closes', async () => {
    const u = await signUp(t.app);
    const second = await signIn(t.app, u.username);
    const key = (await u.post('/api/me/api-keys', { name: 'K', scope: 'read' })).json().key as string;
    const held = [
      await open('/api/users/events', { cookie: u.cookie }),
      await open('/api/projects/events', { cookie: u.cookie }),
      await open('/api/users/events', { cookie: second.cookie }),
      await open('/api/users/events', { cookie: second.cookie }),
      await open('/api/users/events', { authorization: `Bearer ${key}` }),
    ];
    for (const s of held) expect(s.status).toBe(200);
    const credentials: Record<string, string>[] = [
      { cookie: u.cookie },
      { cookie: second.cookie },
      { authorization: `Bearer ${key}` },
    ];
    for (const headers of credentials) {
      const over = await open('/api/projects/events', headers);
      expect(over.status).toBe(429);
      expect(JSON.parse(over.body)).toEqual({ error: 'Too many event streams' });
    }
    // Another user is not affected.
    const other = await signUp(t.app);
    expect((await open('/api/users/events', { cookie: other.cookie })).status).toBe(200);
    // One closes: one more may open.
    held[0].close();
    await held[0].waitForEnd();
    let again: SseClient | undefined;
    for (let i = 0; i < 50; i++) {
      again = await open('/api/users/events', { authorization: `Bearer ${key}` });
      if (again.status === 200) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(again?.status).toBe(200);
  }, 30_000);

  it('holds when many streams are asked for at once', async () => {
    const u = await signUp(t.app);
    const asked = await Promise.all(
      Array.from({ length: 12 }, () => open('/api/users/events', { cookie: u.cookie })),
    );
    expect(asked.filter((s) => s.status === 200)).toHaveLength(5);
    expect(asked.filter((s) => s.status === 429)).toHaveLength(7);
  }, 30_000);
});

describe('sessions per user', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ DOCKET_SESSIONS_PER_USER: '3' });
    await signUp(t.app);
  });
  afterAll(async () => t?.close());
  const db = () => t.app.services.db.kysely;

  it('ends the oldest session when a sign-in passes the cap, and records it', async () => {
    const u = await signUp(t.app);
    const more = [await signIn(t.app, u.username), await signIn(t.app, u.username)];
    expect((await u.get('/api/me')).statusCode).toBe(200);
    const fourth = await signIn(t.app, u.username);
    expect((await u.get('/api/me')).statusCode).toBe(401);
    for (const c of [...more, fourth]) expect((await c.get('/api/me')).statusCode).toBe(200);
    expect((await fourth.get('/api/me/sessions')).json()).toHaveLength(3);
    const entry = await db()
      .selectFrom('audit_log')
      .select(['actor_id', 'details'])
      .where('action', '=', 'session.ended')
      .where('target_id', '=', u.userId)
      .executeTakeFirstOrThrow();
    expect(entry.actor_id).toBe(u.userId);
    expect(JSON.parse(entry.details as string)).toEqual({ reason: 'session limit', count: 1, limit: 3 });
  });

  it('ends the session idle longest, not one in use', async () => {
    const u = await signUp(t.app);
    const b = await signIn(t.app, u.username);
    const c = await signIn(t.app, u.username);
    // The three signed in an hour ago; the first was used since.
    const hourAgo = new Date(Date.now() - 3_600_000).toISOString();
    await db()
      .updateTable('sessions')
      .set({ created_at: hourAgo, last_used_at: hourAgo })
      .where('user_id', '=', u.userId)
      .execute();
    expect((await u.get('/api/me')).statusCode).toBe(200);
    await signIn(t.app, u.username);
    expect((await u.get('/api/me')).statusCode).toBe(200);
    const answers = [(await b.get('/api/me')).statusCode, (await c.get('/api/me')).statusCode];
    expect(answers.sort()).toEqual([200, 401]);
  });

  it('closes the streams of the session it ends', async () => {
    const u = await signUp(t.app);
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const url = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}/api/users/events`;
    const s = await SseClient.open(url, { cookie: u.cookie });
    try {
      expect(s.status).toBe(200);
      for (let i = 0; i < 3; i++) await signIn(t.app, u.username);
      await s.waitForEnd(2000);
    } finally {
      s.close();
    }
  }, 20_000);

  it('holds when many sign-ins come at once', async () => {
    const u = await signUp(t.app);
    const signIns = await Promise.all(
      Array.from({ length: 12 }, () =>
        t.app.inject({
          method: 'POST',
          url: '/api/auth/callback/credentials',
          payload: { username: u.username, password: PASSWORD },
        }),
      ),
    );
    expect(signIns.map((r) => r.statusCode)).toEqual(Array(12).fill(200));
    const left = await db().selectFrom('sessions').select('id').where('user_id', '=', u.userId).execute();
    expect(left).toHaveLength(3);
  }, 30_000);
});
