/**
 * The cross-site rule compares the Origin's scheme too (issue 49): `https://host` is another site to
 * an http instance, and `http://host` to an https one. Behind a TLS-terminating proxy the instance
 * learns its scheme from DOCKET_PUBLIC_URL, or from X-Forwarded-Proto when DOCKET_TRUST_PROXY
 * trusts the proxy; a client's own X-Forwarded-Proto is not believed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERR } from '../src/shared/errors.js';
import { createTestApp, type TestApp } from './helpers/app.js';
import { type Client, PASSWORD, signUp, unique } from './helpers/factories.js';

const apps: TestApp[] = [];
afterAll(async () => {
  for (const a of apps) await a.close();
});

async function app(env: Record<string, string> = {}) {
  const a = await createTestApp(env);
  apps.push(a);
  return { a, user: await signUp(a.app) };
}

/** A sign-in (no cookie: the login-CSRF case) and a cookie write, with these headers. */
async function writes(t: { a: TestApp; user: Client }, headers: Record<string, string>) {
  const signIn = await t.a.app.inject({
    method: 'POST',
    url: '/api/auth/callback/credentials',
    headers,
    payload: { username: t.user.username, password: PASSWORD },
  });
  const write = await t.user.req({ method: 'PATCH', url: '/api/me', headers, payload: { name: 'Named' } });
  const register = await t.a.app.inject({
    method: 'POST',
    url: '/api/auth/register',
    headers,
    payload: { username: unique('o'), password: PASSWORD },
  });
  return [signIn, write, register].map((r) => (r.statusCode === 403 ? r.json().error : r.statusCode));
}

const refused = [ERR.crossSite, ERR.crossSite, ERR.crossSite];
const accepted = [200, 200, 201];

describe('an http instance (no public URL, no trusted proxy)', () => {
  let t: Awaited<ReturnType<typeof app>>;
  beforeAll(async () => {
    t = await app();
  });

  it('refuses an https Origin naming its own host and port, and takes the http one', async () => {
    expect(await writes(t, { origin: 'https://localhost:80' })).toEqual(refused);
    expect(await writes(t, { origin: 'https://localhost' })).toEqual(refused);
    expect(await writes(t, { origin: 'http://localhost:80' })).toEqual(accepted);
    expect(await writes(t, { origin: 'http://localhost' })).toEqual(accepted);
  });

  it("does not believe a client's own X-Forwarded-Proto", async () => {
    for (const origin of ['https://localhost', 'https://localhost:80'])
      expect(await writes(t, { origin, 'x-forwarded-proto': 'https' })).toEqual(refused);
  });
});

describe('behind a trusted proxy (DOCKET_TRUST_PROXY)', () => {
  let t: Awaited<ReturnType<typeof app>>;
  beforeAll(async () => {
    t = await app({ DOCKET_TRUST_PROXY: '1' });
  });

  it('takes the scheme the proxy names: https for https, and refuses http then', async () => {
    const proxied = { host: 'tracker.example', 'x-forwarded-proto': 'https' };
    expect(await writes(t, { ...proxied, origin: 'https://tracker.example' })).toEqual(accepted);
    expect(await writes(t, { ...proxied, origin: 'http://tracker.example' })).toEqual(refused);
  });

  it('and http when the proxy says nothing, refusing https then', async () => {
    expect(await writes(t, { host: 'tracker.example', origin: 'http://tracker.example' })).toEqual(accepted);
    expect(await writes(t, { host: 'tracker.example', origin: 'https://tracker.example' })).toEqual(refused);
  });
});

describe('with DOCKET_PUBLIC_URL', () => {
  it('https: its origin passes though the proxy speaks http to Docket; the same host over http does not', async () => {
    const t = await app({ DOCKET_PUBLIC_URL: 'https://tracker.example' });
    expect(await writes(t, { host: 'tracker.example', origin: 'https://tracker.example' })).toEqual(accepted);
    expect(await writes(t, { host: 'tracker.example', origin: 'http://tracker.example' })).toEqual(refused);
    expect(await writes(t, { host: 'tracker.example', origin: 'https://tracker.example:8443' })).toEqual(
      refused,
    );
    // Another port of the public name, even when the request came to that port.
    expect(await writes(t, { host: 'tracker.example:8443', origin: 'http://tracker.example:8443' })).toEqual(
      refused,
    );
    // Another name reaching the same instance (its own origin) still passes.
    expect(await writes(t, { host: 'docket.internal:3000', origin: 'http://docket.internal:3000' })).toEqual(
      accepted,
    );
  });

  it('http: the same host over https is another site', async () => {
    const t = await app({ DOCKET_PUBLIC_URL: 'http://tracker.example:8080' });
    expect(await writes(t, { host: 'tracker.example:8080', origin: 'http://tracker.example:8080' })).toEqual(
      accepted,
    );
    expect(await writes(t, { host: 'tracker.example:8080', origin: 'https://tracker.example:8080' })).toEqual(
      refused,
    );
  });
});
