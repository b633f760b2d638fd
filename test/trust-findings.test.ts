/**
 * The trust findings of issue 49 (decision 058), each a probe that passed before: the audit log's
 * three gaps (a wrong password confirmation, requests refused by a limit, ticket exports), OAuth
 * redirect URIs by an allow-list of schemes, webhook targets in IPv6 that carry a private IPv4
 * address, a missing user added as a member, and the tool server's create_ticket title.
 * Inline uploads: test/upload-access.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AUDITED_REFUSALS_PER_WINDOW } from '../src/domain/refusals.js';
import { isPublicAddress } from '../src/domain/webhooks/targets.js';
import { CATALOGUE } from '../src/mcp/server.js';
import { ERR } from '../src/shared/errors.js';
import { createTestApp, type TestApp } from './helpers/app.js';
import { multipart } from './helpers/backup.js';
import { makeProject, makeTicket } from './helpers/board.js';
import { type Client, PASSWORD, signUp, unique } from './helpers/factories.js';

type Entry = {
  action: string;
  actor: { id: string } | null;
  target: { type: string; id: string | null } | null;
  address: string | null;
  details: Record<string, unknown> | null;
};

async function auditOf(admin: Client, action: string): Promise<Entry[]> {
  const res = await admin.get(`/api/admin/audit?action=${encodeURIComponent(action)}&limit=200`);
  expect(res.statusCode, res.body).toBe(200);
  return res.json().items;
}

describe('the audit log records a wrong password confirmation', () => {
  let t: TestApp;
  let admin: Client;
  beforeAll(async () => {
    t = await createTestApp();
    admin = await signUp(t.app);
  });
  afterAll(async () => t.close());

  it('on every endpoint that takes confirmPassword, with what it was to confirm', async () => {
    const victim = await signUp(t.app);
    const wrong = 'not-my-password';
    const answers = [
      await admin.post('/api/admin/users', {
        username: unique('n'),
        password: PASSWORD,
        confirmPassword: wrong,
      }),
      await admin.del(`/api/admin/users/${victim.userId}`, { confirmPassword: wrong }),
      await admin.post('/api/admin/database/export', { confirmPassword: wrong }),
      await admin.post('/api/admin/database/wipe', { confirmPassword: wrong, confirmation: 'wipe all data' }),
      await admin.post('/api/admin/database/wipe-projects', { confirmPassword: wrong }),
      await admin.req({
        method: 'POST',
        url: '/api/admin/database/import',
        ...multipart({ confirmPassword: wrong }, { content: '{}' }),
      }),
    ];
    for (const res of answers)
      expect(res.json(), res.body).toEqual({ error: ERR.invalidPasswordConfirmation });
    const entries = await auditOf(admin, 'account.password_check_failed');
    expect(entries.map((e) => e.details?.purpose).sort(), 'one entry per wrong confirmation').toEqual([
      'database export',
      'database import',
      'database wipe',
      'projects wipe',
      'user creation',
      'user deletion',
    ]);
    for (const e of entries) {
      expect(e.actor?.id).toBe(admin.userId);
      expect(e.target).toEqual({ type: 'user', id: admin.userId });
      expect(e.details?.field).toBe('confirmPassword');
      expect(e.address).toBeTruthy();
      expect(JSON.stringify(e.details)).not.toContain(wrong);
    }
  });

  it('and a wrong current password of the own account', async () => {
    const user = await signUp(t.app);
    const res = await user.patch('/api/me/email', {
      email: `${unique('e')}@example.com`,
      password: 'nope-nope',
    });
    expect(res.statusCode).toBe(400);
    const entries = (await auditOf(admin, 'account.password_check_failed')).filter(
      (e) => e.actor?.id === user.userId,
    );
    expect(entries).toHaveLength(1);
    expect(entries[0].details).toEqual({ field: 'password' });
  });
});

describe('the audit log records requests refused by a limit, without a flood', () => {
  let t: TestApp;
  let admin: Client;
  beforeAll(async () => {
    t = await createTestApp({ DOCKET_LOGIN_LIMIT: '3', DOCKET_REGISTER_LIMIT: '1', DOCKET_TRUST_PROXY: '1' });
    admin = await signUp(t.app);
  });
  afterAll(async () => t.close());

  const signInAs = (username: string, password: string, from: string) =>
    t.app.inject({
      method: 'POST',
      url: '/api/auth/callback/credentials',
      headers: { 'x-forwarded-for': from },
      payload: { username, password },
    });

  it('one entry for the first refusal of an account in its window, however many follow', async () => {
    // Registration is limited to one per address here: the account comes from an address of its own.
    const username = unique('locked');
    const reg = await t.app.inject({
      method: 'POST',
      url: '/api/auth/register',
      headers: { 'x-forwarded-for': '198.51.100.7' },
      payload: { username, password: PASSWORD },
    });
    expect(reg.statusCode, reg.body).toBe(201);
    const codes: number[] = [];
    for (let i = 0; i < 8; i++)
      codes.push((await signInAs(username, 'wrong-guess', '203.0.113.9')).statusCode);
    expect(codes).toEqual([401, 401, 401, 429, 429, 429, 429, 429]);
    const entries = (await auditOf(admin, 'rate_limit.refused')).filter(
      (e) => e.details?.limit === 'login-account',
    );
    expect(entries).toHaveLength(1);
    const id = reg.json().id;
    expect(entries[0]).toMatchObject({
      actor: null,
      target: { type: 'user', id },
      address: '203.0.113.9',
      details: { limit: 'login-account', route: 'POST /api/auth/callback/credentials' },
    });
    expect(entries[0].details?.retryAfter).toBeGreaterThan(0);
    // An unknown name is an account of its own: its entry names it.
    for (let i = 0; i < 5; i++) await signInAs('nobody-at-all', 'x', '203.0.113.10');
    const named = (await auditOf(admin, 'rate_limit.refused')).filter(
      (e) => e.details?.login === 'nobody-at-all',
    );
    expect(named).toHaveLength(1);
  });

  it(`at most ${AUDITED_REFUSALS_PER_WINDOW} entries a window, then one saying the rest are not recorded`, async () => {
    const before = (await auditOf(admin, 'rate_limit.*')).length;
    // Registrations from many addresses, each over its limit: a request is counted before its
    // body is read, so an empty body counts (400) and the next one is refused (429).
    const register = (from: string) =>
      t.app.inject({
        method: 'POST',
        url: '/api/auth/register',
        headers: { 'x-forwarded-for': from },
        payload: {},
      });
    const addresses = Array.from(
      { length: AUDITED_REFUSALS_PER_WINDOW + 5 },
      (_, i) => `10.9.${i >> 8}.${i & 255}`,
    );
    for (const from of addresses) {
      expect((await register(from)).statusCode).toBe(400);
      expect((await register(from)).statusCode).toBe(429);
      expect((await register(from)).statusCode).toBe(429);
    }
    const all = await auditOf(admin, 'rate_limit.*');
    const added = all.length - before;
    const refused = all.filter((e) => e.action === 'rate_limit.refused');
    const capped = all.filter((e) => e.action === 'rate_limit.audit_capped');
    // The earlier test's two entries count toward this window's cap too.
    expect(refused).toHaveLength(AUDITED_REFUSALS_PER_WINDOW);
    expect(capped).toHaveLength(1);
    expect(added).toBe(AUDITED_REFUSALS_PER_WINDOW - before + 1);
    expect(refused.filter((e) => e.details?.limit === 'register').every((e) => e.actor === null)).toBe(true);
    expect(capped[0].details).toMatchObject({ perWindow: AUDITED_REFUSALS_PER_WINDOW });
  });
});

describe('the audit log records ticket exports', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => t.close());

  it('as CSV and as JSON: who, which project, the format, how many tickets and the filters', async () => {
    const admin = await signUp(t.app);
    const owner = await signUp(t.app);
    const p = await makeProject(owner);
    await makeTicket(owner, p.id, { title: 'One', priority: 'High' });
    await makeTicket(owner, p.id, { title: 'Two' });
    expect((await owner.get(`/api/projects/${p.id}/tickets.csv`)).statusCode).toBe(200);
    expect((await owner.get(`/api/projects/${p.id}/tickets.json?priority=High`)).statusCode).toBe(200);
    const entries = await auditOf(admin, 'project.tickets_exported');
    expect(entries.map((e) => e.details)).toEqual([
      { project: p.key, format: 'json', count: 1, filters: { priority: ['High'] } },
      { project: p.key, format: 'csv', count: 2, filters: {} },
    ]);
    for (const e of entries) {
      expect(e.actor?.id).toBe(owner.userId);
      expect(e.target).toEqual({ type: 'project', id: p.id });
    }
  });
});

describe('OAuth client registration: redirect URIs by an allow-list of schemes', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => t.close());

  const register = (uri: string) =>
    t.app.inject({
      method: 'POST',
      url: '/api/oauth/register',
      payload: { client_name: 'Probe', redirect_uris: [uri], token_endpoint_auth_method: 'none' },
    });

  it.each([
    'ftp://files.example/cb',
    'view-source:https://app.example/cb',
    'javascript:alert(1)',
    'data:text/html,<script>1</script>',
    'file:///etc/passwd',
    'intent://cb#Intent;end',
    'myapp:/callback',
    'ws://app.example/cb',
    'chrome-extension://abcdef/cb',
  ])('refuses %s with a clear 400', async (uri) => {
    const res = await register(uri);
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json().error).toBe('invalid_redirect_uri');
    expect(res.json().error_description).toMatch(/redirect_uris/);
  });

  it('names the schemes it allows', async () => {
    const res = await register('ftp://files.example/cb');
    expect(res.json().error_description).toBe(
      "redirect_uris: the scheme ftp: is not allowed (allowed: https, http on a loopback address (localhost, 127.0.0.1, [::1]), or an app's private-use scheme in reverse-domain form (com.example.app:/callback))",
    );
  });

  it.each([
    'https://app.example/cb',
    'http://127.0.0.1:8123/cb',
    'http://localhost/cb',
    'http://[::1]:9000/cb',
    'com.example.app:/oauth2redirect',
    'io.github.someone.tool://callback',
  ])('accepts %s', async (uri) => {
    const res = await register(uri);
    expect(res.statusCode, res.body).toBe(201);
  });
});

describe('webhook targets: IPv6 addresses that carry a private IPv4 address', () => {
  const refused = [
    '::127.0.0.1',
    '::7f00:1',
    '::10.0.0.1',
    '::8.8.8.8', // IPv4-compatible (::/96) is deprecated: refused whatever it carries
    '::ffff:127.0.0.1',
    '::ffff:0:a00:1',
    '64:ff9b::7f00:1',
    '64:ff9b::192.168.1.1',
    '64:ff9b:1::808:808',
    '2002:7f00:1::1',
    '2002:c0a8:101::1',
    '2002:a9fe:a9fe::1',
  ];
  const allowed = ['::ffff:8.8.8.8', '64:ff9b::808:808', '2002:808:808::1', '2606:4700:4700::1111'];

  it('judges an embedded IPv4 address as that address', () => {
    for (const a of refused) expect(isPublicAddress(a), a).toBe(false);
    for (const a of allowed) expect(isPublicAddress(a), a).toBe(true);
  });

  // Two instances of their own (private targets refused, and allowed).
  it('refuses such a hook with 400, unless private targets are allowed', { timeout: 90_000 }, async () => {
    const strict = await createTestApp();
    const open = await createTestApp({ DOCKET_WEBHOOK_ALLOW_PRIVATE: 'true' });
    try {
      for (const [app, expected] of [
        [strict, 400],
        [open, 201],
      ] as const) {
        await signUp(app.app);
        const owner = await signUp(app.app);
        const p = await makeProject(owner);
        for (const host of ['[::127.0.0.1]', '[::7f00:1]', '[64:ff9b::a9fe:a9fe]', '[2002:a00:1::1]']) {
          const res = await owner.post(`/api/projects/${p.id}/webhooks`, {
            url: `http://${host}:8080/hook`,
            events: ['ticket.created'],
          });
          expect(res.statusCode, `${host}: ${res.body}`).toBe(expected);
          if (expected === 400)
            expect(res.json()).toEqual({
              error: ERR.validation,
              details: [{ path: 'url', message: ERR.webhookTargetRefused }],
            });
        }
      }
    } finally {
      await strict.close();
      await open.close();
    }
  });
});

describe('two answers as SPEC.md and DECISIONS.md say', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => t.close());

  it('POST /api/projects/:id/members with a user that does not exist: 404 User not found', async () => {
    const admin = await signUp(t.app);
    const owner = await signUp(t.app);
    const gone = await signUp(t.app);
    expect((await admin.patch(`/api/admin/users/${gone.userId}`, { isActive: false })).statusCode).toBe(200);
    const p = await makeProject(owner);
    for (const body of [
      { username: 'no-such-user' },
      { userId: '01900000-0000-7000-8000-000000000000' },
      { username: gone.username },
    ]) {
      const res = await owner.post(`/api/projects/${p.id}/members`, body);
      expect(res.statusCode, JSON.stringify(body)).toBe(404);
      expect(res.json()).toEqual({ error: 'User not found' });
    }
  });

  it("the tool server's create_ticket marks title as required", () => {
    const tool = CATALOGUE.find((x) => x.name === 'create_ticket');
    expect(tool?.inputSchema.required).toEqual(expect.arrayContaining(['projectKey', 'title']));
  });
});
