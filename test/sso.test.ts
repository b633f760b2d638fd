/**
 * Single sign-on with OpenID Connect (issue 19), against a real OpenID provider process
 * (oidc-provider), driven through its real redirects: linking by verified e-mail, creating
 * accounts, the policies, and the refusals of a forged, replayed or foreign callback.
 */
import type { FastifyInstance } from 'fastify';
import { Secret, TOTP } from 'otpauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';
import { createTestApp, type TestApp } from './helpers/app.js';
import { type Client, clientFor, PASSWORD, signUp, unique } from './helpers/factories.js';
import { startProvider, type TestProvider } from './helpers/oidc.js';
import { freePort } from './helpers/server.js';

const PUBLIC = 'http://docket.test';
const CALLBACK = `${PUBLIC}/api/auth/oidc/callback`;

let provider: TestProvider;
let t: TestApp;
let admin: Client;

const oidcEnv = (extra: Record<string, string> = {}) => ({
  DOCKET_PUBLIC_URL: PUBLIC,
  DOCKET_OIDC_ISSUER: provider.issuer,
  DOCKET_OIDC_CLIENT_ID: 'docket',
  DOCKET_OIDC_CLIENT_SECRET: 'docket-secret',
  DOCKET_OIDC_NAME: 'Acme ID',
  ...extra,
});

beforeAll(async () => {
  provider = await startProvider([CALLBACK]);
  t = await createTestApp(oidcEnv());
  admin = await signUp(t.app);
}, 60_000);
afterAll(async () => {
  await t?.close();
  await provider?.stop();
});

interface SsoResult {
  status: number;
  location: string;
  cookie: string | null;
}

/** A whole single sign-on as `sub`: Docket's start, the provider's pages, Docket's callback. */
async function sso(app: FastifyInstance, sub: string, callbackUrl = '/projects'): Promise<SsoResult> {
  const start = await app.inject({
    method: 'GET',
    url: `/api/auth/oidc/start?callbackUrl=${encodeURIComponent(callbackUrl)}`,
  });
  expect(start.statusCode, start.body).toBe(302);
  const state = start.cookies.find((c) => c.name === 'docket_oidc');
  expect(state?.httpOnly).toBe(true);
  const back = await provider.signIn(String(start.headers.location), sub, CALLBACK);
  const res = await app.inject({
    method: 'GET',
    url: `${back.pathname}${back.search}`,
    headers: { cookie: `docket_oidc=${state?.value}` },
  });
  const session = res.cookies.find((c) => c.name === 'docket_session');
  return {
    status: res.statusCode,
    location: String(res.headers.location),
    cookie: session?.value ? `docket_session=${session.value}` : null,
  };
}

async function whoAmI(app: FastifyInstance, cookie: string | null) {
  expect(cookie).not.toBeNull();
  const res = await clientFor(app, { cookie: cookie as string }).get('/api/auth/session');
  return res.json().user as { id: string; username: string; email: string | null };
}

async function auditOf(action: string, userId: string) {
  const res = await admin.get(`/api/admin/audit?action=${action}&actor=${userId}`);
  expect(res.statusCode, res.body).toBe(200);
  return res.json().items as { action: string; details: Record<string, unknown> | null }[];
}

describe('single sign-on with a real OpenID provider', () => {
  it('offers the button on the sign-in page', async () => {
    const res = await clientFor(t.app, {}).get('/api/auth/options');
    expect(res.json()).toMatchObject({
      sso: { name: 'Acme ID', url: '/api/auth/oidc/start' },
      passwordSignIn: 'everyone',
    });
  });

  it('links an existing account by verified e-mail, then by the provider account alone', async () => {
    const email = `${unique('ann')}@example.com`;
    const ann = await signUp(t.app, { email });
    const sub = unique('sub-ann');
    provider.setAccount(sub, { email: email.toUpperCase(), email_verified: true, name: 'Ann' });
    const first = await sso(t.app, sub, '/projects?x=1');
    expect(first.status).toBe(302);
    expect(first.location).toBe('/projects?x=1');
    expect((await whoAmI(t.app, first.cookie)).id).toBe(ann.userId);

    // The provider account keeps signing in as Ann after its e-mail changes.
    provider.setAccount(sub, { email: `${unique('other')}@example.com`, email_verified: true });
    const second = await sso(t.app, sub);
    expect((await whoAmI(t.app, second.cookie)).id).toBe(ann.userId);

    expect((await auditOf('account.sso_linked', ann.userId)).length).toBe(1);
    const logins = await auditOf('auth.login', ann.userId);
    expect(logins.filter((l) => l.details?.method === 'single sign-on')).toHaveLength(2);
  });

  it('does not link by an unverified e-mail: it creates another account without that address', async () => {
    const email = `${unique('bob')}@example.com`;
    const bob = await signUp(t.app, { email });
    const sub = unique('sub-mallory');
    provider.setAccount(sub, { email, email_verified: false, preferred_username: 'mallory' });
    const res = await sso(t.app, sub);
    expect(res.status).toBe(302);
    const me = await whoAmI(t.app, res.cookie);
    expect(me.id).not.toBe(bob.userId);
    expect(me.email).toBeNull();
  });

  it('creates an account named after the provider username, numbered when the name is taken', async () => {
    const name = unique('carol');
    await signUp(t.app, { username: name });
    const sub = unique('sub-carol');
    provider.setAccount(sub, {
      email: `${unique('carol')}@example.com`,
      email_verified: true,
      preferred_username: name,
      name: 'Carol C',
    });
    const res = await sso(t.app, sub);
    const me = await whoAmI(t.app, res.cookie);
    expect(me.username).toBe(`${name}-2`);
    expect((await auditOf('account.sso_created', me.id)).length).toBe(1);
    // Its random password is nobody's: a password sign-in fails.
    const pw = await t.app.inject({
      method: 'POST',
      url: '/api/auth/callback/credentials',
      payload: { username: me.username, password: PASSWORD },
    });
    expect(pw.statusCode).toBe(401);
  });

  it('refuses a callback in a browser that did not start it, and a replayed one', async () => {
    const sub = unique('sub-dave');
    provider.setAccount(sub, { email: `${unique('dave')}@example.com`, email_verified: true });
    const start = await t.app.inject({ method: 'GET', url: '/api/auth/oidc/start' });
    const state = start.cookies.find((c) => c.name === 'docket_oidc')?.value;
    const back = await provider.signIn(String(start.headers.location), sub, CALLBACK);
    const url = `${back.pathname}${back.search}`;
    const foreign = await t.app.inject({ method: 'GET', url });
    expect(foreign.statusCode).toBe(302);
    expect(foreign.headers.location).toBe('/sign-in?sso=failed');
    expect(foreign.cookies.find((c) => c.name === 'docket_session')).toBeUndefined();
    const wrong = await t.app.inject({ method: 'GET', url, headers: { cookie: 'docket_oidc=forged' } });
    expect(wrong.headers.location).toBe('/sign-in?sso=failed');
    const ok = await t.app.inject({ method: 'GET', url, headers: { cookie: `docket_oidc=${state}` } });
    expect(ok.headers.location).toBe('/');
    const replay = await t.app.inject({ method: 'GET', url, headers: { cookie: `docket_oidc=${state}` } });
    expect(replay.headers.location).toBe('/sign-in?sso=failed');
    // Callbacks nobody started write nothing to the audit log (anyone can send them).
    const failures = await admin.get('/api/admin/audit?action=auth.login_failed');
    expect(failures.body).not.toMatch(/single sign-on: (state|unknown)/);
  });

  it("does not ask for Docket's two-factor code: the provider's sign-in counts", async () => {
    const email = `${unique('tf')}@example.com`;
    const u = await signUp(t.app, { email });
    const { secret } = (await u.post('/api/me/two-factor')).json();
    const code = TOTP.generate({
      secret: Secret.fromBase32(secret),
      algorithm: 'SHA1',
      digits: 6,
      period: 30,
    });
    expect((await u.post('/api/me/two-factor/enable', { code })).statusCode).toBe(200);
    const password = await t.app.inject({
      method: 'POST',
      url: '/api/auth/callback/credentials',
      payload: { username: u.username, password: PASSWORD },
    });
    expect(password.json().twoFactor).toBe(true);
    const sub = unique('sub-tf');
    provider.setAccount(sub, { email, email_verified: true });
    const res = await sso(t.app, sub);
    expect((await whoAmI(t.app, res.cookie)).id).toBe(u.userId);
  });

  it('refuses a disabled account, and sends another site back to the root', async () => {
    const email = `${unique('erin')}@example.com`;
    const erin = await signUp(t.app, { email });
    const sub = unique('sub-erin');
    provider.setAccount(sub, { email, email_verified: true });
    const evil = await sso(t.app, sub, '//evil.example/x');
    expect(evil.location).toBe('/');
    expect((await admin.patch(`/api/admin/users/${erin.userId}`, { isActive: false })).statusCode).toBe(200);
    const res = await sso(t.app, sub);
    expect(res.location).toBe('/sign-in?sso=disabled');
    expect(res.cookie).toBeNull();
  });

  it('answers a callback without a state or with garbage by going back to the sign-in page', async () => {
    for (const url of [
      '/api/auth/oidc/callback',
      '/api/auth/oidc/callback?code=x&state=y&error=access_denied',
    ]) {
      const res = await t.app.inject({ method: 'GET', url, headers: { cookie: 'docket_oidc=y' } });
      expect(res.statusCode).toBe(302);
      expect(res.headers.location).toBe('/sign-in?sso=failed');
    }
    // The person said no at the provider: recorded, as a refusal of a sign-in this browser started.
    const start = await t.app.inject({ method: 'GET', url: '/api/auth/oidc/start' });
    const state = start.cookies.find((c) => c.name === 'docket_oidc')?.value as string;
    const denied = await t.app.inject({
      method: 'GET',
      url: `/api/auth/oidc/callback?error=access_denied&state=${encodeURIComponent(state)}`,
      headers: { cookie: `docket_oidc=${state}` },
    });
    expect(denied.headers.location).toBe('/sign-in?sso=failed');
    const failures = await admin.get('/api/admin/audit?action=auth.login_failed');
    expect(failures.body).toContain('single sign-on: provider: access_denied');
  });
});

describe('single sign-on policies', () => {
  it('works as a public client with PKCE only', async () => {
    const pub = await createTestApp(
      oidcEnv({ DOCKET_OIDC_CLIENT_ID: 'docket-public', DOCKET_OIDC_CLIENT_SECRET: '' }),
    );
    try {
      const sub = unique('sub-pub');
      provider.setAccount(sub, { email: `${unique('pub')}@example.com`, email_verified: true });
      const res = await sso(pub.app, sub);
      expect(res.location).toBe('/projects');
      expect((await whoAmI(pub.app, res.cookie)).email).toContain('@example.com');
    } finally {
      await pub.close();
    }
  });

  it('without account creation, refuses an unknown person and creates nothing', async () => {
    const closed = await createTestApp(oidcEnv({ DOCKET_OIDC_CREATE_ACCOUNTS: 'false' }));
    try {
      const sub = unique('sub-frank');
      provider.setAccount(sub, { email: `${unique('frank')}@example.com`, email_verified: true });
      const before = await closed.app.services.db.kysely.selectFrom('users').select('id').execute();
      const res = await sso(closed.app, sub);
      expect(res.location).toBe('/sign-in?sso=no-account');
      expect(res.cookie).toBeNull();
      const after = await closed.app.services.db.kysely.selectFrom('users').select('id').execute();
      expect(after).toHaveLength(before.length);
    } finally {
      await closed.close();
    }
  });

  it('lets only the allowed e-mail domains in, with a verified address', async () => {
    const domains = await createTestApp(oidcEnv({ DOCKET_OIDC_ALLOWED_DOMAINS: 'acme.example, b.example' }));
    try {
      const inside = unique('sub-in');
      provider.setAccount(inside, { email: `${unique('g')}@acme.example`, email_verified: true });
      expect((await sso(domains.app, inside)).location).toBe('/projects');
      const outside = unique('sub-out');
      provider.setAccount(outside, { email: `${unique('h')}@elsewhere.example`, email_verified: true });
      expect((await sso(domains.app, outside)).location).toBe('/sign-in?sso=domain');
      const unverified = unique('sub-unv');
      provider.setAccount(unverified, { email: `${unique('i')}@acme.example`, email_verified: false });
      expect((await sso(domains.app, unverified)).location).toBe('/sign-in?sso=unverified');
    } finally {
      await domains.close();
    }
  });

  it('with single sign-on only, keeps passwords for administrators and closes registration', async () => {
    const only = await createTestApp(oidcEnv({ DOCKET_OIDC_ONLY: 'true' }));
    try {
      const boss = await only.app.inject({
        method: 'POST',
        url: '/api/auth/register',
        payload: { username: unique('boss'), password: PASSWORD },
      });
      expect(boss.statusCode).toBe(403);
      // The first account (made directly, as an operator would) is an administrator.
      const { createUserDirect } = await import('../src/domain/users.js');
      const s = only.app.services;
      const adminName = unique('root');
      const userName = unique('plain');
      await createUserDirect(s, { username: adminName, password: PASSWORD, isSystemAdmin: true });
      await createUserDirect(s, { username: userName, password: PASSWORD, isSystemAdmin: false });
      const login = (username: string) =>
        only.app.inject({
          method: 'POST',
          url: '/api/auth/callback/credentials',
          payload: { username, password: PASSWORD },
        });
      expect((await login(adminName)).statusCode).toBe(200);
      const refused = await login(userName);
      expect(refused.statusCode).toBe(403);
      expect(refused.json().error).toBe('Password sign-in is off: use single sign-on');
      expect((await clientFor(only.app, {}).get('/api/auth/options')).json()).toMatchObject({
        registration: 'closed',
        passwordSignIn: 'admins',
      });
    } finally {
      await only.close();
    }
  });

  it('refuses to start with an incomplete single sign-on configuration, naming the variable', () => {
    expect(() => loadConfig({ DOCKET_OIDC_ISSUER: 'https://id.example.com' })).toThrow(
      /DOCKET_OIDC_CLIENT_ID/,
    );
    expect(() => loadConfig({ DOCKET_OIDC_ONLY: 'true' })).toThrow(/DOCKET_OIDC_ONLY/);
    expect(() => loadConfig({ DOCKET_OIDC_ALLOWED_DOMAINS: 'not a domain' })).toThrow(
      /DOCKET_OIDC_ALLOWED_DOMAINS/,
    );
    expect(() => loadConfig({ DOCKET_OIDC_ISSUER: 'id.example.com', DOCKET_OIDC_CLIENT_ID: 'x' })).toThrow(
      /DOCKET_OIDC_ISSUER/,
    );
    const ok = loadConfig({
      DOCKET_OIDC_ISSUER: 'https://id.example.com',
      DOCKET_OIDC_CLIENT_ID: 'x',
      DOCKET_REGISTRATION: 'closed',
      DOCKET_OIDC_ALLOWED_DOMAINS: 'Example.com, b.example',
    });
    expect(ok.oidc).toMatchObject({
      name: 'Single sign-on',
      createAccounts: false,
      allowedDomains: ['example.com', 'b.example'],
      only: false,
    });
  });

  it('limits starts per client address with 429', async () => {
    const limited = await createTestApp(oidcEnv({ DOCKET_LOGIN_ADDRESS_LIMIT: '2' }));
    try {
      for (let i = 0; i < 2; i++)
        expect((await limited.app.inject({ method: 'GET', url: '/api/auth/oidc/start' })).statusCode).toBe(
          302,
        );
      const over = await limited.app.inject({ method: 'GET', url: '/api/auth/oidc/start' });
      expect(over.statusCode).toBe(429);
      expect(over.json().error).toBe('Rate limit exceeded');
    } finally {
      await limited.close();
    }
  });

  it('answers 404 when single sign-on is not configured, and goes back to sign-in when the provider is down', async () => {
    const plain = await createTestApp();
    const down = await createTestApp(oidcEnv({ DOCKET_OIDC_ISSUER: `http://127.0.0.1:${await freePort()}` }));
    try {
      const res = await plain.app.inject({ method: 'GET', url: '/api/auth/oidc/start' });
      expect(res.statusCode).toBe(404);
      expect(res.json().error).toBe('Single sign-on is not configured');
      const d = await down.app.inject({ method: 'GET', url: '/api/auth/oidc/start' });
      expect(d.statusCode).toBe(302);
      expect(d.headers.location).toBe('/sign-in?sso=failed');
    } finally {
      await plain.close();
      await down.close();
    }
  });
});
