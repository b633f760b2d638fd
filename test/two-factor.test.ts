/** Two-factor sign-in with TOTP (issue 19): setup, sign-in with a code or recovery code, turning it off. */
import { Secret, TOTP } from 'otpauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './helpers/app.js';
import { type Client, PASSWORD, signUp } from './helpers/factories.js';

let t: TestApp;

beforeAll(async () => {
  t = await createTestApp({ DOCKET_LOGIN_LIMIT: '5' });
  await signUp(t.app);
});
afterAll(async () => t.close());

/** The code an authenticator app shows for the secret, `steps` periods from now. */
const codeFor = (secret: string, steps = 0) =>
  TOTP.generate({
    secret: Secret.fromBase32(secret),
    algorithm: 'SHA1',
    digits: 6,
    period: 30,
    timestamp: Date.now() + steps * 30_000,
  });

const login = (username: string, extra: Record<string, string> = {}) =>
  t.app.inject({
    method: 'POST',
    url: '/api/auth/callback/credentials',
    payload: { username, password: PASSWORD, ...extra },
  });

async function withTwoFactor(): Promise<{ u: Client; secret: string; recoveryCodes: string[] }> {
  const u = await signUp(t.app);
  const setup = await u.post('/api/me/two-factor');
  expect(setup.statusCode, setup.body).toBe(200);
  const { secret, otpauthUrl } = setup.json();
  expect(otpauthUrl).toMatch(/^otpauth:\/\/totp\/Docket:/);
  expect(otpauthUrl).toContain(`secret=${secret}`);
  expect(otpauthUrl).toContain('algorithm=SHA1');
  expect(otpauthUrl).toContain('digits=6');
  expect(otpauthUrl).toContain('period=30');
  const on = await u.post('/api/me/two-factor/enable', { code: codeFor(secret, -1) });
  expect(on.statusCode, on.body).toBe(200);
  const { recoveryCodes } = on.json();
  return { u, secret, recoveryCodes };
}

describe('two-factor sign-in', () => {
  it('is off until a code from the new secret turns it on, and then answers 10 recovery codes', async () => {
    const u = await signUp(t.app);
    expect((await u.get('/api/me/two-factor')).json()).toEqual({ enabled: false, recoveryCodesLeft: 0 });
    expect((await u.post('/api/me/two-factor/enable', { code: '123456' })).json().error).toBe(
      'Start two-factor setup first',
    );
    const { secret } = (await u.post('/api/me/two-factor')).json();
    // Pending: the password alone still signs in.
    expect((await login(u.username)).statusCode).toBe(200);
    const wrong = await u.post('/api/me/two-factor/enable', { code: codeFor(secret, 5) });
    expect(wrong.json()).toEqual({ error: 'Invalid two-factor code' });
    const on = await u.post('/api/me/two-factor/enable', { code: codeFor(secret) });
    const codes = on.json().recoveryCodes as string[];
    expect(codes).toHaveLength(10);
    expect(new Set(codes).size).toBe(10);
    expect((await u.get('/api/me/two-factor')).json()).toEqual({ enabled: true, recoveryCodesLeft: 10 });
    expect((await u.post('/api/me/two-factor')).statusCode).toBe(409);
    // Nothing of the secret or the codes leaves in other answers.
    const me = (await u.get('/api/me')).body;
    expect(me).not.toContain(secret);
    expect(me).not.toContain('two_factor');
  });

  it('asks for the code after the password, signs in with it once, and takes a recovery code once', async () => {
    const { u, secret, recoveryCodes } = await withTwoFactor();
    const first = await login(u.username);
    expect(first.statusCode).toBe(401);
    expect(first.json()).toEqual({ error: 'Two-factor code required', twoFactor: true });
    expect(first.cookies).toHaveLength(0);
    const code = codeFor(secret, 1);
    const ok = await login(u.username, { code });
    expect(ok.statusCode, ok.body).toBe(200);
    expect(ok.cookies.find((c) => c.name === 'docket_session')).toBeDefined();
    // The same code again (a replay): refused.
    const again = await login(u.username, { code });
    expect(again.statusCode).toBe(401);
    expect(again.json()).toEqual({ error: 'Invalid two-factor code', twoFactor: true });
    // A recovery code signs in once.
    expect((await login(u.username, { code: recoveryCodes[0].toUpperCase() })).statusCode).toBe(200);
    expect((await login(u.username, { code: recoveryCodes[0] })).statusCode).toBe(401);
    expect((await u.get('/api/me/two-factor')).json().recoveryCodesLeft).toBe(9);
    // A wrong password never reaches the code question.
    const bad = await t.app.inject({
      method: 'POST',
      url: '/api/auth/callback/credentials',
      payload: { username: u.username, password: 'Wrong-password-1', code: codeFor(secret) },
    });
    expect(bad.json()).toEqual({ error: 'Invalid username or password' });
  });

  it('counts wrong codes toward the sign-in limit', async () => {
    const { u, secret } = await withTwoFactor();
    const codes = [];
    for (let i = 0; i < 6; i++) codes.push((await login(u.username, { code: '000000' })).statusCode);
    expect(codes).toEqual([401, 401, 401, 401, 401, 429]);
    expect((await login(u.username, { code: codeFor(secret) })).statusCode).toBe(429);
  });

  it('turns off with the password and a code, not with either alone', async () => {
    const { u, secret, recoveryCodes } = await withTwoFactor();
    expect(
      (await u.del('/api/me/two-factor', { password: 'Wrong-password-1', code: codeFor(secret) })).json(),
    ).toEqual({
      error: 'Invalid password',
    });
    expect((await u.del('/api/me/two-factor', { password: PASSWORD, code: '999999' })).json()).toEqual({
      error: 'Invalid two-factor code',
    });
    expect((await u.get('/api/me/two-factor')).json().enabled).toBe(true);
    expect(
      (await u.del('/api/me/two-factor', { password: PASSWORD, code: recoveryCodes[3] })).json(),
    ).toEqual({
      success: true,
    });
    expect((await u.get('/api/me/two-factor')).json()).toEqual({ enabled: false, recoveryCodesLeft: 0 });
    expect((await login(u.username)).statusCode).toBe(200);
    const actions = await t.app.services.db.kysely
      .selectFrom('audit_log')
      .select('action')
      .where('actor_id', '=', u.userId)
      .where('action', 'like', 'account.two_factor%')
      .orderBy('id')
      .execute();
    expect(actions.map((a) => a.action)).toEqual([
      'account.two_factor_enabled',
      'account.two_factor_disabled',
    ]);
  });
});

describe('two-factor sign-in required by administrators', () => {
  it('lets a user without it do nothing but turn it on; keys too; and lifts when it is on', async () => {
    const s = await createTestApp();
    try {
      const admin = await signUp(s.app);
      const u = await signUp(s.app);
      const key = (await u.post('/api/me/api-keys', { name: 'k', scope: 'write' })).json().key;
      expect((await u.get('/api/admin/security')).statusCode).toBe(403);
      const early = await admin.patch('/api/admin/security', { requireTwoFactor: true });
      expect(early.json()).toEqual({ error: 'Turn on two-factor sign-in for yourself first' });
      const mine = (await admin.post('/api/me/two-factor')).json().secret;
      const adminCode = TOTP.generate({
        secret: Secret.fromBase32(mine),
        algorithm: 'SHA1',
        digits: 6,
        period: 30,
      });
      expect((await admin.post('/api/me/two-factor/enable', { code: adminCode })).statusCode).toBe(200);
      const on = await admin.patch('/api/admin/security', { requireTwoFactor: true });
      expect(on.json()).toEqual({ requireTwoFactor: true, requireEmailConfirmation: false });
      expect((await admin.get('/api/admin/security')).json()).toEqual({
        requireTwoFactor: true,
        requireEmailConfirmation: false,
      });

      const refused = await u.get('/api/projects');
      expect(refused.statusCode).toBe(403);
      expect(refused.json()).toEqual({ error: 'Two-factor sign-in required: turn it on in your profile' });
      const byKey = await s.app.inject({
        method: 'GET',
        url: '/api/projects',
        headers: { authorization: `Bearer ${key}` },
      });
      expect(byKey.statusCode).toBe(403);
      expect((await u.get('/api/auth/session')).json().user.twoFactorSetupRequired).toBe(true);
      expect((await u.get('/api/me')).statusCode).toBe(200);

      const { secret } = (await u.post('/api/me/two-factor')).json();
      const code = TOTP.generate({
        secret: Secret.fromBase32(secret),
        algorithm: 'SHA1',
        digits: 6,
        period: 30,
      });
      expect((await u.post('/api/me/two-factor/enable', { code })).statusCode).toBe(200);
      expect((await u.get('/api/projects')).statusCode).toBe(200);
      expect((await u.get('/api/auth/session')).json().user.twoFactorSetupRequired).toBe(false);
      expect((await admin.get('/api/admin/users')).statusCode).toBe(200);
      const audit = await s.app.services.db.kysely
        .selectFrom('audit_log')
        .select(['action', 'details'])
        .where('action', '=', 'admin.settings_updated')
        .execute();
      expect(audit.map((a) => JSON.parse(a.details ?? '{}'))).toEqual([{ requireTwoFactor: true }]);
    } finally {
      await s.close();
    }
  });
});
