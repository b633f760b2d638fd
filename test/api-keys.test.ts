/** Scoped API keys (issue 19): named read or write keys with an expiry, over HTTP and MCP. */
import type net from 'node:net';
import type { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrateToLatest } from '../src/db/migrate.js';
import { createTestApp, databaseAt, type TestApp } from './helpers/app.js';
import { addMember, makeProject, makeTicket } from './helpers/board.js';
import { type Client, clientFor, signUp } from './helpers/factories.js';
import { call, connectHttp } from './helpers/mcp.js';

let t: TestApp;
let admin: Client;
let baseUrl: string;

beforeAll(async () => {
  t = await createTestApp();
  admin = await signUp(t.app); // the first account is a system administrator
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  baseUrl = `http://127.0.0.1:${(t.app.server.address() as net.AddressInfo).port}`;
});
afterAll(async () => t.close());

const keyed = (key: string) => clientFor(t.app, { apiKey: key });

describe('scoped API keys', () => {
  it('creates named keys, shows each key once, lists and revokes them', async () => {
    const u = await signUp(t.app);
    const made = await u.post('/api/me/api-keys', { name: 'CI reader', scope: 'read', expiresInDays: 30 });
    expect(made.statusCode, made.body).toBe(201);
    const k = made.json();
    expect(Object.keys(k).sort()).toEqual(['createdAt', 'expiresAt', 'id', 'key', 'name', 'scope']);
    expect(k).toMatchObject({ name: 'CI reader', scope: 'read' });
    const days = (Date.parse(k.expiresAt) - Date.parse(k.createdAt)) / 86_400_000;
    expect(days).toBeCloseTo(30, 5);
    const w = (await u.post('/api/me/api-keys', { name: 'Deploy', scope: 'write' })).json();
    expect(w.expiresAt).toBeNull();
    const list = (await u.get('/api/me/api-keys')).json();
    expect(list.map((x: { name: string }) => x.name)).toEqual(['Deploy', 'CI reader']);
    expect(JSON.stringify(list)).not.toContain(k.key);
    expect(list[0]).toEqual({
      id: w.id,
      name: 'Deploy',
      scope: 'write',
      createdAt: w.createdAt,
      lastUsedAt: null,
      expiresAt: null,
    });
    // Use is recorded.
    expect((await keyed(k.key).get('/api/projects')).statusCode).toBe(200);
    expect((await u.get('/api/me/api-keys')).json()[1].lastUsedAt).not.toBeNull();
    // Another user cannot revoke it; its owner can, and it stops working at once.
    const other = await signUp(t.app);
    expect((await other.del(`/api/me/api-keys/${k.id}`)).json()).toEqual({ error: 'API key not found' });
    expect((await u.del(`/api/me/api-keys/${k.id}`)).json()).toEqual({ success: true });
    expect((await keyed(k.key).get('/api/projects')).statusCode).toBe(401);
    expect((await keyed(w.key).get('/api/projects')).statusCode).toBe(200);
  });

  it('refuses bad input with 400 and changes nothing', async () => {
    const u = await signUp(t.app);
    for (const body of [
      { name: '', scope: 'read' },
      { name: 'x', scope: 'admin' },
      { name: 'x', scope: 'read', expiresInDays: 0 },
      { name: 'x', scope: 'read', expiresInDays: 1.5 },
      { name: 'x', scope: 'read', extra: true },
    ]) {
      const res = await u.post('/api/me/api-keys', body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
    }
    expect((await u.get('/api/me/api-keys')).json()).toEqual([]);
  });

  it('answers 403 Read-only API key to every write of a read key, over HTTP', async () => {
    const u = await signUp(t.app);
    const p = await makeProject(u);
    const tk = await makeTicket(u, p.id, { title: 'Readable' });
    const key = (await u.post('/api/me/api-keys', { name: 'r', scope: 'read' })).json().key;
    const r = keyed(key);
    expect((await r.get(`/api/projects/${p.id}/tickets/${tk.id}`)).json().title).toBe('Readable');
    const writes = [
      r.post('/api/projects', { name: 'No', key: 'NOPEX' }),
      r.patch(`/api/projects/${p.id}/tickets/${tk.id}`, { title: 'Changed' }),
      r.del(`/api/projects/${p.id}/tickets/${tk.id}`),
      r.patch('/api/me', { name: 'Renamed' }),
      r.post(`/api/projects/${p.id}/tickets/${tk.id}/comments`, { content: 'hi' }),
    ];
    for (const res of await Promise.all(writes)) {
      expect(res.statusCode).toBe(403);
      expect(res.json()).toEqual({ error: 'Read-only API key' });
    }
    expect((await u.get(`/api/projects/${p.id}/tickets/${tk.id}`)).json().title).toBe('Readable');
  });

  it('answers Read-only API key to every write tool over MCP, and reads', async () => {
    const u = await signUp(t.app);
    const p = await makeProject(u, { name: 'Mcp read' });
    const readKey = (await u.post('/api/me/api-keys', { name: 'assistant', scope: 'read' })).json().key;
    let mcp: McpClient | null = null;
    try {
      mcp = await connectHttp(baseUrl, readKey);
      const listed = await call(mcp, 'list_projects');
      expect(listed.isError).toBe(false);
      expect(listed.text).toContain(p.key);
      // The read-only toolset, forced by the key: no write tool is listed.
      const { tools } = await mcp.listTools();
      expect(tools.map((x) => x.name)).toContain('list_tickets');
      expect(tools.map((x) => x.name)).not.toContain('create_ticket');
      expect(tools.every((x) => x.annotations?.readOnlyHint === true)).toBe(true);
      const created = await call(mcp, 'create_ticket', { projectKey: p.key, title: 'From a read key' });
      expect(created.isError).toBe(true);
      expect(created.text).toContain('Read-only API key');
      const made = await call(mcp, 'create_project', { name: 'Nope', key: 'NOPEY' });
      expect(made.isError).toBe(true);
      expect(made.text).toContain('Read-only API key');
    } finally {
      await mcp?.close();
    }
    expect((await u.get(`/api/projects/${p.id}/tickets`)).json()).toEqual([]);
  });

  it('answers 401 to an expired key', async () => {
    const u = await signUp(t.app);
    const k = (await u.post('/api/me/api-keys', { name: 'short', scope: 'write', expiresInDays: 1 })).json();
    expect((await keyed(k.key).get('/api/me')).statusCode).toBe(200);
    await t.app.services.db.kysely
      .updateTable('api_keys')
      .set({ expires_at: new Date(Date.now() - 1000).toISOString() })
      .where('id', '=', k.id)
      .execute();
    const res = await keyed(k.key).get('/api/me');
    expect(res.statusCode).toBe(401);
    expect(res.json()).toEqual({ error: 'Invalid API key' });
  });

  it("acts with its user's memberships only, never with system-administrator powers", async () => {
    const owner = await signUp(t.app);
    const p = await makeProject(owner, { name: 'Private' });
    const key = (await admin.post('/api/me/api-keys', { name: 'admin key', scope: 'write' })).json().key;
    // The administrator's session reads it; the administrator's key does not.
    expect((await admin.get(`/api/projects/${p.id}`)).statusCode).toBe(200);
    expect((await keyed(key).get(`/api/projects/${p.id}`)).statusCode).toBe(404);
    expect((await keyed(key).get('/api/projects')).json().map((x: { id: string }) => x.id)).not.toContain(
      p.id,
    );
    expect((await keyed(key).del(`/api/projects/${p.id}`)).statusCode).toBe(404);
    expect((await keyed(key).get('/api/admin/users')).statusCode).toBe(403);
    // As a member, the key works.
    await addMember(owner, p.id, admin);
    expect((await keyed(key).get(`/api/projects/${p.id}`)).statusCode).toBe(200);
    expect((await keyed(key).del(`/api/projects/${p.id}`)).statusCode).toBe(403);
  });

  it('keeps /api/me/mcp-key working as the write key named MCP, beside the others', async () => {
    const u = await signUp(t.app);
    const other = (await u.post('/api/me/api-keys', { name: 'Other', scope: 'read' })).json();
    const first = (await u.post('/api/me/mcp-key')).json().apiKey;
    expect((await u.get('/api/me/mcp-key')).json()).toMatchObject({ hasKey: true });
    let list = (await u.get('/api/me/api-keys')).json();
    expect(list.map((k: { name: string; scope: string }) => [k.name, k.scope])).toEqual([
      ['MCP', 'write'],
      ['Other', 'read'],
    ]);
    const second = (await u.post('/api/me/mcp-key')).json().apiKey;
    expect((await keyed(first).get('/api/me')).statusCode).toBe(401);
    expect(
      (await keyed(second).post('/api/projects', { name: 'Via MCP key', key: `M${Date.now() % 100000}` }))
        .statusCode,
    ).toBe(201);
    list = (await u.get('/api/me/api-keys')).json();
    expect(list).toHaveLength(2);
    expect((await u.del('/api/me/mcp-key')).json()).toEqual({ success: true });
    expect((await keyed(second).get('/api/me')).statusCode).toBe(401);
    expect((await u.get('/api/me/api-keys')).json().map((k: { id: string }) => k.id)).toEqual([other.id]);
    expect((await u.get('/api/me/mcp-key')).json()).toEqual({
      hasKey: false,
      createdAt: null,
      lastUsedAt: null,
    });
  });
});

describe('migration 011', () => {
  it('turns the one key per user of earlier versions into a write key named MCP', async () => {
    // The schema just before migration 011.
    const { db, kysely: k, drop } = await databaseAt('010_session_details');
    try {
      const now = new Date().toISOString();
      await k
        .insertInto('users')
        .values({
          id: 'u1',
          username: 'old',
          email: null,
          name: null,
          password_hash: 'x',
          avatar: null,
          is_system_admin: 0,
          is_active: 1,
          must_change_password: 0,
          created_at: now,
          updated_at: now,
        })
        .execute();
      await k
        .insertInto('api_keys')
        .values({ id: 'k1', user_id: 'u1', key_hash: 'h1', created_at: now, last_used_at: null })
        .execute();
      await migrateToLatest(db);
      const rows = await k.selectFrom('api_keys').selectAll().execute();
      expect(rows).toEqual([
        {
          id: 'k1',
          user_id: 'u1',
          name: 'MCP',
          scope: 'write',
          key_hash: 'h1',
          created_at: now,
          last_used_at: null,
          expires_at: null,
        },
      ]);
      // Several keys per user now.
      await k
        .insertInto('api_keys')
        .values({ id: 'k2', user_id: 'u1', name: 'two', scope: 'read', key_hash: 'h2', created_at: now })
        .execute();
    } finally {
      await drop();
    }
  });
});
