import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './helpers/app.js';
import { clientFor, cookieFrom, PASSWORD, signIn, signUp, unique } from './helpers/factories.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
  await signUp(t.app, { username: 'root_admin' }); // the first account is the administrator
});
afterAll(async () => t.close());

describe('/api/me', () => {
  it('returns my profile without secrets and updates my name', async () => {
    const u = await signUp(t.app, { name: 'Ann', email: `${unique()}@example.com` });
    const me = await u.get('/api/me');
    expect(me.statusCode).toBe(200);
    expect(me.json()).toMatchObject({
      id: u.userId,
      username: u.username,
      name: 'Ann',
      avatar: null,
      isSystemAdmin: false,
    });
    expect(Object.keys(me.json())).toEqual(
      expect.arrayContaining(['id', 'username', 'email', 'name', 'avatar', 'isSystemAdmin', 'createdAt']),
    );
    expect(JSON.stringify(me.json())).not.toMatch(/hash/i);
    const patched = await u.patch('/api/me', { name: 'Annie' });
    expect(patched.statusCode).toBe(200);
    expect(patched.json().name).toBe('Annie');
    expect((await u.patch('/api/me', { name: 'x'.repeat(101) })).statusCode).toBe(400);
  });

  it('answers 401 without a session', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/me' });
    expect(res.statusCode).toBe(401);
    expect(res.json()).toEqual({ error: 'Authentication required' });
  });

  it('changes the e-mail only with the current password, and refuses a taken address', async () => {
    const other = await signUp(t.app, { email: `${unique()}@example.com` });
    const otherMail = (await other.get('/api/me')).json().email;
    const u = await signUp(t.app);
    const wrong = await u.patch('/api/me/email', { email: 'new@example.com', password: 'Wrong-password-9' });
    expect(wrong.statusCode).toBe(400);
    expect(wrong.json()).toEqual({ error: 'Invalid password' });
    const taken = await u.patch('/api/me/email', { email: otherMail.toUpperCase(), password: PASSWORD });
    expect(taken.statusCode).toBe(400);
    expect(taken.json()).toEqual({ error: 'Email already registered' });
    const mail = `${unique()}@example.com`;
    const ok = await u.patch('/api/me/email', { email: mail, password: PASSWORD });
    expect(ok.statusCode).toBe(200);
    expect(ok.json().email).toBe(mail);
  });

  it('changes the password, ends every session and sets a fresh cookie', async () => {
    const u = await signUp(t.app);
    const other = await signIn(t.app, u.username);
    const wrong = await u.patch('/api/me/password', {
      currentPassword: 'Wrong-password-9',
      newPassword: 'Another-pass-77',
    });
    expect(wrong.statusCode).toBe(400);
    expect(wrong.json()).toEqual({ error: 'Invalid password' });
    const weak = await u.patch('/api/me/password', { currentPassword: PASSWORD, newPassword: 'weak' });
    expect(weak.statusCode).toBe(400);
    const res = await u.patch('/api/me/password', {
      currentPassword: PASSWORD,
      newPassword: 'Another-pass-77',
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      success: true,
      ended: { sessions: 1, apiKeys: [], oauthGrants: [] },
      keptApiKeys: [],
    });
    expect((await other.get('/api/me')).statusCode).toBe(401);
    expect((await u.get('/api/me')).statusCode).toBe(401);
    const fresh = clientFor(t.app, { cookie: cookieFrom(res) });
    expect((await fresh.get('/api/me')).statusCode).toBe(200);
    await signIn(t.app, u.username, 'Another-pass-77');
  });

  it('deletes the account only with the password and the confirmation text', async () => {
    const u = await signUp(t.app);
    const noText = await u.del('/api/me/account', { password: PASSWORD, confirmation: 'delete' });
    expect(noText.statusCode).toBe(400);
    const wrong = await u.del('/api/me/account', {
      password: 'Wrong-password-9',
      confirmation: 'delete my account',
    });
    expect(wrong.statusCode).toBe(400);
    expect(wrong.json()).toEqual({ error: 'Invalid password' });
    const ok = await u.del('/api/me/account', { password: PASSWORD, confirmation: 'delete my account' });
    expect(ok.statusCode).toBe(200);
    expect(ok.json()).toEqual({ success: true });
    expect((await u.get('/api/me')).statusCode).toBe(401);
    const login = await t.app.inject({
      method: 'POST',
      url: '/api/auth/callback/credentials',
      payload: { username: u.username, password: PASSWORD },
    });
    expect(login.statusCode).toBe(401);
  });
});

describe('API keys', () => {
  it('creates a key once, reports its status, authenticates with it and revokes it', async () => {
    const u = await signUp(t.app);
    expect((await u.get('/api/me/mcp-key')).json()).toEqual({
      hasKey: false,
      createdAt: null,
      lastUsedAt: null,
    });
    const created = await u.post('/api/me/mcp-key');
    expect(created.statusCode).toBe(201);
    const { apiKey } = created.json();
    expect(apiKey).toMatch(/^dk_[A-Za-z0-9_-]{40,}$/);
    const keyClient = clientFor(t.app, { apiKey });
    const me = await keyClient.get('/api/me');
    expect(me.statusCode).toBe(200);
    expect(me.json().id).toBe(u.userId);
    const status = (await u.get('/api/me/mcp-key')).json();
    expect(status.hasKey).toBe(true);
    expect(status.lastUsedAt).not.toBeNull();
    expect(JSON.stringify(status)).not.toContain(apiKey);

    const replaced = (await u.post('/api/me/mcp-key')).json().apiKey;
    expect(replaced).not.toBe(apiKey);
    expect((await keyClient.get('/api/me')).statusCode).toBe(401);

    expect((await u.del('/api/me/mcp-key')).json()).toEqual({ success: true });
    const revoked = await clientFor(t.app, { apiKey: replaced }).get('/api/me');
    expect(revoked.statusCode).toBe(401);
    expect(revoked.json()).toEqual({ error: 'Invalid API key' });
  });

  it('refuses the key on password, e-mail, account, key and admin endpoints', async () => {
    const admin = await signIn(t.app, 'root_admin');
    const { apiKey } = (await admin.post('/api/me/mcp-key')).json();
    const k = clientFor(t.app, { apiKey });
    const refused = [
      await k.patch('/api/me/password', { currentPassword: PASSWORD, newPassword: 'Another-pass-77' }),
      await k.patch('/api/me/email', { email: 'x@example.com', password: PASSWORD }),
      await k.del('/api/me/account', { password: PASSWORD, confirmation: 'delete my account' }),
      await k.post('/api/me/mcp-key'),
      await k.get('/api/me/mcp-key'),
      await k.del('/api/me/mcp-key'),
      await k.get('/api/admin/users'),
      await k.get('/api/admin/settings'),
    ];
    for (const r of refused) {
      expect(r.statusCode).toBe(403);
      expect(r.json()).toEqual({ error: 'Not allowed with an API key' });
    }
    expect((await k.get('/api/users')).statusCode).toBe(200);
  });

  it('rejects a wrong key and the key of a disabled user', async () => {
    const wrong = await clientFor(t.app, { apiKey: 'dk_not-a-real-key' }).get('/api/me');
    expect(wrong.statusCode).toBe(401);
    expect(wrong.json()).toEqual({ error: 'Invalid API key' });
    const u = await signUp(t.app);
    const { apiKey } = (await u.post('/api/me/mcp-key')).json();
    const admin = await signIn(t.app, 'root_admin');
    expect((await admin.patch(`/api/admin/users/${u.userId}`, { isActive: false })).statusCode).toBe(200);
    const res = await clientFor(t.app, { apiKey }).get('/api/me');
    expect(res.statusCode).toBe(401);
    expect(res.json()).toEqual({ error: 'Invalid API key' });
  });

  it('stores only hashes of keys and session tokens', async () => {
    const u = await signUp(t.app);
    const { apiKey } = (await u.post('/api/me/mcp-key')).json();
    const db = t.app.services.db.kysely;
    const keys = await db.selectFrom('api_keys').selectAll().where('user_id', '=', u.userId).execute();
    expect(keys).toHaveLength(1);
    expect(keys[0].key_hash).not.toContain(apiKey);
    expect(keys[0].key_hash).toMatch(/^[0-9a-f]{64}$/);
    const token = u.cookie.split('=')[1];
    const sessions = await db.selectFrom('sessions').selectAll().where('user_id', '=', u.userId).execute();
    expect(sessions.some((s) => s.token_hash === token)).toBe(false);
    const user = await db
      .selectFrom('users')
      .select('password_hash')
      .where('id', '=', u.userId)
      .executeTakeFirstOrThrow();
    expect(user.password_hash).toMatch(/^\$argon2id\$/);
  });
});

describe('/api/users', () => {
  it('lists active users for pickers, searchable, with X-Total-Count', async () => {
    const tag = unique('pick');
    const a = await signUp(t.app, { username: `${tag}_a`, name: 'Picker A' });
    await signUp(t.app, { username: `${tag}_b` });
    const res = await a.get(`/api/users?search=${tag}`);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toHaveLength(2);
    expect(res.headers['x-total-count']).toBe('2');
    expect(res.json()[0]).toEqual({ id: a.userId, username: `${tag}_a`, name: 'Picker A', avatar: null });
    expect((await a.get('/api/users?search=%25')).statusCode).toBe(200);
  });
});
