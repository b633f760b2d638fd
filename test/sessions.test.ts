/** My sessions (issue 19): listed with their browser and address, ended one by one or all but this one. */
import type net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './helpers/app.js';
import { type Client, clientFor, cookieFrom, PASSWORD, signUp } from './helpers/factories.js';
import { SseClient } from './helpers/sse.js';

let t: TestApp;

beforeAll(async () => {
  t = await createTestApp();
  await signUp(t.app);
});
afterAll(async () => t.close());

async function signInWith(username: string, agent: string, address: string): Promise<Client> {
  const res = await t.app.inject({
    method: 'POST',
    url: '/api/auth/callback/credentials',
    payload: { username, password: PASSWORD },
    headers: { 'user-agent': agent },
    remoteAddress: address,
  });
  expect(res.statusCode, res.body).toBe(200);
  const cookie = cookieFrom(res);
  return {
    userId: res.json().user.id,
    username,
    cookie,
    isSystemAdmin: false,
    ...clientFor(t.app, { cookie }),
  };
}

describe('sessions', () => {
  it('lists my sessions with browser, address, use and which one is current', async () => {
    const u = await signUp(t.app);
    const laptop = await signInWith(u.username, 'Firefox on the laptop', '10.0.0.7');
    await signInWith(u.username, 'Safari on the phone', '10.0.0.8');
    const other = await signUp(t.app);
    const res = await laptop.get('/api/me/sessions');
    expect(res.statusCode).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    const list = res.json();
    expect(list).toHaveLength(3); // signUp's session, the laptop and the phone
    const mine = list.find((s: { current: boolean }) => s.current);
    expect(mine).toMatchObject({ userAgent: 'Firefox on the laptop', address: '10.0.0.7' });
    expect(list.filter((s: { current: boolean }) => s.current)).toHaveLength(1);
    expect(list.map((s: { userAgent: string }) => s.userAgent)).toContain('Safari on the phone');
    for (const s of list) {
      expect(Object.keys(s).sort()).toEqual(
        ['address', 'createdAt', 'current', 'expiresAt', 'id', 'lastUsedAt', 'userAgent'].sort(),
      );
    }
    // Nothing of another user's sessions.
    expect(JSON.stringify(list)).not.toContain(other.userId);
    expect((await other.get('/api/me/sessions')).json()).toHaveLength(1);
  });

  it('ends one session: it is signed out, its streams close, and another user cannot end it', async () => {
    const u = await signUp(t.app);
    const phone = await signInWith(u.username, 'Phone', '10.0.0.9');
    const phoneId = (await phone.get('/api/me/sessions'))
      .json()
      .find((s: { current: boolean }) => s.current).id;
    const stranger = await signUp(t.app);
    expect((await stranger.del(`/api/me/sessions/${phoneId}`)).statusCode).toBe(404);
    expect((await stranger.del(`/api/me/sessions/${phoneId}`)).json()).toEqual({
      error: 'Session not found',
    });
    expect((await phone.get('/api/me')).statusCode).toBe(200);

    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = t.app.server.address() as net.AddressInfo;
    const stream = await SseClient.open(`http://127.0.0.1:${port}/api/users/events`, {
      cookie: phone.cookie,
    });
    expect(stream.status).toBe(200);

    const ended = await u.del(`/api/me/sessions/${phoneId}`);
    expect(ended.json()).toEqual({ success: true });
    expect((await phone.get('/api/me')).statusCode).toBe(401);
    await stream.waitForEnd(5000);
    expect(stream.ended).toBe(true);
    // The session that ended it goes on.
    expect((await u.get('/api/me')).statusCode).toBe(200);
    expect((await u.del(`/api/me/sessions/${phoneId}`)).statusCode).toBe(404);
  });

  it('ends every other session and keeps this one; ending my own session signs me out', async () => {
    const u = await signUp(t.app);
    const a = await signInWith(u.username, 'A', '10.0.1.1');
    const b = await signInWith(u.username, 'B', '10.0.1.2');
    const res = await a.del('/api/me/sessions');
    expect(res.json()).toEqual({ success: true, ended: 2 });
    expect((await u.get('/api/me')).statusCode).toBe(401);
    expect((await b.get('/api/me')).statusCode).toBe(401);
    expect((await a.get('/api/me/sessions')).json()).toHaveLength(1);
    const id = (await a.get('/api/me/sessions')).json()[0].id;
    const self = await a.del(`/api/me/sessions/${id}`);
    expect(self.statusCode).toBe(200);
    expect(self.cookies.find((c) => c.name === 'docket_session')?.value).toBe('');
    expect((await a.get('/api/me')).statusCode).toBe(401);
  });

  it('refuses API keys', async () => {
    const u = await signUp(t.app);
    const key = (await u.post('/api/me/mcp-key')).json().apiKey;
    const k = clientFor(t.app, { apiKey: key });
    expect((await k.get('/api/me/sessions')).statusCode).toBe(403);
    expect((await k.del('/api/me/sessions')).statusCode).toBe(403);
  });
});
