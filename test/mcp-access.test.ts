import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net, { type AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DocketClient } from '../src/mcp/client.js';
import { CATALOGUE } from '../src/mcp/server.js';
import { createTestApp } from './helpers/app.js';
import { type Client, signIn, signUp } from './helpers/factories.js';
import { closedPort, connectHttp, connectStdio, fails, ok } from './helpers/mcp.js';

/**
 * Who may use the tool server, and what it says when it cannot reach Docket: missing, wrong and
 * revoked keys, disabled users, an unreachable or mistyped URL, and a sub-path deployment.
 */

const root = path.resolve(import.meta.dirname, '..');

async function listening(env: Record<string, string> = {}) {
  const t = await createTestApp(env);
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  const origin = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  return { t, origin, base: origin + t.config.basePath };
}

const initialize = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'curl', version: '1' } },
};

async function rawMcp(base: string, headers: Record<string, string>) {
  return fetch(`${base}/api/mcp`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...headers,
    },
    body: JSON.stringify(initialize),
  });
}

describe('access to the tool server', () => {
  let s: Awaited<ReturnType<typeof listening>>;
  let admin: Client;
  let user: Client;
  let key: string;

  beforeAll(async () => {
    s = await listening();
    admin = await signUp(s.t.app);
    user = await signUp(s.t.app, { name: 'Key Holder' });
    key = (await user.post('/api/me/mcp-key')).json().apiKey;
  });
  afterAll(async () => s.t.close());

  it('answers /api/mcp without a key with 401 and a JSON-RPC error', async () => {
    const res = await rawMcp(s.base, {});
    expect(res.status).toBe(401);
    // The OAuth sign-in's start (test/oauth.test.ts): where the protected resource metadata is.
    expect(res.headers.get('www-authenticate')).toBe(
      `Bearer resource_metadata="${s.origin}/.well-known/oauth-protected-resource/api/mcp"`,
    );
    expect(await res.json()).toEqual({
      jsonrpc: '2.0',
      error: { code: -32001, message: 'Authentication required: send Authorization: Bearer <apiKey>' },
      id: null,
    });
    await expect(connectHttp(s.base)).rejects.toThrow(/401|Authentication required/);
  });

  it('answers /api/mcp with a wrong key with 401 Invalid API key', async () => {
    const res = await rawMcp(s.base, { authorization: 'Bearer not-a-real-key' });
    expect(res.status).toBe(401);
    expect((await res.json()).error.message).toBe('Invalid API key');
    await expect(connectHttp(s.base, 'not-a-real-key')).rejects.toThrow(/Invalid API key/);
  });

  it('does not accept a session cookie on /api/mcp', async () => {
    const res = await rawMcp(s.base, { cookie: user.cookie });
    expect(res.status).toBe(401);
  });

  it('answers GET /api/mcp with 405 (stateless endpoint)', async () => {
    const res = await fetch(`${s.base}/api/mcp`, { headers: { authorization: `Bearer ${key}` } });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('POST');
  });

  it('says Invalid API key over stdio for a wrong key', async () => {
    const c = await connectStdio(s.base, 'not-a-real-key');
    try {
      expect(await fails(c, 'list_projects')).toBe('Invalid API key');
    } finally {
      await c.close();
    }
  });

  it('stops a revoked key on both front doors, and a new key works again', async () => {
    const old = (await user.post('/api/me/mcp-key')).json().apiKey;
    const http = await connectHttp(s.base, old);
    const stdio = await connectStdio(s.base, old);
    try {
      await ok(http, 'list_projects');
      await ok(stdio, 'list_projects');
      expect((await user.del('/api/me/mcp-key')).statusCode).toBe(200);
      await expect(http.callTool({ name: 'list_projects', arguments: {} })).rejects.toThrow(
        /Invalid API key/,
      );
      expect(await fails(stdio, 'list_projects')).toBe('Invalid API key');
    } finally {
      await http.close();
      await stdio.close();
    }
    key = (await user.post('/api/me/mcp-key')).json().apiKey;
    const again = await connectHttp(s.base, key);
    await ok(again, 'list_projects');
    await again.close();
  });

  it('stops the key of a disabled user for good: re-enabling needs a new key', async () => {
    const stdio = await connectStdio(s.base, key);
    try {
      await ok(stdio, 'list_users');
      expect((await admin.patch(`/api/admin/users/${user.userId}`, { isActive: false })).statusCode).toBe(
        200,
      );
      expect(await fails(stdio, 'list_users')).toBe('Invalid API key');
      expect((await rawMcp(s.base, { authorization: `Bearer ${key}` })).status).toBe(401);
      expect((await admin.patch(`/api/admin/users/${user.userId}`, { isActive: true })).statusCode).toBe(200);
      // Disabling ended the user's keys (docs/security.md): the old key stays refused.
      expect(await fails(stdio, 'list_users')).toBe('Invalid API key');
    } finally {
      await stdio.close();
    }
    user = await signIn(s.t.app, user.username);
    key = (await user.post('/api/me/mcp-key')).json().apiKey;
    const again = await connectStdio(s.base, key);
    try {
      await ok(again, 'list_users');
    } finally {
      await again.close();
    }
  });

  it('acts as the key’s user: the project it creates is theirs', async () => {
    const c = await connectHttp(s.base, key);
    try {
      await ok(c, 'create_project', { name: 'Mine', key: 'MINE' });
      // Disabling ended the cookie sessions above: read as an administrator.
      const members = (await admin.get('/api/projects/MINE/members')).json();
      expect(members).toEqual([expect.objectContaining({ userId: user.userId, role: 'owner' })]);
    } finally {
      await c.close();
    }
  });

  it('says Failed to connect to Docket at <url> when nothing listens there', async () => {
    const url = `http://127.0.0.1:${await closedPort()}/docket`;
    const c = await connectStdio(url, key);
    try {
      expect(await fails(c, 'list_projects')).toBe(`Failed to connect to Docket at ${url}`);
      expect(await fails(c, 'get_ticket', { ticketKey: 'ABC-1' })).toBe(
        `Failed to connect to Docket at ${url}`,
      );
    } finally {
      await c.close();
    }
  });
});

describe('a Docket that does not answer', () => {
  it('gives up after the timeout with a clear text', async () => {
    const sockets: net.Socket[] = [];
    const silent = net.createServer((socket) => sockets.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(silent.address() as AddressInfo).port}`;
    try {
      const client = new DocketClient({ baseUrl: url, apiKey: 'k', timeoutMs: 300 });
      await expect(client.get('/api/projects')).rejects.toThrow(
        `Docket at ${url} did not answer within 0.3 s`,
      );
    } finally {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => silent.close(() => resolve()));
    }
  });
});

describe('a sub-path deployment', () => {
  let s: Awaited<ReturnType<typeof listening>>;
  let key: string;

  beforeAll(async () => {
    s = await listening({ DOCKET_BASE_PATH: '/docket' });
    const res = await s.t.app.inject({
      method: 'POST',
      url: '/docket/api/auth/register',
      payload: { username: 'subpath_user', password: 'Correct-horse-42' },
    });
    expect(res.statusCode).toBe(201);
    const login = await s.t.app.inject({
      method: 'POST',
      url: '/docket/api/auth/callback/credentials',
      payload: { username: 'subpath_user', password: 'Correct-horse-42' },
    });
    const cookie = login.cookies.find((x) => x.name === 'docket_session');
    const created = await s.t.app.inject({
      method: 'POST',
      url: '/docket/api/me/mcp-key',
      headers: { cookie: `docket_session=${cookie?.value}` },
    });
    key = created.json().apiKey;
  });
  afterAll(async () => s.t.close());

  it('serves the tools at <base path>/api/mcp and through DOCKET_URL with the base path', async () => {
    expect(s.base.endsWith('/docket')).toBe(true);
    const http = await connectHttp(s.base, key);
    const stdio = await connectStdio(s.base, key);
    try {
      await ok(http, 'create_project', { name: 'Sub', key: 'SUB' });
      const r = await ok(stdio, 'create_ticket', { projectKey: 'sub', title: 'Under a base path' });
      expect(r.text).toBe('Created SUB-1: Under a base path');
      const read = await s.t.app.inject({
        method: 'GET',
        url: '/docket/api/projects/SUB/tickets/SUB-1',
        headers: { authorization: `Bearer ${key}` },
      });
      expect(read.json().title).toBe('Under a base path');
    } finally {
      await http.close();
      await stdio.close();
    }
  });

  it('tells what to check when DOCKET_URL lacks the base path', async () => {
    const c = await connectStdio(s.origin, key);
    try {
      expect(await fails(c, 'list_projects')).toBe(
        `Docket's API was not found at ${s.origin}: check DOCKET_URL (include any base path)`,
      );
    } finally {
      await c.close();
    }
  });
});

describe('starting the stdio server', () => {
  const env = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' };

  it.each([
    ['src/mcp/stdio.ts', ['--import', 'tsx', path.join(root, 'src', 'mcp', 'stdio.ts')]],
    ['bin/docket-mcp.js', [path.join(root, 'bin', 'docket-mcp.js')]],
  ])('%s refuses to start without MCP_API_KEY and says how to get one', (_name, args) => {
    const r = spawnSync(process.execPath, args, { cwd: root, env, encoding: 'utf8', timeout: 20_000 });
    expect(r.status).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/MCP_API_KEY is required/);
    expect(r.stderr).toMatch(/POST \/api\/me\/mcp-key/);
  });

  it('refuses a DOCKET_URL that is not an http(s) URL', () => {
    const r = spawnSync(process.execPath, ['--import', 'tsx', path.join(root, 'src', 'mcp', 'stdio.ts')], {
      cwd: root,
      env: { ...env, MCP_API_KEY: 'k', DOCKET_URL: 'localhost:3000' },
      encoding: 'utf8',
      timeout: 20_000,
    });
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/DOCKET_URL must be an http\(s\) URL/);
  });
});

describe('the tool catalogue', () => {
  it('stays compact: tools/list is measured in bytes and fails above 30 KB', () => {
    const size = Buffer.byteLength(JSON.stringify({ tools: CATALOGUE }));
    const descriptions = CATALOGUE.reduce((n, t) => n + (t.description?.length ?? 0), 0);
    console.log(`tools/list: ${CATALOGUE.length} tools, ${size} bytes (descriptions ${descriptions})`);
    expect(CATALOGUE).toHaveLength(45);
    for (const t of CATALOGUE) expect(t.description?.length ?? 0, t.name).toBeLessThanOrEqual(100);
    // The budget of issue 20 (docs/mcp.md); a new tool or a long description must be a conscious choice.
    expect(size).toBeLessThanOrEqual(30 * 1024);
  });

  it('docs/mcp.md lists every tool with each of its parameters', () => {
    const doc = fs.readFileSync(path.join(root, 'docs', 'mcp.md'), 'utf8');
    for (const t of CATALOGUE) {
      const row = doc.split('\n').find((l) => l.startsWith(`| ${t.name} |`));
      expect(row, t.name).toBeTruthy();
      for (const p of Object.keys(t.inputSchema.properties ?? {}))
        expect(row, `${t.name} ${p}`).toMatch(new RegExp(`\\b${p}\\b`));
    }
  });
});
