import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './helpers/app.js';
import { cookieFrom, PASSWORD, signIn, signUp, unique } from './helpers/factories.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t.close());

describe('registration', () => {
  it('makes the first account a system administrator and later ones not', async () => {
    const first = await t.app.inject({
      method: 'POST',
      url: '/api/auth/register',
      payload: { username: 'first_admin', password: PASSWORD, email: 'first@example.com', name: 'First' },
    });
    expect(first.statusCode).toBe(201);
    expect(first.json()).toMatchObject({
      username: 'first_admin',
      email: 'first@example.com',
      name: 'First',
      isSystemAdmin: true,
    });
    expect(first.json()).not.toHaveProperty('password');
    expect(first.json()).not.toHaveProperty('passwordHash');
    const second = await t.app.inject({
      method: 'POST',
      url: '/api/auth/register',
      payload: { username: unique(), password: PASSWORD },
    });
    expect(second.statusCode).toBe(201);
    expect(second.json().isSystemAdmin).toBe(false);
  });

  it.each([
    [{ username: 'ab', password: PASSWORD }, 'username'],
    [{ username: 'has space', password: PASSWORD }, 'username'],
    [{ username: 'x'.repeat(31), password: PASSWORD }, 'username'],
    [{ username: 'validname', password: 'Short1' }, 'password'],
    [{ username: 'validname', password: 'alllowercase123' }, 'password'],
    [{ username: 'validname', password: 'ALLUPPERCASE123' }, 'password'],
    [{ username: 'validname', password: 'NoDigitsHereAtAll' }, 'password'],
    [{ username: 'validname', password: PASSWORD, email: 'not-an-email' }, 'email'],
    [{ password: PASSWORD }, 'username'],
  ])('rejects %j with 400 Validation failed naming %s', async (payload, field) => {
    const res = await t.app.inject({ method: 'POST', url: '/api/auth/register', payload });
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toBe('Validation failed');
    expect(res.json().details.map((d: { path: string }) => d.path)).toContain(field);
  });

  it('refuses a taken username or e-mail, ignoring case', async () => {
    const name = unique('dup');
    await signUp(t.app, { username: name, email: `${name}@example.com` });
    const again = await t.app.inject({
      method: 'POST',
      url: '/api/auth/register',
      payload: { username: name.toUpperCase(), password: PASSWORD },
    });
    expect(again.statusCode).toBe(400);
    expect(again.json()).toEqual({ error: 'Username already taken' });
    const mail = await t.app.inject({
      method: 'POST',
      url: '/api/auth/register',
      payload: { username: unique(), password: PASSWORD, email: `${name.toUpperCase()}@EXAMPLE.com` },
    });
    expect(mail.statusCode).toBe(400);
    expect(mail.json()).toEqual({ error: 'Email already registered' });
  });
});

describe('sign-in and sessions', () => {
  it('signs in with username or e-mail, JSON or form-encoded, and sets a safe cookie', async () => {
    const name = unique('login');
    await signUp(t.app, { username: name, email: `${name}@example.com` });
    const byMail = await t.app.inject({
      method: 'POST',
      url: '/api/auth/callback/credentials',
      payload: { username: `${name}@example.com`, password: PASSWORD },
    });
    expect(byMail.statusCode).toBe(200);
    expect(byMail.json().user).toMatchObject({ username: name, isSystemAdmin: false });
    const setCookie = String(byMail.headers['set-cookie']);
    expect(setCookie).toMatch(/docket_session=/);
    expect(setCookie).toMatch(/HttpOnly/);
    expect(setCookie).toMatch(/Path=\//);
    expect(setCookie).toMatch(/SameSite=Lax/);
    const form = await t.app.inject({
      method: 'POST',
      url: '/api/auth/callback/credentials',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: `username=${name}&password=${encodeURIComponent(PASSWORD)}`,
    });
    expect(form.statusCode).toBe(200);
  });

  it('answers 401 for wrong credentials without telling which part was wrong', async () => {
    const wrongUser = await t.app.inject({
      method: 'POST',
      url: '/api/auth/callback/credentials',
      payload: { username: 'nobody-here', password: PASSWORD },
    });
    expect(wrongUser.statusCode).toBe(401);
    expect(wrongUser.json()).toEqual({ error: 'Invalid username or password' });
  });

  it('reads the session, and {} after sign-out', async () => {
    const u = await signUp(t.app);
    const s = await u.get('/api/auth/session');
    expect(s.statusCode).toBe(200);
    expect(s.json().user).toMatchObject({ id: u.userId, isSystemAdmin: false });
    expect(Date.parse(s.json().expires)).toBeGreaterThan(Date.now());
    const out = await u.post('/api/auth/signout', { callbackUrl: '/projects' });
    expect(out.statusCode).toBe(302);
    expect(out.headers.location).toBe('/projects');
    expect((await u.get('/api/auth/session')).json()).toEqual({});
    expect((await u.get('/api/me')).statusCode).toBe(401);
  });

  it('never redirects sign-out to another site', async () => {
    for (const callbackUrl of [
      'https://evil.example/',
      '//evil.example/x',
      '/\\evil.example',
      'javascript:alert(1)',
    ]) {
      const res = await t.app.inject({ method: 'POST', url: '/api/auth/signout', payload: { callbackUrl } });
      expect(res.statusCode).toBe(302);
      expect(res.headers.location).toBe('/');
    }
    const json = await t.app.inject({
      method: 'POST',
      url: '/api/auth/signout',
      headers: { accept: 'application/json' },
      payload: { callbackUrl: '/x' },
    });
    expect(json.json()).toEqual({ url: '/x' });
  });

  it('verifies credentials without creating a session', async () => {
    const name = unique();
    await signUp(t.app, { username: name });
    const ok = await t.app.inject({
      method: 'POST',
      url: '/api/auth/verify-credentials',
      payload: { username: name, password: PASSWORD },
    });
    expect(ok.json()).toMatchObject({ valid: true, user: { username: name } });
    expect(ok.headers['set-cookie']).toBeUndefined();
    const bad = await t.app.inject({
      method: 'POST',
      url: '/api/auth/verify-credentials',
      payload: { username: name, password: 'Wrong-password-1' },
    });
    expect(bad.statusCode).toBe(200);
    expect(bad.json().valid).toBe(false);
  });

  it('refuses a cookie-authenticated write from another site, but not one without Origin', async () => {
    const u = await signUp(t.app);
    const cross = await u.req({
      method: 'PATCH',
      url: '/api/me',
      payload: { name: 'X' },
      headers: { origin: 'https://evil.example' },
    });
    expect(cross.statusCode).toBe(403);
    expect(cross.json()).toEqual({ error: 'Cross-site request refused' });
    const same = await u.req({
      method: 'PATCH',
      url: '/api/me',
      payload: { name: 'X' },
      headers: { origin: 'http://localhost:80' },
    });
    expect(same.statusCode).toBe(200);
    expect((await u.patch('/api/me', { name: 'Y' })).json().name).toBe('Y');
  });
});

describe('rate limits', () => {
  it('answers 429 with Retry-After after too many registrations from one address', async () => {
    const limited = await createTestApp({ DOCKET_REGISTER_LIMIT: '2' });
    try {
      const attempt = () =>
        limited.app.inject({
          method: 'POST',
          url: '/api/auth/register',
          payload: { username: unique(), password: PASSWORD },
        });
      expect((await attempt()).statusCode).toBe(201);
      expect((await attempt()).statusCode).toBe(201);
      const third = await attempt();
      expect(third.statusCode).toBe(429);
      expect(third.json()).toEqual({ error: 'Rate limit exceeded' });
      expect(Number(third.headers['retry-after'])).toBeGreaterThan(0);
    } finally {
      await limited.close();
    }
  });

  it('answers 429 after too many failed logins for one username and address', async () => {
    const limited = await createTestApp({ DOCKET_LOGIN_LIMIT: '2' });
    try {
      const u = await signUp(limited.app);
      const fail = () =>
        limited.app.inject({
          method: 'POST',
          url: '/api/auth/callback/credentials',
          payload: { username: u.username, password: 'Wrong-password-1' },
        });
      expect((await fail()).statusCode).toBe(401);
      expect((await fail()).statusCode).toBe(401);
      const blocked = await limited.app.inject({
        method: 'POST',
        url: '/api/auth/callback/credentials',
        payload: { username: u.username, password: PASSWORD },
      });
      expect(blocked.statusCode).toBe(429);
      expect(blocked.headers['retry-after']).toBeDefined();
    } finally {
      await limited.close();
    }
  });
});

describe('configuration', () => {
  it('creates the configured administrator and does not make the first registrant an admin', async () => {
    const c = await createTestApp({ DOCKET_ADMIN_USERNAME: 'boss', DOCKET_ADMIN_PASSWORD: PASSWORD });
    try {
      const admin = await signIn(c.app, 'boss');
      expect(admin.isSystemAdmin).toBe(true);
      const reg = await c.app.inject({
        method: 'POST',
        url: '/api/auth/register',
        payload: { username: unique(), password: PASSWORD },
      });
      expect(reg.json().isSystemAdmin).toBe(false);
    } finally {
      await c.close();
    }
  });

  it('refuses registration when it is closed', async () => {
    const c = await createTestApp({ DOCKET_REGISTRATION: 'closed' });
    try {
      const reg = await c.app.inject({
        method: 'POST',
        url: '/api/auth/register',
        payload: { username: unique(), password: PASSWORD },
      });
      expect(reg.statusCode).toBe(403);
      expect(reg.json()).toEqual({ error: 'Registration is closed' });
    } finally {
      await c.close();
    }
  });

  it('keeps the cookie', async () => {
    const u = await signUp(t.app);
    expect(u.cookie).toMatch(/^docket_session=/);
    expect(cookieFrom).toBeTypeOf('function');
  });
});
