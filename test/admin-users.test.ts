import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './helpers/app.js';
import { type Client, PASSWORD, signIn, signUp, unique } from './helpers/factories.js';

let t: TestApp;
let admin: Client;
let user: Client;
beforeAll(async () => {
  t = await createTestApp();
  admin = await signUp(t.app, { username: 'chief', email: 'chief@example.com', name: 'Chief' });
  user = await signUp(t.app, { username: 'regular', email: 'regular@example.com', name: 'Regular' });
});
afterAll(async () => t.close());

describe('admin access', () => {
  it('answers 401 without a session and 403 for a non-admin', async () => {
    for (const url of ['/api/admin/users', '/api/admin/settings', `/api/admin/users/${user.userId}`]) {
      const anon = await t.app.inject({ method: 'GET', url });
      expect(anon.statusCode).toBe(401);
      expect(anon.json()).toEqual({ error: 'Authentication required' });
      const res = await user.get(url);
      expect(res.statusCode).toBe(403);
      expect(res.json()).toEqual({ error: 'System admin access required' });
    }
  });
});

describe('admin users', () => {
  it('lists users with search, status, role and sorting', async () => {
    const all = await admin.get('/api/admin/users?sortBy=username&sortOrder=asc');
    expect(all.statusCode).toBe(200);
    const names = all.json().map((u: { username: string }) => u.username);
    expect(names).toEqual(
      [...names].sort((a: string, b: string) => a.toLowerCase().localeCompare(b.toLowerCase())),
    );
    expect(all.json()[0]).toHaveProperty('isActive');
    expect(JSON.stringify(all.json())).not.toMatch(/hash/i);
    const desc = await admin.get('/api/admin/users?sortBy=username&sortOrder=desc');
    expect(desc.json().map((u: { username: string }) => u.username)).toEqual([...names].reverse());
    const search = await admin.get('/api/admin/users?search=regular@');
    expect(search.json().map((u: { id: string }) => u.id)).toEqual([user.userId]);
    const admins = await admin.get('/api/admin/users?role=admin');
    expect(admins.json().every((u: { isSystemAdmin: boolean }) => u.isSystemAdmin)).toBe(true);
    const users = await admin.get('/api/admin/users?role=user');
    expect(users.json().some((u: { id: string }) => u.id === user.userId)).toBe(true);
    expect((await admin.get('/api/admin/users?sortBy=password')).statusCode).toBe(400);
    expect((await admin.get('/api/admin/users?status=sleeping')).statusCode).toBe(400);
  });

  it('creates a user only with the acting admin password', async () => {
    const username = unique('made');
    const wrong = await admin.post('/api/admin/users', {
      username,
      password: PASSWORD,
      confirmPassword: 'Wrong-password-1',
    });
    expect(wrong.statusCode).toBe(400);
    expect(wrong.json()).toEqual({ error: 'Invalid password confirmation' });
    const res = await admin.post('/api/admin/users', {
      username,
      password: PASSWORD,
      confirmPassword: PASSWORD,
      email: `${username}@example.com`,
      isSystemAdmin: true,
    });
    expect(res.statusCode).toBe(201);
    expect(res.json()).toMatchObject({ username, isSystemAdmin: true, isActive: true });
    const dup = await admin.post('/api/admin/users', {
      username,
      password: PASSWORD,
      confirmPassword: PASSWORD,
    });
    expect(dup.json()).toEqual({ error: 'Username already taken' });
    await signIn(t.app, username);
  });

  it('reads, updates, disables and re-enables a user; disabling ends sessions', async () => {
    const u = await signUp(t.app);
    expect((await admin.get(`/api/admin/users/${u.userId}`)).json()).toMatchObject({
      id: u.userId,
      isActive: true,
    });
    expect((await admin.get('/api/admin/users/missing-id')).statusCode).toBe(404);
    const patched = await admin.patch(`/api/admin/users/${u.userId}`, { name: 'Renamed', isActive: false });
    expect(patched.statusCode).toBe(200);
    expect(patched.json()).toMatchObject({ name: 'Renamed', isActive: false });
    expect((await u.get('/api/me')).statusCode).toBe(401);
    const login = await t.app.inject({
      method: 'POST',
      url: '/api/auth/callback/credentials',
      payload: { username: u.username, password: PASSWORD },
    });
    expect(login.statusCode).toBe(403);
    expect(login.json()).toEqual({ error: 'Account disabled' });
    await admin.patch(`/api/admin/users/${u.userId}`, { isActive: true });
    await signIn(t.app, u.username);
    const taken = await admin.patch(`/api/admin/users/${u.userId}`, { email: 'chief@example.com' });
    expect(taken.json()).toEqual({ error: 'Email already registered' });
    expect((await admin.patch(`/api/admin/users/${u.userId}`, { password: 'x' })).statusCode).toBe(400);
  });

  it('protects the acting administrator from disabling, demoting and deleting themselves', async () => {
    const solo = await createTestApp();
    try {
      const a = await signUp(solo.app);
      const disable = await a.patch(`/api/admin/users/${a.userId}`, { isActive: false });
      expect(disable.statusCode).toBe(400);
      expect(disable.json()).toEqual({ error: 'Cannot disable your own account' });
      const demote = await a.patch(`/api/admin/users/${a.userId}`, { isSystemAdmin: false });
      expect(demote.statusCode).toBe(400);
      expect(demote.json()).toEqual({
        error: 'Cannot remove your own administrator rights as the only administrator',
      });
      const del = await a.del(`/api/admin/users/${a.userId}`, { confirmPassword: PASSWORD });
      expect(del.statusCode).toBe(400);
      expect(del.json()).toEqual({ error: 'Cannot delete your own account' });
      expect((await a.get('/api/me')).json().isSystemAdmin).toBe(true);
    } finally {
      await solo.close();
    }
  });

  it('deletes a user with the admin password; their sessions and key stop working', async () => {
    const u = await signUp(t.app);
    const { apiKey } = (await u.post('/api/me/mcp-key')).json();
    const wrong = await admin.del(`/api/admin/users/${u.userId}`, { confirmPassword: 'Wrong-password-1' });
    expect(wrong.json()).toEqual({ error: 'Invalid password confirmation' });
    const ok = await admin.del(`/api/admin/users/${u.userId}`, { confirmPassword: PASSWORD });
    expect(ok.statusCode).toBe(200);
    expect(ok.json()).toEqual({ success: true });
    expect((await admin.get(`/api/admin/users/${u.userId}`)).statusCode).toBe(404);
    expect((await u.get('/api/me')).statusCode).toBe(401);
    const key = await t.app.inject({
      method: 'GET',
      url: '/api/me',
      headers: { authorization: `Bearer ${apiKey}` },
    });
    expect(key.statusCode).toBe(401);
  });

  it('refuses to delete the last system administrator, even when it is not the actor', async () => {
    const other = await createTestApp({ DOCKET_ADMIN_USERNAME: 'boot', DOCKET_ADMIN_PASSWORD: PASSWORD });
    try {
      const boot = await signIn(other.app, 'boot');
      expect(
        (await boot.del(`/api/admin/users/${boot.userId}`, { confirmPassword: PASSWORD })).statusCode,
      ).toBe(400);
      const me = await signUp(other.app);
      expect(me.isSystemAdmin).toBe(false);
    } finally {
      await other.close();
    }
  });
});

describe('admin settings', () => {
  it('reads the defaults of SPEC', async () => {
    const res = await admin.get('/api/admin/settings');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      maxImageSize: 5242880,
      maxVideoSize: 52428800,
      maxDocumentSize: 10485760,
      maxAttachmentsPerTicket: 20,
      allowedImageTypes: ['image/jpeg', 'image/png', 'image/gif', 'image/webp'],
      allowedVideoTypes: ['video/mp4', 'video/webm', 'video/ogg', 'video/quicktime'],
    });
    expect(res.json().allowedDocumentTypes).toEqual(
      expect.arrayContaining(['application/pdf', 'text/plain', 'text/csv']),
    );
    expect(typeof res.json().id).toBe('string');
  });

  it('updates sizes and types, and rejects non-positive sizes and blocked types', async () => {
    const ok = await admin.patch('/api/admin/settings', {
      maxImageSize: 1000,
      allowedImageTypes: ['image/png'],
    });
    expect(ok.statusCode).toBe(200);
    expect(ok.json()).toMatchObject({ maxImageSize: 1000, allowedImageTypes: ['image/png'] });
    for (const bad of [
      { maxImageSize: 0 },
      { maxVideoSize: -5 },
      { maxDocumentSize: 1.5 },
      { allowedImageTypes: ['image/svg+xml'] },
      { allowedDocumentTypes: ['text/html'] },
      { allowedDocumentTypes: ['application/javascript'] },
      { unknownSetting: 1 },
    ]) {
      const res = await admin.patch('/api/admin/settings', bad);
      expect(res.statusCode).toBe(400);
      expect(res.json().error).toBe('Validation failed');
    }
    expect((await admin.get('/api/admin/settings')).json().maxImageSize).toBe(1000);
  });
});
