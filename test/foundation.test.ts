import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config.js';
import { connect } from '../src/db/connect.js';
import { migrateToLatest } from '../src/db/migrate.js';
import { buildApp } from '../src/server/app.js';
import { createTestApp, dialect, dropTestData, type TestApp, testConfig } from './helpers/app.js';
import { signUp } from './helpers/factories.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
  t.app.get('/api/test-crash', { config: { auth: 'public' } }, async () => {
    throw new Error('secret internals: SELECT * FROM users');
  });
});
afterAll(async () => t.close());

describe('server basics', () => {
  it('reports health with the database', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/health' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ status: 'ok', database: dialect });
  });

  it('answers unknown API routes with a JSON 404', async () => {
    for (const url of ['/api/nothing-here', '/api/projects/x/y/z/w']) {
      const res = await t.app.inject({ method: 'GET', url, headers: { accept: 'text/html' } });
      expect(res.statusCode).toBe(404);
      expect(res.json()).toEqual({ error: 'Not found' });
    }
  });

  it('turns a crash into a 500 without a stack trace or internals', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/test-crash' });
    expect(res.statusCode).toBe(500);
    expect(res.json()).toEqual({ error: 'Internal server error' });
    expect(res.body).not.toContain('SELECT');
  });

  it('answers 413 for a body over the limit', async () => {
    const u = await signUp(t.app);
    const res = await u.patch('/api/me', { name: 'x'.repeat(1_100_000) });
    expect(res.statusCode).toBe(413);
    expect(res.json()).toEqual({ error: 'Request body too large' });
  });

  it('answers 400 with details for malformed JSON', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/auth/register',
      headers: { 'content-type': 'application/json' },
      payload: '{"username": ',
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toBe('Validation failed');
  });

  it('refuses prototype-pollution keys in JSON bodies with a 400', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/auth/register',
      headers: { 'content-type': 'application/json' },
      payload:
        '{"__proto__": {"isSystemAdmin": true}, "username": "proto_user", "password": "Correct-horse-42"}',
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toBe('Validation failed');
    expect(({} as Record<string, unknown>).isSystemAdmin).toBeUndefined();
    const login = await t.app.inject({
      method: 'POST',
      url: '/api/auth/callback/credentials',
      payload: { username: 'proto_user', password: 'Correct-horse-42' },
    });
    expect(login.statusCode).toBe(401);
  });

  it('serves security headers', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/health' });
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['referrer-policy']).toBe('same-origin');
    expect(res.headers['x-frame-options']).toBe('DENY');
  });

  it('logs one access line per request: method, address, status, time, client and request id', async () => {
    const config = await testConfig();
    const lines: Record<string, unknown>[] = [];
    const stream = new Writable({
      write(chunk, _enc, done) {
        for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line));
        done();
      },
    });
    const app = await buildApp(config, {
      logger: { level: 'info', stream },
      webRoot: path.join(os.tmpdir(), 'docket-no-web'),
    });
    try {
      await app.inject({ method: 'GET', url: '/api/health' });
      await app.inject({ method: 'GET', url: '/api/nothing-here' });
      expect(lines.filter((l) => l.msg === 'request')).toEqual([
        expect.objectContaining({
          method: 'GET',
          url: '/api/health',
          statusCode: 200,
          ip: '127.0.0.1',
          ms: expect.any(Number),
          reqId: expect.any(String),
        }),
        expect.objectContaining({ method: 'GET', url: '/api/nothing-here', statusCode: 404 }),
      ]);
      // Not Fastify's two lines per request as well.
      expect(lines.filter((l) => l.msg === 'incoming request' || l.msg === 'request completed')).toEqual([]);
    } finally {
      await app.close();
      await dropTestData(config);
    }
  });

  it('publishes an OpenAPI 3.1 document of the routes and an API reference page', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/openapi.json' });
    expect(res.statusCode).toBe(200);
    const doc = res.json();
    expect(doc.openapi).toBe('3.1.0');
    for (const p of [
      '/api/auth/register',
      '/api/me',
      '/api/admin/users',
      '/api/admin/users/{userId}',
      '/api/users',
    ]) {
      expect(doc.paths).toHaveProperty([p]);
    }
    expect(doc.paths['/api/auth/register'].post.requestBody).toBeDefined();
    const docs = await t.app.inject({ method: 'GET', url: '/api/docs/' });
    expect(docs.statusCode).toBe(200);
    expect(docs.body).toContain('swagger');
  });
});

describe('web app serving', () => {
  it('serves the app shell at / and for client-side routes, with a CSP', async () => {
    const webRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'docket-web-'));
    fs.writeFileSync(
      path.join(webRoot, 'index.html'),
      '<!doctype html><html><head><title>Shell</title></head><body></body></html>',
    );
    const c = await createTestApp({}, { webRoot });
    try {
      const root = await c.app.inject({ method: 'GET', url: '/' });
      expect(root.statusCode).toBe(200);
      expect(root.body).toContain('<title>Shell</title>');
      expect(root.body).toContain('<base href="/">');
      expect(root.headers['content-security-policy']).toContain("frame-ancestors 'none'");
      const deep = await c.app.inject({
        method: 'GET',
        url: '/projects/ABC/ABC-1',
        headers: { accept: 'text/html' },
      });
      expect(deep.statusCode).toBe(200);
      expect(deep.body).toContain('<title>Shell</title>');
    } finally {
      await c.close();
      fs.rmSync(webRoot, { recursive: true, force: true });
    }
  });

  it('serves everything under DOCKET_BASE_PATH', async () => {
    const c = await createTestApp({ DOCKET_BASE_PATH: '/docket' });
    try {
      expect((await c.app.inject({ method: 'GET', url: '/docket/api/health' })).statusCode).toBe(200);
      expect((await c.app.inject({ method: 'GET', url: '/api/health' })).statusCode).toBe(404);
      const shell = await c.app.inject({ method: 'GET', url: '/docket/', headers: { accept: 'text/html' } });
      expect(shell.body).toContain('<base href="/docket/">');
      const reg = await c.app.inject({
        method: 'POST',
        url: '/docket/api/auth/register',
        payload: { username: 'based', password: 'Correct-horse-42' },
      });
      expect(reg.statusCode).toBe(201);
      const login = await c.app.inject({
        method: 'POST',
        url: '/docket/api/auth/callback/credentials',
        payload: { username: 'based', password: 'Correct-horse-42' },
      });
      expect(String(login.headers['set-cookie'])).toContain('Path=/docket');
    } finally {
      await c.close();
    }
  });
});

describe('configuration', () => {
  it('rejects bad values with a message naming the variable', () => {
    expect(() => loadConfig({ PORT: 'eighty' })).toThrow(ConfigError);
    expect(() => loadConfig({ PORT: 'eighty' })).toThrow(/PORT/);
    expect(() => loadConfig({ DOCKET_REGISTRATION: 'maybe' })).toThrow(/DOCKET_REGISTRATION/);
    expect(() => loadConfig({ DATABASE_URL: 'mysql://x' })).toThrow(/DATABASE_URL/);
    expect(() => loadConfig({ DOCKET_TRUST_PROXY: 'sometimes' })).toThrow(/DOCKET_TRUST_PROXY/);
    expect(() => loadConfig({ DOCKET_ADMIN_USERNAME: 'a' })).toThrow(/DOCKET_ADMIN_PASSWORD/);
  });

  it('has the defaults of DECISIONS', () => {
    const c = loadConfig({});
    expect(c).toMatchObject({
      port: 3000,
      host: '127.0.0.1',
      basePath: '',
      registration: 'open',
      registerLimit: 5,
      registerWindowSeconds: 900,
      loginLimit: 10,
      sessionDays: 30,
      sseKeepaliveSeconds: 30,
      bodyLimitBytes: 1048576,
      trustProxy: false,
    });
    expect(c.dataDir).toBe(path.resolve('./data'));
  });
});

describe('migrations', () => {
  it('apply each migration exactly once, also when two instances start together', async () => {
    const config = await testConfig();
    const open = () =>
      connect({ databaseUrl: config.databaseUrl, pgSchema: config.pgSchema, dataDir: config.dataDir });
    const [a, b] = await Promise.all([open(), open()]);
    try {
      const [ra, rb] = await Promise.all([migrateToLatest(a), migrateToLatest(b)]);
      expect([...ra, ...rb].sort()).toEqual([
        '001_initial',
        '002_sprint_started_at',
        '010_session_details',
        '011_scoped_api_keys',
        '012_audit_log',
        '013_two_factor',
        '014_require_two_factor',
      ]);
      expect(await migrateToLatest(a)).toEqual([]);
      const app = await buildApp(config, { db: a, logger: false });
      expect((await app.inject({ method: 'GET', url: '/api/health' })).statusCode).toBe(200);
      await app.close();
    } finally {
      await a.close();
      await b.close();
      await dropTestData(config);
    }
  });
});
