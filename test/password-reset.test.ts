/**
 * Forgotten passwords (issue 19): the request answers the same whether or not an account matches,
 * the link arrives through the outbox and a real SMTP server, works once and for an hour, ends
 * every session, and is limited.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './helpers/app.js';
import { type Client, clientFor, PASSWORD, signIn, signUp, unique } from './helpers/factories.js';
import { decodedMail, type Mailbox, startMailbox } from './helpers/mailbox.js';

const NEW_PASSWORD = 'Brand-new-secret-77';

let mailbox: Mailbox;
let t: TestApp;
let admin: Client;

beforeAll(async () => {
  mailbox = await startMailbox();
  t = await createTestApp({
    DOCKET_SMTP_URL: mailbox.smtpUrl,
    DOCKET_MAIL_FROM: 'Docket <docket@mail.example.com>',
    DOCKET_PUBLIC_URL: 'https://docket.example.com',
  });
  admin = await signUp(t.app);
}, 60_000);
afterAll(async () => {
  await t?.close();
  await mailbox?.stop();
});

const forgot = (app: TestApp['app'], body: unknown) =>
  app.inject({ method: 'POST', url: '/api/auth/forgot', payload: body as never });
const reset = (app: TestApp['app'], body: unknown) =>
  app.inject({ method: 'POST', url: '/api/auth/reset', payload: body as never });

/** The token of the latest reset link sent to `address`. */
async function linkToken(address: string, count = 1): Promise<{ token: string; raw: string }> {
  const mails = await mailbox.waitFor(address, count);
  const raw = decodedMail(mails[count - 1].raw);
  const m = /https:\/\/docket\.example\.com\/reset-password#token=([A-Za-z0-9_-]+)/.exec(raw);
  if (!m) throw new Error(`no reset link in\n${raw}`);
  return { token: m[1], raw };
}

async function person(): Promise<Client & { email: string }> {
  const email = `${unique('r')}@example.com`;
  const u = await signUp(t.app, { email });
  return { ...u, email };
}

describe('forgotten passwords', () => {
  it('answers the same for an unknown address, a known one and a username, and mails only the account', async () => {
    const u = await person();
    const known = await forgot(t.app, { email: u.email.toUpperCase() });
    const unknown = await forgot(t.app, { email: `${unique('nobody')}@example.com` });
    const unknownName = await forgot(t.app, { username: unique('nobody') });
    for (const res of [known, unknown, unknownName]) {
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).toEqual({ success: true });
    }
    const { token, raw } = await linkToken(u.email);
    expect(token.length).toBeGreaterThanOrEqual(40);
    expect(raw).toMatch(/^Subject: Reset your Docket password/im);
    expect(raw).toContain(u.username);
    expect(raw).not.toMatch(/^List-Unsubscribe:/im);
    // Only the hash is stored.
    const rows = await t.app.services.db.kysely
      .selectFrom('password_resets')
      .selectAll()
      .where('user_id', '=', u.userId)
      .execute();
    expect(rows).toHaveLength(1);
    expect(rows[0].token_hash).not.toContain(token);
    expect(JSON.stringify(rows)).not.toContain(token);
  });

  it('resets once with the link: every session ends, the old password stops working, the audit log records it', async () => {
    const u = await person();
    const second = await signIn(t.app, u.username);
    expect((await forgot(t.app, { username: u.username })).statusCode).toBe(200);
    const { token } = await linkToken(u.email);

    const weak = await reset(t.app, { token, password: 'short' });
    expect(weak.statusCode).toBe(400);

    const ok = await reset(t.app, { token, password: NEW_PASSWORD });
    expect(ok.statusCode, ok.body).toBe(200);
    expect((await u.get('/api/me')).statusCode).toBe(401);
    expect((await second.get('/api/me')).statusCode).toBe(401);
    const old = await t.app.inject({
      method: 'POST',
      url: '/api/auth/callback/credentials',
      payload: { username: u.username, password: PASSWORD },
    });
    expect(old.statusCode).toBe(401);
    const fresh = await signIn(t.app, u.username, NEW_PASSWORD);
    expect((await fresh.get('/api/me')).statusCode).toBe(200);

    const again = await reset(t.app, { token, password: 'Another-secret-88' });
    expect(again.statusCode).toBe(400);
    expect(again.json().error).toBe('This reset link is invalid, used or expired: ask for a new one');

    const audit = await admin.get('/api/admin/audit?action=account.password_reset*');
    expect(audit.statusCode, audit.body).toBe(200);
    const actions = audit
      .json()
      .items.filter((i: { target: { id: string } | null }) => i.target?.id === u.userId)
      .map((i: { action: string }) => i.action);
    expect(actions).toEqual(['account.password_reset', 'account.password_reset_requested']);
    expect(audit.body).not.toContain(token);
  });

  it('lets only one of two resets with the same link through', async () => {
    const u = await person();
    await forgot(t.app, { email: u.email });
    const { token } = await linkToken(u.email);
    const both = await Promise.all([
      reset(t.app, { token, password: NEW_PASSWORD }),
      reset(t.app, { token, password: 'Another-secret-88' }),
    ]);
    expect(both.map((r) => r.statusCode).sort()).toEqual([200, 400]);
  });

  it('refuses an expired link, a made-up one, and a link after the password was changed', async () => {
    const u = await person();
    await forgot(t.app, { email: u.email });
    const { token } = await linkToken(u.email);
    await t.app.services.db.kysely
      .updateTable('password_resets')
      .set({ expires_at: new Date(Date.now() - 1000).toISOString() })
      .where('user_id', '=', u.userId)
      .execute();
    expect((await reset(t.app, { token, password: NEW_PASSWORD })).statusCode).toBe(400);
    expect((await reset(t.app, { token: 'x'.repeat(43), password: NEW_PASSWORD })).statusCode).toBe(400);

    await forgot(t.app, { email: u.email });
    const second = await linkToken(u.email, 2);
    const change = await u.patch('/api/me/password', {
      currentPassword: PASSWORD,
      newPassword: NEW_PASSWORD,
    });
    expect(change.statusCode, change.body).toBe(200);
    expect((await reset(t.app, { token: second.token, password: 'Another-secret-88' })).statusCode).toBe(400);
    await signIn(t.app, u.username, NEW_PASSWORD);
  });

  it('mails a disabled account nothing, and at most three links an hour to one account', async () => {
    const u = await person();
    const off = await person();
    expect((await admin.patch(`/api/admin/users/${off.userId}`, { isActive: false })).statusCode).toBe(200);
    for (let i = 0; i < 5; i++) {
      expect((await forgot(t.app, { email: u.email })).statusCode).toBe(200);
      expect((await forgot(t.app, { email: off.email })).statusCode).toBe(200);
    }
    await mailbox.waitFor(u.email, 3);
    const n = await t.app.services.db.kysely
      .selectFrom('mail_outbox')
      .select(['to_address', 'kind'])
      .where('to_address', 'in', [u.email, off.email])
      .execute();
    expect(n.filter((r) => r.to_address === u.email)).toHaveLength(3);
    expect(n.filter((r) => r.to_address === off.email)).toHaveLength(0);
    expect(n.every((r) => r.kind === 'password_reset')).toBe(true);
  });

  it('refuses bad bodies with 400 and changes nothing', async () => {
    for (const body of [
      {},
      { email: 'not-an-address' },
      { email: 'a@example.com', username: 'a' },
      { username: '' },
    ]) {
      const res = await forgot(t.app, body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
    }
    expect((await reset(t.app, { token: 'abc', password: NEW_PASSWORD })).statusCode).toBe(400);
    expect((await reset(t.app, {})).statusCode).toBe(400);
  });

  it('refuses a cross-site form post', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/auth/forgot',
      headers: { origin: 'https://evil.example', 'content-type': 'application/json' },
      payload: JSON.stringify({ email: 'a@example.com' }),
    });
    expect(res.statusCode).toBe(403);
  });
});

describe('forgotten-password limits and configuration', () => {
  it('limits requests per address with 429 and Retry-After', async () => {
    const limited = await createTestApp({
      DOCKET_SMTP_URL: 'smtp://127.0.0.1:1',
      DOCKET_MAIL_FROM: 'docket@example.com',
      DOCKET_MAIL_SENDER: 'off',
      DOCKET_REGISTER_LIMIT: '3',
    });
    try {
      for (let i = 0; i < 3; i++)
        expect((await forgot(limited.app, { email: `${unique('n')}@example.com` })).statusCode).toBe(200);
      const over = await forgot(limited.app, { email: `${unique('n')}@example.com` });
      expect(over.statusCode).toBe(429);
      expect(Number(over.headers['retry-after'])).toBeGreaterThan(0);
    } finally {
      await limited.close();
    }
  });

  it('answers 404 without e-mail configured, and says so in the sign-in options', async () => {
    const plain = await createTestApp();
    try {
      const res = await forgot(plain.app, { email: 'a@example.com' });
      expect(res.statusCode).toBe(404);
      expect(res.json().error).toBe('Password reset by e-mail is not available');
      const options = await clientFor(plain.app, {}).get('/api/auth/options');
      expect(options.json()).toEqual({
        registration: 'open',
        passwordReset: false,
        sso: null,
        passwordSignIn: 'everyone',
        emailConfirmation: false,
      });
      expect((await clientFor(t.app, {}).get('/api/auth/options')).json().passwordReset).toBe(true);
    } finally {
      await plain.close();
    }
  });
});
