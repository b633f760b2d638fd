import type { AddressInfo } from 'node:net';
import type { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { type Kysely, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as sprintNamesUnique from '../src/db/migrations/020_sprint_names_unique.js';
import { isCalendarDate } from '../src/shared/rules.js';
import { createTestApp, type TestApp } from './helpers/app.js';
import { type Client, signUp, unique } from './helpers/factories.js';
import { call, connect, fails, ok, type Transport } from './helpers/mcp.js';

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

describe('sprint names unique ignoring case (HTTP)', () => {
  it('creating or renaming to another sprint’s name in other letter case is a 409, nothing changes', async () => {
    const key = 'SNH';
    await owner.post('/api/projects', { name: 'Sprint names', key });
    const s4 = await owner.post(`/api/projects/${key}/sprints`, { name: 'Sprint 4' });
    expect(s4.statusCode).toBe(201);
    const clash = await owner.post(`/api/projects/${key}/sprints`, { name: 'sprint 4' });
    expect(clash.statusCode).toBe(409);
    expect(clash.json()).toEqual({ error: 'Sprint already exists' });
    const other = (await owner.post(`/api/projects/${key}/sprints`, { name: 'Hardening' })).json();
    const rename = await owner.patch(`/api/projects/${key}/sprints/${other.id}`, { name: 'SPRINT 4' });
    expect(rename.statusCode).toBe(409);
    // Its own name in another case is fine.
    expect(
      (await owner.patch(`/api/projects/${key}/sprints/${other.id}`, { name: 'hardening' })).statusCode,
    ).toBe(200);
    const names = (await owner.get(`/api/projects/${key}/sprints`))
      .json()
      .map((s: { name: string }) => s.name);
    expect(names).toEqual(['Sprint 4', 'hardening']);
    // Another project may use the same name.
    await owner.post('/api/projects', { name: 'Sprint names 2', key: 'SNH2' });
    expect((await owner.post('/api/projects/SNH2/sprints', { name: 'sprint 4' })).statusCode).toBe(201);
  });

  it('the migration renames existing clashes ("Sprint 4 (2)") before adding the unique index', async () => {
    const db = t.app.services.db.kysely as unknown as Kysely<any>;
    const project = (await owner.post('/api/projects', { name: 'Old clashes', key: 'SNM' })).json();
    await sql`drop index sprints_project_name_uq`.execute(db);
    const row = (id: string, name: string, at: string) => ({
      id,
      project_id: project.id,
      name,
      goal: null,
      start_date: null,
      end_date: null,
      status: 'planning',
      budget: null,
      started_at: null,
      completed_at: null,
      created_at: at,
      updated_at: at,
    });
    await db
      .insertInto('sprints')
      .values([
        row('snm-a', 'Sprint 4', '2026-01-01T00:00:00.000Z'),
        row('snm-b', 'sprint 4', '2026-01-02T00:00:00.000Z'),
        row('snm-c', 'Sprint 4 (2)', '2026-01-03T00:00:00.000Z'),
        row('snm-d', 'SPRINT 4', '2026-01-04T00:00:00.000Z'),
      ])
      .execute();
    await sprintNamesUnique.up(db);
    const after = await db
      .selectFrom('sprints')
      .select(['id', 'name'])
      .where('project_id', '=', project.id)
      .orderBy('id')
      .execute();
    expect(after).toEqual([
      { id: 'snm-a', name: 'Sprint 4' },
      { id: 'snm-b', name: 'sprint 4 (3)' },
      { id: 'snm-c', name: 'Sprint 4 (2)' },
      { id: 'snm-d', name: 'SPRINT 4 (4)' },
    ]);
    await expect(
      db
        .insertInto('sprints')
        .values(row('snm-e', 'sprint 4 (2)', '2026-01-05T00:00:00.000Z'))
        .execute(),
    ).rejects.toThrow();
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

  describe('tool errors', () => {
    it('a NUL in search or in a title is an isError tool result naming the parameter, not a transport error', async () => {
      for (const args of [{ search: 'log\u0000in' }, { projectKey: KEY, search: 'log\u0000in' }]) {
        const r = await call(c, 'list_tickets', args);
        expect(r).toMatchObject({
          isError: true,
          text: 'Validation failed: search: Must not contain NUL characters',
        });
      }
      const r = await call(c, 'create_ticket', { projectKey: KEY, title: 'nul\u0000title' });
      expect(r).toMatchObject({
        isError: true,
        text: 'Validation failed: title: Must not contain NUL characters',
      });
      expect((await owner.get(`${P}/tickets?q=nul`)).json()).toEqual([]);
    });

    it('an unknown tool and bad arguments are isError results too', async () => {
      expect(await call(c, 'no_such_tool', {})).toMatchObject({
        isError: true,
        text: 'Unknown tool: no_such_tool',
      });
      expect(await call(c, 'get_ticket', { ticketKey: 42 })).toMatchObject({ isError: true });
    });
  });

  describe('sprint names', () => {
    it('create_sprint {name: "sprint 4"} while "Sprint 4" exists is refused; both stay addressable', async () => {
      await ok(c, 'create_sprint', { projectKey: KEY, name: 'Sprint 4' });
      expect(await fails(c, 'create_sprint', { projectKey: KEY, name: 'sprint 4' })).toBe(
        'Sprint already exists',
      );
      await ok(c, 'create_sprint', { projectKey: KEY, name: 'Sprint 40' });
      expect(
        await fails(c, 'update_sprint', { projectKey: KEY, sprintName: 'Sprint 40', name: 'SPRINT 4' }),
      ).toBe('Sprint already exists');
      const r = await ok(c, 'get_sprint', { projectKey: KEY, sprintName: 'sprint 4' });
      expect(r.data.name).toBe('Sprint 4');
    });
  });
});
