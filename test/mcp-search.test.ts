import type { AddressInfo } from 'node:net';
import type { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './helpers/app.js';
import { makeProject, makeTicket } from './helpers/board.js';
import { signUp, unique } from './helpers/factories.js';
import { connectHttp, fails, ok } from './helpers/mcp.js';

let t: TestApp;
let c: McpClient;

beforeAll(async () => {
  t = await createTestApp();
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  const baseUrl = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  await signUp(t.app);
  const owner = await signUp(t.app, { username: unique('sam'), name: 'Sam' });
  const p = await makeProject(owner, { name: 'Mcp search', key: 'MSRCH' });
  await makeTicket(owner, p.id, { title: 'Kiwi parser bug', type: 'Bug', priority: 'High' });
  await makeTicket(owner, p.id, { title: 'Kiwi docs', type: 'Task' });
  await makeTicket(owner, p.id, { title: 'Kiwi release', type: 'Task' });
  const outsider = await signUp(t.app);
  const q = await makeProject(outsider, { name: 'Hidden', key: 'HIDE' });
  await makeTicket(outsider, q.id, { title: 'Kiwi secret' });
  c = await connectHttp(baseUrl, (await owner.post('/api/me/mcp-key')).json().apiKey);
});
afterAll(async () => {
  await c?.close();
  await t?.close();
});

describe('search_tickets', () => {
  it('answers with the grammar, totals and a cursor', async () => {
    const bugs = await ok(c, 'search_tickets', { query: 'kiwi type:bug' });
    expect(bugs.data).toMatchObject({ total: 1, nextCursor: null });
    expect(bugs.data.tickets[0]).toMatchObject({
      key: 'MSRCH-1',
      type: 'bug',
      priority: 'high',
    });
    const first = await ok(c, 'search_tickets', { query: 'kiwi sort:key', limit: 2 });
    expect(first.data.total).toBe(3);
    expect(first.data.tickets.map((x: { key: string }) => x.key)).toEqual(['MSRCH-1', 'MSRCH-2']);
    const rest = await ok(c, 'search_tickets', {
      query: 'kiwi sort:key',
      limit: 2,
      cursor: first.data.nextCursor,
    });
    expect(rest.data.tickets.map((x: { key: string }) => x.key)).toEqual(['MSRCH-3']);
    expect(rest.data.nextCursor).toBeNull();
  });
  it('explains a malformed query', async () => {
    expect(await fails(c, 'search_tickets', { query: 'kiwi colour:red' })).toMatch(
      /Unknown field 'colour'.*known fields/,
    );
    expect(await fails(c, 'search_tickets', { query: 'project:HIDE' })).toMatch(/Unknown project 'HIDE'/);
  });
});
