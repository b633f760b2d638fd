import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERR } from '../src/shared/errors.js';
import { createTestApp, type TestApp } from './helpers/app.js';
import { makeProject } from './helpers/board.js';
import { type Client, cookieFrom, PASSWORD, signUp } from './helpers/factories.js';

/**
 * Security headers on every answer of every route (taken from the route table), the app shell's
 * Content-Security-Policy, the session cookie's attributes, and the cross-site rule of DECISIONS 3
 * on every state-changing route.
 */

let t: TestApp;
let admin: Client;

beforeAll(async () => {
  t = await createTestApp();
  admin = await signUp(t.app);
});

afterAll(async () => {
  await t?.close();
});

const fill = (url: string) => url.replace(/:(\w+)/g, (_m, n: string) => (n === 'kind' ? 'files' : `x${n}`));

function expectSecurityHeaders(res: { headers: Record<string, unknown> }, where: string) {
  expect(res.headers['x-content-type-options'], where).toBe('nosniff');
  expect(res.headers['referrer-policy'], where).toBe('same-origin');
  expect(res.headers['x-frame-options'], where).toBe('DENY');
  const csp = String(res.headers['content-security-policy'] ?? '');
  expect(csp, where).toContain("frame-ancestors 'none'");
}

describe('security headers', () => {
  it('are on every answer of every route, signed in or not, success or error', async () => {
    const routes = t.app.routeTable.filter((r) => r.method !== 'HEAD');
    expect(routes.length).toBeGreaterThan(80);
    for (const r of routes) {
      const url = fill(r.url).replace('/*', '/swagger-ui.css');
      const anon = await t.app.inject({ method: r.method as 'GET', url });
      expectSecurityHeaders(anon, `${r.method} ${r.url} anonymous ${anon.statusCode}`);
      if (r.method === 'GET' && !r.url.endsWith('/events')) {
        const signed = await admin.get(url);
        expectSecurityHeaders(signed, `${r.method} ${r.url} signed in ${signed.statusCode}`);
      }
    }
    // Unknown routes, bodies too large, malformed JSON.
    expectSecurityHeaders(await t.app.inject({ method: 'GET', url: '/api/nothing-here' }), 'unknown route');
    expectSecurityHeaders(
      await admin.req({
        method: 'POST',
        url: '/api/projects',
        headers: { 'content-type': 'application/json' },
        payload: '{"name":',
      }),
      'malformed JSON',
    );
    expectSecurityHeaders(
      await admin.post('/api/projects', { name: 'x'.repeat(2 * 1024 * 1024) }),
      'too large',
    );
  });

  it('lets JSON answers load nothing, and gives the app shell a policy without inline scripts', async () => {
    const json = await admin.get('/api/me');
    expect(json.headers['content-security-policy']).toContain("default-src 'none'");
    for (const url of ['/', '/projects/ABC/board']) {
      const shell = await t.app.inject({ method: 'GET', url, headers: { accept: 'text/html' } });
      expect(shell.statusCode, url).toBe(200);
      expect(shell.headers['content-type']).toContain('text/html');
      const csp = String(shell.headers['content-security-policy']);
      const script = csp.split(';').find((d) => d.trim().startsWith('script-src')) ?? '';
      expect(script.trim()).toBe("script-src 'self'");
      expect(csp).toContain("default-src 'self'");
      expect(csp).toContain("object-src 'none'");
      expect(csp).toContain("frame-ancestors 'none'");
      expect(csp).toContain("base-uri 'self'");
    }
  });

  it('sends HSTS only when the public URL is https', async () => {
    expect((await admin.get('/api/me')).headers['strict-transport-security']).toBeUndefined();
    const secure = await createTestApp({ DOCKET_PUBLIC_URL: 'https://tracker.example' });
    try {
      const res = await secure.app.inject({ method: 'GET', url: '/api/health' });
      expect(res.headers['strict-transport-security']).toBe('max-age=15552000');
    } finally {
      await secure.close();
    }
  });
});

describe('the session cookie', () => {
  const attrs = (setCookie: string) => setCookie.split(';').map((s) => s.trim().toLowerCase());

  it('is HttpOnly, SameSite=Lax, Path=/ and not Secure over plain http', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/auth/callback/credentials',
      payload: { username: admin.username, password: PASSWORD },
    });
    const raw = ([] as string[]).concat(res.headers['set-cookie'] as string[] | string)[0];
    const a = attrs(raw);
    expect(raw.startsWith('docket_session=')).toBe(true);
    expect(a).toContain('httponly');
    expect(a).toContain('samesite=lax');
    expect(a).toContain('path=/');
    expect(a).not.toContain('secure');
    expect(a.some((x) => x.startsWith('expires='))).toBe(true);
  });

  it('is Secure behind an https public URL and scoped to the base path', async () => {
    const other = await createTestApp({
      DOCKET_PUBLIC_URL: 'https://tracker.example/docket',
      DOCKET_BASE_PATH: '/docket',
    });
    try {
      await other.app.inject({
        method: 'POST',
        url: '/docket/api/auth/register',
        payload: { username: 'secureone', password: PASSWORD },
      });
      const res = await other.app.inject({
        method: 'POST',
        url: '/docket/api/auth/callback/credentials',
        payload: { username: 'secureone', password: PASSWORD },
      });
      expect(res.statusCode, res.body).toBe(200);
      const a = attrs(([] as string[]).concat(res.headers['set-cookie'] as string[] | string)[0]);
      expect(a).toContain('secure');
      expect(a).toContain('path=/docket');
      expect(a).toContain('httponly');
      expect(a).toContain('samesite=lax');
      expect(cookieFrom(res)).toMatch(/^docket_session=.{20,}/);
    } finally {
      await other.close();
    }
  });
});

describe('cross-site requests (DECISIONS 3)', () => {
  it('refuses every state-changing route authenticated by cookie when the Origin names another site', async () => {
    const routes = t.app.routeTable.filter(
      (r) =>
        ['POST', 'PATCH', 'PUT', 'DELETE'].includes(r.method) && (r.auth === 'user' || r.auth === 'admin'),
    );
    expect(routes.length).toBeGreaterThan(40);
    for (const origin of ['https://evil.example', 'null', 'http://localhost.evil.example']) {
      for (const r of routes) {
        const res = await admin.req({
          method: r.method as 'POST',
          url: fill(r.url),
          headers: { origin },
          payload: {},
        });
        expect(res.statusCode, `${r.method} ${r.url} from ${origin}`).toBe(403);
        expect(res.json()).toEqual({ error: ERR.crossSite });
      }
    }
  });

  it('accepts the same site, the public URL, no Origin at all, and API keys from anywhere', async () => {
    const body = () => ({ name: 'P', key: `K${Math.random().toString(36).slice(2, 8).toUpperCase()}` });
    const same = await admin.req({
      method: 'POST',
      url: '/api/projects',
      headers: { origin: 'http://localhost:80' },
      payload: body(),
    });
    expect(same.statusCode, same.body).toBe(201);
    const none = await admin.post('/api/projects', body());
    expect(none.statusCode).toBe(201);
    const key = (await admin.post('/api/me/mcp-key')).json().apiKey;
    const viaKey = await t.app.inject({
      method: 'POST',
      url: '/api/projects',
      headers: { authorization: `Bearer ${key}`, origin: 'https://evil.example' },
      payload: body(),
    });
    expect(viaKey.statusCode).toBe(201);

    const proxied = await createTestApp({ DOCKET_PUBLIC_URL: 'https://tracker.example' });
    try {
      const owner = await signUp(proxied.app);
      const ok = await owner.req({
        method: 'POST',
        url: '/api/projects',
        headers: { origin: 'https://tracker.example' },
        payload: body(),
      });
      expect(ok.statusCode, ok.body).toBe(201);
      const p = await makeProject(owner);
      const refused = await owner.req({
        method: 'DELETE',
        url: `/api/projects/${p.id}`,
        headers: { origin: 'https://tracker.example.evil.example' },
      });
      expect(refused.statusCode).toBe(403);
    } finally {
      await proxied.close();
    }
  });
});
