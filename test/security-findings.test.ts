/**
 * Issue 19: each finding of the probe, tried as the attacker did. Each test failed before its fix.
 */
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_STREAMS_PER_CREDENTIAL } from '../src/events/streams.js';
import { createTestApp, type TestApp } from './helpers/app.js';
import { addMember, makeProject, makeTicket } from './helpers/board.js';
import { type Client, PASSWORD, signIn, signUp, unique } from './helpers/factories.js';
import { multipartBody } from './helpers/files.js';
import { SseClient } from './helpers/sse.js';

let t: TestApp;
let admin: Client;

beforeAll(async () => {
  t = await createTestApp();
  admin = await signUp(t.app); // the first account is a system administrator
});
afterAll(async () => t.close());

const db = () => t.app.services.db.kysely;

describe('finding 1: a linked ticket of another project', () => {
  it('shows nothing of a ticket the reader cannot see, in reads, answers and events', async () => {
    const both = await signUp(t.app);
    const onlyA = await signUp(t.app);
    const pa = await makeProject(both, { name: 'A' });
    const pb = await makeProject(both, { name: 'B' });
    const bMember = await addMember(both, pb.id, onlyA);
    await addMember(both, pa.id, onlyA);
    const a1 = await makeTicket(both, pa.id, { title: 'Public A' });
    const b1 = await makeTicket(both, pb.id, { title: 'Secret B', priority: 'Critical' });
    const linked = await both.post(`/api/projects/${pa.id}/tickets/${a1.id}/links`, {
      targetTicketId: b1.key,
      linkType: 'blocks',
    });
    expect(linked.statusCode, linked.body).toBe(201);
    const read = (c: Client) => c.get(`/api/projects/${pa.id}/tickets/${a1.id}`);
    // A member of both sees it; so does the member of A while still in B.
    expect((await read(both)).json().links[0].ticket.title).toBe('Secret B');
    expect((await read(onlyA)).json().links[0].ticket.title).toBe('Secret B');
    // Removed from B: the link shows nothing of B-1 any more.
    const removed = await both.del(`/api/projects/${pb.id}/members/${bMember.id}`);
    expect(removed.statusCode, removed.body).toBe(200);
    const after = await read(onlyA);
    expect(after.statusCode).toBe(200);
    expect(after.json().links).toEqual([]);
    expect(after.body).not.toContain('Secret B');
    expect(after.body).not.toContain(b1.id);
    // The member of both still sees it (the kept read is the same text for both).
    expect((await read(both)).json().links).toHaveLength(1);
    // An update's answer is filtered for its caller.
    const patched = await onlyA.patch(`/api/projects/${pa.id}/tickets/${a1.id}`, { title: 'Public A2' });
    expect(patched.statusCode, patched.body).toBe(200);
    expect(patched.body).not.toContain('Secret B');
    const bulk = await onlyA.patch(`/api/projects/${pa.id}/tickets`, {
      ticketIds: [a1.id],
      updates: { priority: 'High' },
    });
    expect(bulk.statusCode, bulk.body).toBe(200);
    expect(bulk.body).not.toContain('Secret B');
    // Project A's events (read by every member of A) never name B-1's fields.
    const events = await db()
      .selectFrom('events')
      .select(['type', 'data'])
      .where('project_id', '=', pa.id)
      .execute();
    expect(events.length).toBeGreaterThan(2);
    for (const e of events) {
      expect(e.data).not.toContain('Secret B');
      expect(e.data).not.toContain('Critical');
    }
    // A system administrator reads every project.
    expect((await read(admin)).json().links[0].ticket.title).toBe('Secret B');
  });
});

describe('finding 2: the password-attempt limit', () => {
  let s: TestApp;
  let sAdmin: Client;
  beforeAll(async () => {
    s = await createTestApp({
      DOCKET_LOGIN_LIMIT: '3',
      DOCKET_LOGIN_ADDRESS_LIMIT: '5',
      DOCKET_TRUST_PROXY: 'true',
    });
    sAdmin = await signUp(s.app); // the first account is a system administrator
  });
  afterAll(async () => s.close());

  const login = (username: string, password: string, headers: Record<string, string> = {}) =>
    s.app.inject({
      method: 'POST',
      url: '/api/auth/callback/credentials',
      payload: { username, password },
      headers,
    });

  it('counts attempts sent in parallel before the hash check', async () => {
    const u = await signUp(s.app, { username: unique('par') });
    const answers = await Promise.all(
      Array.from({ length: 30 }, () => login(u.username, 'Wrong-password-1')),
    );
    const codes = answers.map((a) => a.statusCode).sort();
    expect(codes.filter((c) => c === 401)).toHaveLength(3);
    expect(codes.filter((c) => c === 429)).toHaveLength(27);
    expect(answers.find((a) => a.statusCode === 429)?.headers['retry-after']).toBeDefined();
    // Now even the right password waits.
    expect((await login(u.username, PASSWORD)).statusCode).toBe(429);
  });

  it('counts one account whether it is named by username or e-mail', async () => {
    const name = unique('sw');
    await signUp(s.app, { username: name, email: `${name}@example.com` });
    const names = [name, `${name}@example.com`, name.toUpperCase(), `${name}@EXAMPLE.com`];
    const codes = [];
    for (const n of names)
      codes.push(
        (await login(n, 'Wrong-password-1', { 'x-forwarded-for': `10.1.0.${codes.length}` })).statusCode,
      );
    expect(codes).toEqual([401, 401, 401, 429]);
  });

  it('does not count successful sign-ins', async () => {
    const u = await signUp(s.app, { username: unique('ok') });
    for (let i = 0; i < 6; i++) {
      expect((await login(u.username, PASSWORD, { 'x-forwarded-for': '10.9.9.9' })).statusCode).toBe(200);
    }
  });

  it('counts per address behind the configured proxy, whatever X-Forwarded-For the client writes', async () => {
    // The proxy (the socket's peer) appends the address it saw; the client wrote the rest.
    const codes = [];
    for (let i = 0; i < 7; i++) {
      const res = await login(unique('spray'), 'Wrong-password-1', {
        'x-forwarded-for': `203.0.113.${i}, 198.51.100.7`,
      });
      codes.push(res.statusCode);
    }
    expect(codes).toEqual([401, 401, 401, 401, 401, 429, 429]);
    // Another client address behind the same proxy is not affected.
    expect(
      (await login(unique('spray'), 'Wrong-password-1', { 'x-forwarded-for': '198.51.100.8' })).statusCode,
    ).toBe(401);
  });

  it("throttles wrong current passwords on the account endpoints and the administrators' confirmations", async () => {
    const u = await signUp(s.app, { username: unique('me') });
    const addr = { 'x-forwarded-for': '10.2.0.1' };
    const tries = [
      () =>
        u.req({
          method: 'PATCH',
          url: '/api/me/password',
          headers: addr,
          payload: { currentPassword: 'Wrong-password-1', newPassword: 'Another-pass-42' },
        }),
      () =>
        u.req({
          method: 'PATCH',
          url: '/api/me/email',
          headers: addr,
          payload: { email: 'x@example.com', password: 'Wrong-password-1' },
        }),
      () =>
        u.req({
          method: 'DELETE',
          url: '/api/me/account',
          headers: addr,
          payload: { password: 'Wrong-password-1', confirmation: 'delete my account' },
        }),
    ];
    const codes = [];
    for (const t of tries) codes.push((await t()).statusCode);
    expect(codes).toEqual([400, 400, 400]);
    // The fourth, even with the right password, is refused: and so is signing in.
    const right = await u.req({
      method: 'PATCH',
      url: '/api/me/password',
      headers: addr,
      payload: { currentPassword: PASSWORD, newPassword: 'Another-pass-42' },
    });
    expect(right.statusCode).toBe(429);
    expect((await login(u.username, PASSWORD, addr)).statusCode).toBe(429);
  });

  it("throttles an administrator's wrong confirmations", async () => {
    const a = sAdmin;
    const codes = [];
    for (let i = 0; i < 4; i++) {
      const res = await a.req({
        method: 'POST',
        url: '/api/admin/database/wipe-projects',
        headers: { 'x-forwarded-for': '10.3.0.1' },
        payload: { confirmPassword: 'Wrong-password-1' },
      });
      codes.push(res.statusCode);
    }
    expect(codes).toEqual([400, 400, 400, 429]);
  });
});

describe('finding 3: login CSRF', () => {
  const form = (url: string, body: string, origin?: string) =>
    t.app.inject({
      method: 'POST',
      url,
      payload: body,
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...(origin ? { origin } : {}) },
    });

  it('refuses a cross-site sign-in or registration, form or JSON, and sets no cookie', async () => {
    const u = await signUp(t.app);
    const res = await form(
      '/api/auth/callback/credentials',
      `username=${u.username}&password=${PASSWORD}`,
      'https://evil.example',
    );
    expect(res.statusCode).toBe(403);
    expect(res.json()).toEqual({ error: 'Cross-site request refused' });
    expect(res.cookies).toHaveLength(0);
    const json = await t.app.inject({
      method: 'POST',
      url: '/api/auth/callback/credentials',
      payload: { username: u.username, password: PASSWORD },
      headers: { origin: 'null' },
    });
    expect(json.statusCode).toBe(403);
    const reg = await t.app.inject({
      method: 'POST',
      url: '/api/auth/register',
      payload: { username: unique('csrf'), password: PASSWORD },
      headers: { origin: 'https://evil.example' },
    });
    expect(reg.statusCode).toBe(403);
    // The same form from this site signs in.
    const own = await form(
      '/api/auth/callback/credentials',
      `username=${u.username}&password=${PASSWORD}`,
      'http://localhost:80',
    );
    expect(own.statusCode, own.body).toBe(200);
  });

  it('parses forms only where a form is expected', async () => {
    const u = await signUp(t.app);
    const res = await u.req({
      method: 'POST',
      url: '/api/projects',
      payload: 'name=Forged&key=FORGED',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(res.statusCode).toBe(415);
    expect((await u.get('/api/projects')).json()).toEqual([]);
  });
});

describe('finding 4: open redirect on sign-out', () => {
  it('never answers with a Location on another site', async () => {
    for (const callbackUrl of [
      '/..//evil.example',
      '/./..//evil.example/x',
      '/a/../..//evil.example',
      '/%2e%2e//evil.example',
    ]) {
      const res = await t.app.inject({ method: 'POST', url: '/api/auth/signout', payload: { callbackUrl } });
      expect(res.statusCode).toBe(302);
      const loc = String(res.headers.location);
      expect(loc.startsWith('//')).toBe(false);
      expect(new URL(loc, 'http://docket.test').host).toBe('docket.test');
    }
  });
});

describe('finding 5: resources one client can hold', () => {
  it('ends a request whose body stops half-way', async () => {
    const s = await createTestApp({ DOCKET_REQUEST_TIMEOUT_SECONDS: '1' });
    try {
      await s.app.listen({ port: 0, host: '127.0.0.1' });
      const { port } = s.app.server.address() as net.AddressInfo;
      const socket = net.connect(port, '127.0.0.1');
      await new Promise((r) => socket.once('connect', r));
      let answer = '';
      socket.on('data', (d) => {
        answer += d.toString();
      });
      const closed = new Promise((r) => socket.once('close', () => r(true)));
      socket.write(
        'POST /api/auth/register HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"user',
      );
      // The server ends it (the test's own timeout bounds the wait), answering 408 first.
      expect(await closed).toBe(true);
      socket.destroy();
      expect(answer).toMatch(/^HTTP\/1\.1 408/);
    } finally {
      await s.close();
    }
  }, 15_000);

  it('caps the event streams one session may hold open', async () => {
    const s = await createTestApp();
    const streams: SseClient[] = [];
    try {
      const u = await signUp(s.app);
      await s.app.listen({ port: 0, host: '127.0.0.1' });
      const { port } = s.app.server.address() as net.AddressInfo;
      const url = `http://127.0.0.1:${port}/api/users/events`;
      for (let i = 0; i < MAX_STREAMS_PER_CREDENTIAL; i++) {
        const c = await SseClient.open(url, { cookie: u.cookie });
        streams.push(c);
        expect(c.status).toBe(200);
      }
      const over = await SseClient.open(url, { cookie: u.cookie });
      streams.push(over);
      expect(over.status).toBe(429);
      // Another session of another user is not affected.
      const other = await signUp(s.app);
      const ok = await SseClient.open(url, { cookie: other.cookie });
      streams.push(ok);
      expect(ok.status).toBe(200);
    } finally {
      for (const c of streams) c.close();
      await s.close();
    }
  }, 20_000);

  it('holds each user to an upload quota', async () => {
    const s = await createTestApp({ DOCKET_UPLOAD_QUOTA_BYTES: '1000' });
    try {
      const u = await signUp(s.app);
      const send = (bytes: number) =>
        u.req({
          method: 'POST',
          url: '/api/upload',
          ...multipartBody([
            { filename: 'notes.txt', contentType: 'text/plain', data: Buffer.alloc(bytes, 'a') },
          ]),
        });
      expect((await send(600)).statusCode).toBe(201);
      const over = await send(600);
      expect(over.statusCode).toBe(400);
      expect(over.json()).toEqual({ error: 'Upload quota exceeded', quota: 1000, used: 600 });
      expect((await send(400)).statusCode).toBe(201);
      expect((await send(1)).json().error).toBe('Upload quota exceeded');
      const rows = await s.app.services.db.kysely.selectFrom('uploads').select('size').execute();
      expect(rows.map((r) => r.size).sort()).toEqual([400, 600]);
      expect(fs.readdirSync(path.join(s.config.dataDir, 'uploads', 'files'))).toHaveLength(2);
    } finally {
      await s.close();
    }
  });

  it('checks the password of a backup import before reading the file', async () => {
    const body = new PassThrough();
    const boundary = '----docketsec';
    const done = t.app.inject({
      method: 'POST',
      url: '/api/admin/database/import',
      headers: { cookie: admin.cookie, 'content-type': `multipart/form-data; boundary=${boundary}` },
      payload: body,
    });
    body.write(
      `--${boundary}\r\nContent-Disposition: form-data; name="confirmPassword"\r\n\r\nWrong-password-1\r\n` +
        `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="b.json"\r\nContent-Type: application/json\r\n\r\n{"format":`,
    );
    // The file never ends: the answer must come anyway, from the password check.
    const res = await Promise.race([done, new Promise<null>((r) => setTimeout(() => r(null), 5000))]);
    body.destroy();
    expect(res?.statusCode).toBe(400);
    expect(res?.json().error).toBe('Invalid password confirmation');
    expect(fs.readdirSync(path.join(t.config.dataDir, 'tmp'))).toEqual([]);
  }, 10_000);
});

describe('finding 6: the small leaks', () => {
  const SECURITY = [
    'x-content-type-options',
    'x-frame-options',
    'referrer-policy',
    'content-security-policy',
  ];

  it("answers Fastify's own 400, 404 and 414 with the security headers and without the URL", async () => {
    const probes = [
      { url: '/api/projects/%E0%A4%A<script>', status: 400 },
      { url: '/nothing-here/<script>', status: 404 },
      { url: `/api/projects/${'<script>'.repeat(40)}`, status: 414 },
    ];
    for (const p of probes) {
      const res = await t.app.inject({ method: 'GET', url: p.url });
      expect(res.statusCode, p.url).toBe(p.status);
      for (const h of SECURITY) expect(res.headers[h], `${p.url} ${h}`).toBeDefined();
      expect(res.body).not.toContain('script');
      expect(res.body).not.toContain('%E0');
      expect(typeof res.json().error).toBe('string');
    }
  });

  it('answers Node-level client errors with the security headers', async () => {
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = t.app.server.address() as net.AddressInfo;
    const socket = net.connect(port, '127.0.0.1');
    let answer = '';
    socket.on('data', (d) => {
      answer += d.toString();
    });
    socket.write('GET /<script> HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n');
    await new Promise((r) => socket.once('close', r));
    expect(answer).toMatch(/^HTTP\/1\.1 400/);
    expect(answer.toLowerCase()).toContain('x-content-type-options: nosniff');
    expect(answer).not.toContain('script');
  });

  it('marks API answers Cache-Control: no-store', async () => {
    for (const url of ['/api/me', '/api/projects', '/api/auth/session', '/api/nope']) {
      const res = await admin.get(url);
      expect(res.headers['cache-control'], url).toBe('no-store');
    }
  });

  it('answers the same for right and wrong passwords of a disabled account', async () => {
    const u = await signUp(t.app);
    const off = await admin.patch(`/api/admin/users/${u.userId}`, { isActive: false });
    expect(off.statusCode, off.body).toBe(200);
    const attempt = (password: string) =>
      t.app.inject({
        method: 'POST',
        url: '/api/auth/callback/credentials',
        payload: { username: u.username, password },
      });
    const right = await attempt(PASSWORD);
    const wrong = await attempt('Wrong-password-1');
    expect([right.statusCode, right.body]).toEqual([wrong.statusCode, wrong.body]);
    expect(right.cookies).toHaveLength(0);
  });

  it('enforces mustChangePassword in the API', async () => {
    const name = unique('tmp');
    const made = await admin.post('/api/admin/users', {
      username: name,
      password: PASSWORD,
      confirmPassword: PASSWORD,
    });
    expect(made.statusCode, made.body).toBe(201);
    await db().updateTable('users').set({ must_change_password: 1 }).where('username', '=', name).execute();
    const u = await signIn(t.app, name);
    expect((await u.get('/api/projects')).statusCode).toBe(403);
    expect((await u.get('/api/projects')).json()).toEqual({ error: 'Password change required' });
    expect((await u.post('/api/projects', { name: 'X', key: 'MUSTX' })).statusCode).toBe(403);
    expect((await u.get('/api/me')).json().mustChangePassword).toBe(true);
    expect((await u.get('/api/auth/session')).json().user.mustChangePassword).toBe(true);
    const changed = await u.patch('/api/me/password', {
      currentPassword: PASSWORD,
      newPassword: 'Brand-new-pass-43',
    });
    expect(changed.statusCode, changed.body).toBe(200);
    const again = await signIn(t.app, name, 'Brand-new-pass-43');
    expect((await again.get('/api/projects')).statusCode).toBe(200);
  });

  it('refuses constructor.prototype and __proto__ in JSON bodies', async () => {
    for (const payload of [
      '{"name":"P","key":"PROTO1","constructor":{"prototype":{"isSystemAdmin":true}}}',
      '{"name":"P","key":"PROTO2","__proto__":{"isSystemAdmin":true}}',
    ]) {
      const res = await admin.req({
        method: 'POST',
        url: '/api/projects',
        payload,
        headers: { 'content-type': 'application/json' },
      });
      expect(res.statusCode, payload).toBe(400);
      expect(res.json().error).toBe('Validation failed');
    }
    expect(
      await db().selectFrom('projects').select('id').where('key', 'in', ['PROTO1', 'PROTO2']).execute(),
    ).toEqual([]);
  });

  it('strips bidirectional controls from file names', async () => {
    const res = await admin.req({
      method: 'POST',
      url: '/api/upload',
      ...multipartBody([
        {
          filename: 'report\u202Etxt.exe\u202C\u2066\u200F.txt',
          contentType: 'text/plain',
          data: Buffer.from('hello'),
        },
      ]),
    });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().filename).toBe('reporttxt.exe.txt');
  });
});
