import type { AddressInfo } from 'node:net';
import type { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isCalendarDate } from '../src/shared/rules.js';
import { createTestApp, type TestApp } from './helpers/app.js';
import { type Client, signUp, unique } from './helpers/factories.js';
import { connect, fails, ok, type Transport } from './helpers/mcp.js';

/**
 * Issue 20, "MCP for assistants": each row of its table, over both front doors (Streamable HTTP at
 * /api/mcp and the stdio server) with the official SDK client, and the HTTP API where the row is
 * about it too.
 */

let t: TestApp;
let baseUrl: string;
let owner: Client;
let apiKey: string;

beforeAll(async () => {
  t = await createTestApp();
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  baseUrl = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  await signUp(t.app, { username: unique('sysadmin') });
  owner = await signUp(t.app, { username: unique('ada'), name: 'Ada Assistant' });
  apiKey = (await owner.post('/api/me/mcp-key')).json().apiKey;
});
afterAll(async () => t.close());

describe('calendar-true dates (HTTP)', () => {
  it('isCalendarDate knows month lengths and leap years', () => {
    for (const d of ['2026-02-28', '2024-02-29', '2026-12-31', '2000-02-29'])
      expect(isCalendarDate(d), d).toBe(true);
    for (const d of [
      '2026-02-29',
      '2026-02-30',
      '1900-02-29',
      '2026-04-31',
      '2026-13-01',
      '2026-00-10',
      '2026-1-01',
    ])
      expect(isCalendarDate(d), d).toBe(false);
  });

  it('the API refuses 2026-02-30 as a due or start date and stores nothing', async () => {
    const key = 'DATEH';
    await owner.post('/api/projects', { name: 'Dates', key });
    const created = await owner.post(`/api/projects/${key}/tickets`, {
      title: 'Dated',
      dueDate: '2026-02-30',
    });
    expect(created.statusCode).toBe(400);
    expect(created.json().details[0]).toMatchObject({
      path: 'dueDate',
      message: 'Must be a real calendar date',
    });
    const ticket = (await owner.post(`/api/projects/${key}/tickets`, { title: 'Dated' })).json();
    for (const field of ['dueDate', 'startDate']) {
      const r = await owner.patch(`/api/projects/${key}/tickets/${ticket.key}`, { [field]: '2026-02-30' });
      expect(r.statusCode, field).toBe(400);
    }
    expect(
      (await owner.patch(`/api/projects/${key}/tickets/${ticket.key}`, { dueDate: '2024-02-29' })).statusCode,
    ).toBe(200);
    expect((await owner.get(`/api/projects/${key}/tickets/${ticket.key}`)).json()).toMatchObject({
      dueDate: '2024-02-29',
      startDate: null,
    });
  });
});

describe.each<Transport>(['http', 'stdio'])('assistant rows over %s', (kind) => {
  let c: McpClient;
  const KEY = kind === 'http' ? 'ASH' : 'ASS';
  const P = `/api/projects/${KEY}`;

  beforeAll(async () => {
    c = await connect(kind, baseUrl, apiKey);
    await owner.post('/api/projects', { name: `Assistant ${kind}`, key: KEY });
  });
  afterAll(async () => c?.close());

  describe('dates', () => {
    it('update_ticket and create_ticket refuse 2026-02-30; nothing is stored', async () => {
      const made = await ok(c, 'create_ticket', { projectKey: KEY, title: 'Due soon' });
      const refused = await fails(c, 'update_ticket', { key: made.data.key, dueDate: '2026-02-30' });
      expect(refused).toMatch(/dueDate: must be a real calendar date/);
      expect(
        await fails(c, 'create_ticket', { projectKey: KEY, title: 'x', startDate: '2026-04-31' }),
      ).toMatch(/startDate: must be a real calendar date/);
      expect((await owner.get(`${P}/tickets/${made.data.key}`)).json().dueDate).toBeNull();
      const leap = await ok(c, 'update_ticket', { key: made.data.key, dueDate: '2028-02-29' });
      expect(leap.data.dueDate).toBe('2028-02-29');
    });

    it('sprint tools refuse days that do not exist', async () => {
      expect(
        await fails(c, 'create_sprint', { projectKey: KEY, name: `Dates ${kind}`, startDate: '2026-02-30' }),
      ).toMatch(/startDate: must be a real calendar date/);
      const sprints = (await owner.get(`${P}/sprints`)).json();
      expect(sprints.some((s: { name: string }) => s.name === `Dates ${kind}`)).toBe(false);
    });
  });
});
