import { createHash, randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './helpers/app.js';
import { cookieFrom, signUp, type Client as UserClient } from './helpers/factories.js';
import { consent, MemoryOAuthProvider, newClient, oauthTransport } from './helpers/oauth.js';

/**
 * OAuth 2.1 sign-in for remote MCP clients (issue 20): the SDK's own client with its OAuth
 * support completes discovery, registration, consent, the code exchange with PKCE and refresh
 * against a listening Docket; the refusals are sent as a client would send them.
 */

async function listening(env: Record<string, string> = {}) {
  const t = await createTestApp(env);
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  const origin = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  return { t, origin, base: origin + t.config.basePath };
}

const initialize = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'curl', version: '1' } },
});

async function mcpStatus(base: string, token: string) {
  const res = await fetch(`${base}/api/mcp`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    },
    body: initialize,
  });
  await res.text();
  return { status: res.status, wwwAuthenticate: res.headers.get('www-authenticate') };
}

const pkce = () => {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
};

async function form(url: string, fields: Record<string, string>, headers: Record<string, string> = {}) {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams(fields),
  });
  return { status: res.status, body: await res.json(), headers: res.headers };
}

async function register(base: string, meta: Record<string, unknown>) {
  const res = await fetch(`${base}/api/oauth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(meta),
  });
  return { status: res.status, body: await res.json() };
}

const REDIRECT = 'http://127.0.0.1:41999/cb';

/** A public client's whole way to a code, as the tests' raw client: register, authorize, consent. */
async function codeFor(
  s: { base: string },
  user: UserClient,
  opts: { scope?: string; grantScope?: 'read' | 'write'; clientId?: string } = {},
) {
  const clientId =
    opts.clientId ??
    (
      await register(s.base, {
        client_name: 'Raw client',
        redirect_uris: [REDIRECT],
        token_endpoint_auth_method: 'none',
      })
    ).body.client_id;
  const { verifier, challenge } = pkce();
  const url = new URL(`${s.base}/oauth/authorize`);
  url.search = new URLSearchParams({
    response_type: 'code',
    client_id: clientId,
    redirect_uri: REDIRECT,
    code_challenge: challenge,
    code_challenge_method: 'S256',
    state: 'xyz',
    ...(opts.scope ? { scope: opts.scope } : {}),
  }).toString();
  const back = await consent(s.base, user.cookie, url, {
    approve: true,
    grantScope: opts.grantScope ?? 'write',
  });
  const code = back.searchParams.get('code');
  if (!code) throw new Error(`no code: ${back}`);
  return { clientId, verifier, code };
}

const refresh = (base: string, clientId: string, token: string, extra = {}) =>
  form(`${base}/api/oauth/token`, {
    grant_type: 'refresh_token',
    client_id: clientId,
    refresh_token: token,
    ...extra,
  });

const exchange = (base: string, c: { clientId: string; verifier: string; code: string }, extra = {}) =>
  form(`${base}/api/oauth/token`, {
    grant_type: 'authorization_code',
    client_id: c.clientId,
    code: c.code,
    code_verifier: c.verifier,
    redirect_uri: REDIRECT,
    ...extra,
  });

describe('OAuth sign-in for MCP clients', () => {
  let s: Awaited<ReturnType<typeof listening>>;
  let t: TestApp;
  let user: UserClient;

  beforeAll(async () => {
    s = await listening();
    t = s.t;
    await signUp(t.app);
    user = await signUp(t.app, { name: 'OAuth User' });
  });
  afterAll(async () => t.close());

  it("answers a malformed body at the OAuth endpoints in OAuth's own error shape", async () => {
    for (const [path, type, body] of [
      ['/api/oauth/token', 'application/json', '{not json'],
      ['/api/oauth/revoke', 'application/json', '{not json'],
      ['/api/oauth/register', 'application/json', '{not json'],
      ['/api/oauth/register', 'application/json', JSON.stringify({ redirect_uris: ['http://x/\u0000'] })],
    ]) {
      const res = await t.app.inject({ method: 'POST', url: path, headers: { 'content-type': type }, body });
      expect(res.statusCode, `${path} ${body}`).toBe(400);
      const out = res.json();
      expect(out.error, path).toBe('invalid_request');
      expect(out.error_description, path).toMatch(/Validation failed: .+/);
      expect(out.details, path).toBeUndefined();
    }
  });

  it('answers /api/mcp without a token with 401 naming the protected resource metadata', async () => {
    const res = await fetch(`${s.base}/api/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: initialize,
    });
    expect(res.status).toBe(401);
    const prm = `${s.origin}/.well-known/oauth-protected-resource/api/mcp`;
    expect(res.headers.get('www-authenticate')).toBe(`Bearer resource_metadata="${prm}"`);
    const meta = await (await fetch(prm)).json();
    expect(meta).toEqual({
      resource: `${s.base}/api/mcp`,
      authorization_servers: [s.base],
      scopes_supported: ['read', 'write'],
      bearer_methods_supported: ['header'],
      resource_name: 'Docket',
    });
    const as = await (await fetch(`${s.origin}/.well-known/oauth-authorization-server`)).json();
    expect(as).toMatchObject({
      issuer: s.base,
      authorization_endpoint: `${s.base}/oauth/authorize`,
      token_endpoint: `${s.base}/api/oauth/token`,
      registration_endpoint: `${s.base}/api/oauth/register`,
      code_challenge_methods_supported: ['S256'],
      grant_types_supported: ['authorization_code', 'refresh_token'],
      response_types_supported: ['code'],
    });
    // A wrong token says so, for the client to sign in again.
    expect((await mcpStatus(s.base, 'dkoa_not-a-token')).wwwAuthenticate).toBe(
      `Bearer error="invalid_token", resource_metadata="${prm}"`,
    );
  });

  it('signs the SDK client in: discovery, registration, consent, code with PKCE, then tools as the user', async () => {
    const provider = new MemoryOAuthProvider();
    const first = newClient();
    const transport = oauthTransport(s.base, provider);
    await expect(first.connect(transport)).rejects.toBeInstanceOf(UnauthorizedError);
    expect(provider.client?.client_id).toBeTruthy();
    const authUrl = provider.authorizationUrl as URL;
    expect(authUrl.origin + authUrl.pathname).toBe(`${s.base}/oauth/authorize`);
    expect(authUrl.searchParams.get('code_challenge_method')).toBe('S256');
    expect(authUrl.searchParams.get('resource')).toBe(`${s.base}/api/mcp`);

    const back = await consent(s.base, user.cookie, authUrl, { approve: true, grantScope: 'write' });
    expect(back.origin + back.pathname).toBe('http://127.0.0.1:33418/callback');
    expect(back.searchParams.get('iss')).toBe(s.base);
    await transport.finishAuth(back.searchParams.get('code') as string);
    expect(provider.saved).toMatchObject({ token_type: 'Bearer', scope: 'write', expires_in: 3600 });

    const client = newClient();
    await client.connect(oauthTransport(s.base, provider));
    const created = await client.callTool({
      name: 'create_project',
      arguments: { name: 'OAuth project', projectKey: 'OAP' },
    });
    expect(created.isError).toBeFalsy();
    const members = await client.callTool({ name: 'list_members', arguments: { projectKey: 'OAP' } });
    expect(JSON.stringify(members.structuredContent)).toContain(user.username);
    await client.close();

    // Only hashes are stored; the grant is listed beside the API keys; the audit log has it.
    const access = provider.saved?.access_token as string;
    const db = t.app.services.db.kysely;
    const rows = await db.selectFrom('oauth_tokens').select(['token_hash']).execute();
    expect(rows.length).toBeGreaterThan(0);
    expect(JSON.stringify(rows)).not.toContain(access);
    expect(JSON.stringify(rows)).not.toContain(provider.saved?.refresh_token as string);
    const grants = (await user.get('/api/me/oauth-grants')).json();
    expect(grants).toEqual([
      expect.objectContaining({
        clientName: 'Test assistant',
        scope: 'write',
        clientId: provider.client?.client_id,
      }),
    ]);
    const audit = await db.selectFrom('audit_log').selectAll().execute();
    expect(audit.map((r) => r.action)).toEqual(
      expect.arrayContaining(['oauth.client_registered', 'oauth.grant_approved']),
    );
    expect(audit.find((r) => r.action === 'oauth.grant_approved')).toMatchObject({ actor_id: user.userId });
    expect(JSON.stringify(audit)).not.toContain(access);
    expect(JSON.stringify(audit)).not.toContain(back.searchParams.get('code'));

    // The token acts like a key: not on the account endpoints, never as an administrator.
    const keys = await fetch(`${s.base}/api/me/api-keys`, { headers: { authorization: `Bearer ${access}` } });
    expect(keys.status).toBe(403);
  });

  it('refreshes an expired access token with rotation; reusing a spent refresh token revokes the grant', async () => {
    const provider = new MemoryOAuthProvider();
    const transport = oauthTransport(s.base, provider);
    await expect(newClient().connect(transport)).rejects.toBeInstanceOf(UnauthorizedError);
    const back = await consent(s.base, user.cookie, provider.authorizationUrl as URL, {
      approve: true,
      grantScope: 'write',
    });
    await transport.finishAuth(back.searchParams.get('code') as string);
    const before = { ...(provider.saved as { access_token: string; refresh_token: string }) };
    // The access token's hour is over.
    await t.app.services.db.kysely
      .updateTable('oauth_tokens')
      .set({ expires_at: '2000-01-01T00:00:00.000Z' })
      .where('kind', '=', 'access')
      .execute();
    const expired = await mcpStatus(s.base, before.access_token);
    expect(expired.status).toBe(401);
    expect(expired.wwwAuthenticate).toContain('error="invalid_token"');

    // The SDK client refreshes on the 401 by itself and carries on.
    const client = newClient();
    await client.connect(oauthTransport(s.base, provider));
    const listed = await client.callTool({ name: 'list_projects', arguments: {} });
    expect(listed.isError).toBeFalsy();
    await client.close();
    const after = provider.saved as { access_token: string; refresh_token: string };
    expect(after.refresh_token).not.toBe(before.refresh_token);
    expect((await mcpStatus(s.base, after.access_token)).status).toBe(200);

    // The old refresh token again: refused, and the whole grant goes (it leaked).
    const reuse = await refresh(s.base, provider.client?.client_id as string, before.refresh_token);
    expect(reuse.status).toBe(400);
    expect(reuse.body).toEqual({
      error: 'invalid_grant',
      error_description: 'Refresh token already used: the grant is revoked',
    });
    expect((await mcpStatus(s.base, after.access_token)).status).toBe(401);
    const refreshAgain = await refresh(s.base, provider.client?.client_id as string, after.refresh_token);
    expect(refreshAgain.body.error).toBe('invalid_grant');
  });

  it('refuses a wrong PKCE verifier, and the code is spent', async () => {
    const c = await codeFor(s, user);
    const bad = await exchange(s.base, { ...c, verifier: pkce().verifier });
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({
      error: 'invalid_grant',
      error_description: 'code_verifier does not match the code_challenge',
    });
    expect(bad.headers.get('cache-control')).toBe('no-store');
    expect((await exchange(s.base, c)).body.error).toBe('invalid_grant');
    const missing = await form(`${s.base}/api/oauth/token`, {
      grant_type: 'authorization_code',
      client_id: c.clientId,
      code: c.code,
    });
    expect(missing.body).toEqual({
      error: 'invalid_request',
      error_description: 'code_verifier is required (PKCE)',
    });
  });

  it('refuses a reused code and revokes the tokens issued for it', async () => {
    const c = await codeFor(s, user);
    const ok = await exchange(s.base, c);
    expect(ok.status).toBe(200);
    expect((await mcpStatus(s.base, ok.body.access_token)).status).toBe(200);
    const again = await exchange(s.base, c);
    expect(again.status).toBe(400);
    expect(again.body.error).toBe('invalid_grant');
    expect(again.body.error_description).toMatch(/already used/);
    expect((await mcpStatus(s.base, ok.body.access_token)).status).toBe(401);
  });

  it('lets only one of two concurrent exchanges of a code or a refresh token win', async () => {
    const c = await codeFor(s, user);
    const both = await Promise.all([exchange(s.base, c), exchange(s.base, c)]);
    expect(both.map((r) => r.status).sort()).toEqual([200, 400]);
    // The loser saw a used code: the winner's tokens are revoked with the grant.
    const won = both.find((r) => r.status === 200)?.body;
    expect((await mcpStatus(s.base, won.access_token)).status).toBe(401);

    const d = await codeFor(s, user);
    const tokens = (await exchange(s.base, d)).body;
    const twice = await Promise.all([
      refresh(s.base, d.clientId, tokens.refresh_token),
      refresh(s.base, d.clientId, tokens.refresh_token),
    ]);
    expect(twice.map((r) => r.status).sort()).toEqual([200, 400]);
    const fresh = twice.find((r) => r.status === 200)?.body;
    expect((await mcpStatus(s.base, fresh.access_token)).status).toBe(401);
  });

  it('refuses a redirect URI the client did not register, without redirecting to it', async () => {
    const { body } = await register(s.base, {
      client_name: 'Redirects',
      redirect_uris: [REDIRECT],
      token_endpoint_auth_method: 'none',
    });
    const q = new URLSearchParams({
      response_type: 'code',
      client_id: body.client_id,
      redirect_uri: 'https://evil.example/cb',
      code_challenge: pkce().challenge,
      code_challenge_method: 'S256',
    });
    const res = await user.get(`/api/oauth/authorization?${q}`);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ error: 'The redirect URI is not registered for this client' });
    const post = await user.post('/api/oauth/authorization', {
      ...Object.fromEntries(q),
      approve: true,
      grantScope: 'write',
    });
    expect(post.statusCode).toBe(400);
    // At the token endpoint, a redirect URI other than the request's is refused too.
    const c = await codeFor(s, user);
    const other = await exchange(s.base, c, { redirect_uri: 'http://127.0.0.1:41999/other' });
    expect(other.body).toEqual({
      error: 'invalid_grant',
      error_description: 'redirect_uri differs from the authorization request',
    });
    // Registration refuses redirect URIs that could leak a code.
    for (const uri of [
      'http://example.com/cb',
      'javascript:alert(1)',
      'https://ok.example/cb#frag',
      'not a url',
    ]) {
      const r = await register(s.base, { redirect_uris: [uri], token_endpoint_auth_method: 'none' });
      expect(r.status).toBe(400);
      expect(r.body.error).toBe('invalid_redirect_uri');
    }
    const bad = await register(s.base, { redirect_uris: [REDIRECT], grant_types: ['client_credentials'] });
    expect(bad.body.error).toBe('invalid_client_metadata');
    const empty = await register(s.base, { client_name: 'x' });
    expect(empty).toMatchObject({ status: 400, body: { error: 'invalid_client_metadata' } });
  });

  it('sends request faults back to the client: plain PKCE, no PKCE, an unknown scope, a denial', async () => {
    const { body } = await register(s.base, {
      redirect_uris: [REDIRECT],
      token_endpoint_auth_method: 'none',
    });
    const base = {
      response_type: 'code',
      client_id: body.client_id,
      redirect_uri: REDIRECT,
      code_challenge: pkce().challenge,
      code_challenge_method: 'S256',
      state: 's1',
    };
    const check = async (params: Record<string, string>) =>
      (await user.get(`/api/oauth/authorization?${new URLSearchParams(params)}`)).json();
    const plain = await check({ ...base, code_challenge_method: 'plain' });
    expect(plain.kind).toBe('redirect');
    const u = new URL(plain.redirectTo);
    expect(u.searchParams.get('error')).toBe('invalid_request');
    expect(u.searchParams.get('state')).toBe('s1');
    const { code_challenge: _c, ...noPkce } = base;
    expect(new URL((await check(noPkce)).redirectTo).searchParams.get('error_description')).toBe(
      'code_challenge is required (PKCE)',
    );
    expect(new URL((await check({ ...base, scope: 'admin' })).redirectTo).searchParams.get('error')).toBe(
      'invalid_scope',
    );
    expect(
      new URL((await check({ ...base, resource: 'https://other.example/mcp' })).redirectTo).searchParams.get(
        'error',
      ),
    ).toBe('invalid_target');
    const grantsBefore = (await user.get('/api/me/oauth-grants')).json().length;
    const denied = await user.post('/api/oauth/authorization', { ...base, approve: false });
    expect(new URL(denied.json().redirectTo).searchParams.get('error')).toBe('access_denied');
    expect((await user.get('/api/me/oauth-grants')).json()).toHaveLength(grantsBefore);
  });

  it('keeps a read grant to reading, and never grants more than the client asked for', async () => {
    const c = await codeFor(s, user, { grantScope: 'read' });
    const tokens = (await exchange(s.base, c)).body;
    expect(tokens.scope).toBe('read');
    const provider = new MemoryOAuthProvider();
    provider.client = { client_id: c.clientId };
    provider.saved = tokens;
    const client = newClient();
    await client.connect(oauthTransport(s.base, provider));
    expect((await client.callTool({ name: 'list_projects', arguments: {} })).isError).toBeFalsy();
    const write = await client.callTool({
      name: 'create_project',
      arguments: { name: 'Nope', projectKey: 'NOPE' },
    });
    expect(write.isError).toBe(true);
    expect(JSON.stringify(write.content)).toContain('Read-only API key');
    await client.close();
    // A refresh cannot widen it.
    const widen = await refresh(s.base, c.clientId, tokens.refresh_token, { scope: 'write' });
    expect(widen.body.error).toBe('invalid_scope');

    // A client that asked for read only cannot be given write.
    const { body } = await register(s.base, {
      redirect_uris: [REDIRECT],
      token_endpoint_auth_method: 'none',
    });
    const params = {
      response_type: 'code',
      client_id: body.client_id,
      redirect_uri: REDIRECT,
      code_challenge: pkce().challenge,
      code_challenge_method: 'S256',
      scope: 'read',
    };
    const shown = (await user.get(`/api/oauth/authorization?${new URLSearchParams(params)}`)).json();
    expect(shown.scopes).toEqual(['read']);
    const more = await user.post('/api/oauth/authorization', {
      ...params,
      approve: true,
      grantScope: 'write',
    });
    expect(more.statusCode).toBe(400);
    expect(more.json().error).toBe('The client asked for read access only');
  });

  it('stops a token at once when the user revokes the grant, or the client revokes it', async () => {
    const c = await codeFor(s, user);
    const tokens = (await exchange(s.base, c)).body;
    expect((await mcpStatus(s.base, tokens.access_token)).status).toBe(200);
    const grant = (await user.get('/api/me/oauth-grants')).json()[0];
    // Nobody else can revoke it.
    const other = await signUp(t.app);
    expect((await other.del(`/api/me/oauth-grants/${grant.id}`)).statusCode).toBe(404);
    expect((await user.del(`/api/me/oauth-grants/${grant.id}`)).statusCode).toBe(200);
    expect((await mcpStatus(s.base, tokens.access_token)).status).toBe(401);
    const refreshed = await refresh(s.base, c.clientId, tokens.refresh_token);
    expect(refreshed.body.error).toBe('invalid_grant');
    const audit = await t.app.services.db.kysely
      .selectFrom('audit_log')
      .select(['action', 'details', 'actor_id'])
      .where('action', '=', 'oauth.grant_revoked')
      .where('target_id', '=', grant.id)
      .executeTakeFirstOrThrow();
    expect(audit.actor_id).toBe(user.userId);
    expect(JSON.parse(audit.details as string)).toMatchObject({ reason: 'user' });

    // RFC 7009: the client revokes its refresh token, and the grant ends.
    const d = await codeFor(s, user);
    const mine = (await exchange(s.base, d)).body;
    const revoked = await form(`${s.base}/api/oauth/revoke`, {
      client_id: d.clientId,
      token: mine.refresh_token,
    });
    expect(revoked.status).toBe(200);
    expect((await mcpStatus(s.base, mine.access_token)).status).toBe(401);
  });

  it('authenticates a confidential client by its secret', async () => {
    const { body } = await register(s.base, {
      client_name: 'Confidential',
      redirect_uris: [REDIRECT],
      token_endpoint_auth_method: 'client_secret_basic',
    });
    expect(body.client_secret).toBeTruthy();
    const c = await codeFor(s, user, { clientId: body.client_id });
    const wrong = await form(
      `${s.base}/api/oauth/token`,
      { grant_type: 'authorization_code', code: c.code, code_verifier: c.verifier, redirect_uri: REDIRECT },
      { authorization: `Basic ${Buffer.from(`${body.client_id}:wrong`).toString('base64')}` },
    );
    expect(wrong.status).toBe(401);
    expect(wrong.body.error).toBe('invalid_client');
    const c2 = await codeFor(s, user, { clientId: body.client_id });
    const ok = await form(
      `${s.base}/api/oauth/token`,
      { grant_type: 'authorization_code', code: c2.code, code_verifier: c2.verifier, redirect_uri: REDIRECT },
      { authorization: `Basic ${Buffer.from(`${body.client_id}:${body.client_secret}`).toString('base64')}` },
    );
    expect(ok.status).toBe(200);
    const secretRow = await t.app.services.db.kysely
      .selectFrom('oauth_clients')
      .select('secret_hash')
      .where('id', '=', body.client_id)
      .executeTakeFirstOrThrow();
    expect(secretRow.secret_hash).not.toBe(body.client_secret);
  });

  it('refuses the consent endpoints to API keys and to nobody', async () => {
    const key = (await user.post('/api/me/mcp-key')).json().apiKey;
    const res = await fetch(`${s.base}/api/oauth/authorization?client_id=x`, {
      headers: { authorization: `Bearer ${key}` },
    });
    expect(res.status).toBe(403);
    const anon = await fetch(`${s.base}/api/oauth/authorization?client_id=x`);
    expect(anon.status).toBe(401);
    const odd = await form(`${s.base}/api/oauth/token`, { grant_type: 'password', client_id: 'x' });
    expect(odd.status).toBe(401);
    const unknownGrant = await form(`${s.base}/api/oauth/token`, { grant_type: 'password' });
    expect(unknownGrant.body.error).toBe('invalid_client');
  });
});

describe('OAuth under a base path', () => {
  it('serves the metadata at the root with the base path inserted (RFC 8414, RFC 9728)', async () => {
    const s = await listening({ DOCKET_BASE_PATH: '/docket' });
    try {
      const provider = new MemoryOAuthProvider();
      const account = { username: 'subpath_oauth', password: 'Correct-horse-42' };
      await s.t.app.inject({ method: 'POST', url: '/docket/api/auth/register', payload: account });
      const login = await s.t.app.inject({
        method: 'POST',
        url: '/docket/api/auth/callback/credentials',
        payload: account,
      });
      const user = { cookie: cookieFrom(login) };
      const transport = oauthTransport(s.base, provider);
      await expect(newClient().connect(transport)).rejects.toBeInstanceOf(UnauthorizedError);
      const back = await consent(s.base, user.cookie, provider.authorizationUrl as URL, {
        approve: true,
        grantScope: 'read',
      });
      await transport.finishAuth(back.searchParams.get('code') as string);
      const client = newClient();
      await client.connect(oauthTransport(s.base, provider));
      expect((await client.callTool({ name: 'list_projects', arguments: {} })).isError).toBeFalsy();
      await client.close();
      const as = await (await fetch(`${s.origin}/.well-known/oauth-authorization-server/docket`)).json();
      expect(as.token_endpoint).toBe(`${s.origin}/docket/api/oauth/token`);
    } finally {
      await s.t.close();
    }
  });
});
