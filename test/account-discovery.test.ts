/**
 * What an anonymous caller can learn about accounts (issue 49). A forgotten-password request, and a
 * registration while new accounts are confirmed by e-mail, do the same work whatever account they
 * name (one queued request: the same statements, nothing looked up, no link or message written,
 * no SMTP server reached) and answer the same; what happens next arrives by e-mail, through the
 * outbox and a real SMTP server, once the mail sender acts on the queue. Time itself is not
 * asserted here: bench/account-timing.ts measures it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MailSender } from '../src/mail/sender.js';
import { ERR } from '../src/shared/errors.js';
import { createTestApp, type TestApp } from './helpers/app.js';
import { type Client, clientFor, PASSWORD, signIn, signUp, unique } from './helpers/factories.js';
import { decodedMail, type Mailbox, startMailbox } from './helpers/mailbox.js';

let mailbox: Mailbox;
let t: TestApp;
let admin: Client;
let sender: MailSender;

beforeAll(async () => {
  mailbox = await startMailbox();
  // No sender runs by itself here: the tests run its ticks, so that what the request alone did
  // can be looked at first.
  t = await createTestApp({
    DOCKET_SMTP_URL: mailbox.smtpUrl,
    DOCKET_MAIL_FROM: 'Docket <docket@mail.example.com>',
    DOCKET_PUBLIC_URL: 'https://docket.example.com',
    DOCKET_MAIL_SENDER: 'off',
  });
  admin = await signUp(t.app);
  sender = new MailSender({ ...t.app.services, db: { ...t.app.services.db } });
}, 60_000);
afterAll(async () => {
  await sender?.stop();
  await t?.close();
  await mailbox?.stop();
});

const db = () => t.app.services.db;
const anonymous = () => clientFor(t.app, {});

/** Statements one request runs; the least of several, since PostgreSQL's change-log reading may add one. */
async function statementsOf(requests: (() => Promise<unknown>)[]): Promise<number> {
  const counts: number[] = [];
  for (const send of requests) {
    const before = db().statements();
    await send();
    counts.push(db().statements() - before);
  }
  return Math.min(...counts);
}

/** Row counts of the tables a request could write. */
async function rows() {
  const k = db().kysely;
  const n = async (
    table: 'account_requests' | 'password_resets' | 'mail_outbox' | 'registration_confirmations' | 'users',
  ) =>
    Number(
      (
        await k
          .selectFrom(table)
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );
  return {
    account_requests: await n('account_requests'),
    password_resets: await n('password_resets'),
    mail_outbox: await n('mail_outbox'),
    registration_confirmations: await n('registration_confirmations'),
    users: await n('users'),
  };
}

/** An account made by an administrator (confirmed whatever the setting), with an e-mail address. */
async function person(): Promise<{ userId: string; username: string; email: string }> {
  const username = unique('p');
  const email = `${username}@example.com`;
  const res = await admin.post('/api/admin/users', {
    username,
    email,
    password: PASSWORD,
    confirmPassword: PASSWORD,
  });
  expect(res.statusCode, res.body).toBe(201);
  return { userId: res.json().id, username, email };
}

const forgot = (body: unknown) => anonymous().post('/api/auth/forgot', body);
const register = (body: Record<string, unknown>) =>
  anonymous().post('/api/auth/register', { password: PASSWORD, ...body });

/** The one message to `address` with `subject` (waits for it), decoded. */
async function mailTo(address: string, subject: string): Promise<string> {
  const all = await mailbox.waitFor(address);
  const found = all.filter((m) => m.subject === subject);
  expect(found, `${subject} to ${address}`).toHaveLength(1);
  return decodedMail(found[0].raw);
}

const linkIn = (raw: string, page: string) => {
  const m = new RegExp(`https://docket\\.example\\.com/${page}#token=([A-Za-z0-9_-]+)`).exec(raw);
  if (!m) throw new Error(`no ${page} link in\n${raw}`);
  return m[1];
};

describe('forgotten passwords: the same work for every address', () => {
  it('queues a known address, an unknown one and a username in the same statements, writes no link and reaches no SMTP server; the sender then mails the link', async () => {
    const u = await person();
    const other = await person();
    // Warm: the first request of a route prepares its statements.
    await forgot({ email: `${unique('warm')}@example.com` });
    const before = await rows();
    const known = await statementsOf([
      () => forgot({ email: u.email }),
      () => forgot({ email: u.email.toUpperCase() }),
      () => forgot({ username: other.username }),
    ]);
    const unknown = await statementsOf([
      () => forgot({ email: `${unique('nobody')}@example.com` }),
      () => forgot({ email: `${unique('nobody')}@example.com` }),
      () => forgot({ username: unique('nobody') }),
    ]);
    expect(known).toBe(unknown);
    const after = await rows();
    // Six requests queued; no link made, no message written: nothing for an SMTP server yet.
    expect(after).toEqual({ ...before, account_requests: before.account_requests + 6 });
    expect(mailbox.received().filter((m) => m.to.includes(u.email) || m.to.includes(other.email))).toEqual(
      [],
    );

    // The sender acts on the queue: each account gets its links (two for u), through the SMTP server.
    await sender.tick();
    expect((await rows()).account_requests).toBe(0);
    const mails = await mailbox.waitFor(u.email, 2);
    expect(mails.map((m) => m.subject)).toEqual(['Reset your Docket password', 'Reset your Docket password']);
    const token = linkIn(decodedMail(mails[1].raw), 'reset-password');
    const reset = await anonymous().post('/api/auth/reset', { token, password: 'Brand-new-secret-77' });
    expect(reset.statusCode, reset.body).toBe(200);
    await signIn(t.app, u.username, 'Brand-new-secret-77');
    expect(await mailTo(other.email, 'Reset your Docket password')).toContain(other.username);
  });

  it('answers while no SMTP server is reachable, as for an unknown address', async () => {
    const cut = await createTestApp({
      DOCKET_SMTP_URL: 'smtp://127.0.0.1:1',
      DOCKET_MAIL_FROM: 'docket@example.com',
      DOCKET_MAIL_SENDER: 'off',
    });
    try {
      const email = `${unique('cut')}@example.com`;
      await signUp(cut.app, { email });
      for (const body of [{ email }, { email: `${unique('nobody')}@example.com` }]) {
        const res = await clientFor(cut.app, {}).post('/api/auth/forgot', body);
        expect(res.statusCode, res.body).toBe(200);
        expect(res.json()).toEqual({ success: true });
      }
      const queued = await cut.app.services.db.kysely.selectFrom('account_requests').select('kind').execute();
      expect(queued.map((r) => r.kind)).toEqual(['password_reset', 'password_reset']);
    } finally {
      await cut.close();
    }
  });
});

describe('registration with e-mail confirmation', () => {
  beforeAll(async () => {
    const on = await admin.patch('/api/admin/security', { requireEmailConfirmation: true });
    expect(on.statusCode, on.body).toBe(200);
    expect(on.json()).toEqual({ requireTwoFactor: false, requireEmailConfirmation: true });
  });
  afterAll(async () => {
    await admin.patch('/api/admin/security', { requireEmailConfirmation: false });
  });

  it('answers 202 alike for a new address, a registered address and a taken username, in the same statements, and makes no account', async () => {
    const owner = await person();
    const fresh = unique('fresh');
    const fresh2 = unique('fresh');
    const elsewhere = `${unique('else')}@example.com`;
    const elsewhere2 = `${unique('else')}@example.com`;
    await register({ username: unique('warm'), email: `${unique('warm')}@example.com` });
    const before = await rows();
    const answers: { status: number; body: string }[] = [];
    const send = (body: Record<string, unknown>) => async () => {
      const res = await register(body);
      answers.push({ status: res.statusCode, body: res.body });
    };
    const statements = [
      await statementsOf([
        send({ username: fresh, email: `${fresh}@example.com`, name: 'Fresh Person' }),
        send({ username: fresh2, email: `${fresh2}@example.com` }),
      ]),
      await statementsOf([
        send({ username: unique('other'), email: owner.email.toUpperCase() }),
        send({ username: unique('other'), email: owner.email }),
      ]),
      await statementsOf([
        send({ username: owner.username, email: elsewhere }),
        send({ username: owner.username.toUpperCase(), email: elsewhere2 }),
      ]),
    ];
    expect(new Set(statements).size).toBe(1);
    expect(answers).toEqual(
      Array(6).fill({ status: 202, body: JSON.stringify({ confirmationRequired: true }) }),
    );
    expect(await rows()).toEqual({ ...before, account_requests: before.account_requests + 6 });
    const early = await anonymous().post('/api/auth/callback/credentials', {
      username: fresh,
      password: PASSWORD,
    });
    expect(early.statusCode).toBe(401);

    await sender.tick();
    // The new address: a confirmation link; only its SHA-256 is stored.
    const confirmation = await mailTo(`${fresh}@example.com`, 'Confirm your new Docket account');
    expect(confirmation).not.toMatch(/^List-Unsubscribe:/im);
    const token = linkIn(confirmation, 'confirm-email');
    const stored = await db().kysely.selectFrom('registration_confirmations').selectAll().execute();
    expect(stored.map((r) => r.username)).toContain(fresh);
    expect(JSON.stringify(stored)).not.toContain(token);
    // The owner of the registered address: a notice for each, naming their account; no account made.
    const notices = await mailbox.waitFor(owner.email, 2);
    expect(notices.map((m) => m.subject)).toEqual(
      Array(2).fill('Someone tried to register with your address'),
    );
    expect(decodedMail(notices[0].raw)).toContain(owner.username);
    expect(decodedMail(notices[0].raw)).toContain('https://docket.example.com/forgot-password');
    // The address of the taken username: told so, and nothing else.
    expect(await mailTo(elsewhere, 'Your Docket registration: choose another username')).toContain(
      owner.username,
    );
    expect((await rows()).users).toBe(before.users);

    // Not signed in until confirmed, and not confirmed without the password chosen.
    expect(
      (await anonymous().post('/api/auth/callback/credentials', { username: fresh, password: PASSWORD }))
        .statusCode,
    ).toBe(401);
    const wrong = await anonymous().post('/api/auth/confirm', { token, password: 'Not-the-password-1' });
    expect(wrong.statusCode).toBe(400);
    expect(wrong.json()).toEqual({ error: ERR.invalidPassword });
    const ok = await anonymous().post('/api/auth/confirm', { token, password: PASSWORD });
    expect(ok.statusCode, ok.body).toBe(201);
    expect(ok.json()).toMatchObject({
      username: fresh,
      email: `${fresh}@example.com`,
      name: 'Fresh Person',
      isSystemAdmin: false,
    });
    expect(ok.headers['set-cookie']).toBeUndefined();
    const me = await (await signIn(t.app, fresh)).get('/api/me');
    expect(me.json().email).toBe(`${fresh}@example.com`);
    const again = await anonymous().post('/api/auth/confirm', { token, password: PASSWORD });
    expect(again.statusCode).toBe(400);
    expect(again.json()).toEqual({ error: ERR.invalidConfirmationLink });
  });

  it('lets one of two confirmations with one link through, and none after it expired', async () => {
    const name = unique('twice');
    expect((await register({ username: name, email: `${name}@example.com` })).statusCode).toBe(202);
    await sender.tick();
    const token = linkIn(
      await mailTo(`${name}@example.com`, 'Confirm your new Docket account'),
      'confirm-email',
    );
    const both = await Promise.all([
      anonymous().post('/api/auth/confirm', { token, password: PASSWORD }),
      anonymous().post('/api/auth/confirm', { token, password: PASSWORD }),
    ]);
    expect(both.map((r) => r.statusCode).sort()).toEqual([201, 400]);
    const users = await db().kysely.selectFrom('users').select('id').where('username', '=', name).execute();
    expect(users).toHaveLength(1);

    const late = unique('late');
    await register({ username: late, email: `${late}@example.com` });
    await sender.tick();
    const lateToken = linkIn(
      await mailTo(`${late}@example.com`, 'Confirm your new Docket account'),
      'confirm-email',
    );
    await db()
      .kysely.updateTable('registration_confirmations')
      .set({ expires_at: new Date(Date.now() - 1000).toISOString() })
      .where('username', '=', late)
      .execute();
    const expired = await anonymous().post('/api/auth/confirm', { token: lateToken, password: PASSWORD });
    expect(expired.statusCode).toBe(400);
    expect(expired.json()).toEqual({ error: ERR.invalidConfirmationLink });
    const made = await anonymous().post('/api/auth/confirm', { token: 'x'.repeat(43), password: PASSWORD });
    expect(made.statusCode).toBe(400);
  });

  it('says at confirmation that the username was taken meanwhile (by an administrator), and makes nothing', async () => {
    const name = unique('race');
    await register({ username: name, email: `${name}@example.com` });
    await sender.tick();
    const token = linkIn(
      await mailTo(`${name}@example.com`, 'Confirm your new Docket account'),
      'confirm-email',
    );
    const made = await admin.post('/api/admin/users', {
      username: name,
      password: PASSWORD,
      confirmPassword: PASSWORD,
    });
    expect(made.statusCode, made.body).toBe(201);
    const res = await anonymous().post('/api/auth/confirm', { token, password: PASSWORD });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ error: ERR.usernameTaken });
  });

  it('sends one address at most three account messages an hour', async () => {
    const owner = await person();
    for (let i = 0; i < 5; i++)
      expect((await register({ username: unique('flood'), email: owner.email })).statusCode).toBe(202);
    await sender.tick();
    await mailbox.waitFor(owner.email, 3);
    const queued = await db()
      .kysely.selectFrom('mail_outbox')
      .select('kind')
      .where('to_address', '=', owner.email)
      .execute();
    expect(queued.map((r) => r.kind)).toEqual(['account_notice', 'account_notice', 'account_notice']);
    expect((await rows()).account_requests).toBe(0);
  });

  it('refuses a registration without an e-mail address with 400 naming the field, and bad confirmations', async () => {
    const res = await register({ username: unique('noaddr') });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ error: ERR.validation, details: [{ path: 'email' }] });
    for (const body of [{}, { token: 'short', password: PASSWORD }, { token: 'x'.repeat(43) }]) {
      expect((await anonymous().post('/api/auth/confirm', body)).statusCode, JSON.stringify(body)).toBe(400);
    }
  });

  it('tells the sign-in pages, and records the change in the audit log', async () => {
    expect((await anonymous().get('/api/auth/options')).json().emailConfirmation).toBe(true);
    const audit = await admin.get('/api/admin/audit?action=admin.settings_updated');
    expect(audit.json().items[0].details).toEqual({ requireEmailConfirmation: true });
  });
});

describe('registration without e-mail confirmation', () => {
  it('creates the account at once and names a taken username or address (the setting is off)', async () => {
    expect((await anonymous().get('/api/auth/options')).json().emailConfirmation).toBe(false);
    const owner = await person();
    const taken = await register({ username: owner.username });
    expect(taken.statusCode).toBe(400);
    expect(taken.json()).toEqual({ error: ERR.usernameTaken });
    const address = await register({ username: unique('x'), email: owner.email });
    expect(address.json()).toEqual({ error: ERR.emailTaken });
    const fresh = await register({ username: unique('now') });
    expect(fresh.statusCode).toBe(201);
  });

  it('cannot be turned on without e-mail, and registration answers 503 if e-mail went away', async () => {
    const plain = await createTestApp();
    try {
      const first = await signUp(plain.app);
      const on = await first.patch('/api/admin/security', { requireEmailConfirmation: true });
      expect(on.statusCode).toBe(400);
      expect(on.json()).toEqual({ error: ERR.emailConfirmationNeedsMail });
      // The setting stays from a time when e-mail was configured.
      await plain.app.services.db.kysely
        .updateTable('system_settings')
        .set({ require_email_confirmation: 1 })
        .execute();
      const res = await clientFor(plain.app, {}).post('/api/auth/register', {
        username: unique('late'),
        email: `${unique('late')}@example.com`,
        password: PASSWORD,
      });
      expect(res.statusCode).toBe(503);
      expect(res.json()).toEqual({ error: ERR.registrationNeedsMail });
    } finally {
      await plain.close();
    }
  });
});
