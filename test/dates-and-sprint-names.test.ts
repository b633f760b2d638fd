import { type Kysely, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as sprintNamesUnique from '../src/db/migrations/020_sprint_names_unique.js';
import { isCalendarDate } from '../src/shared/rules.js';
import { createTestApp, type TestApp } from './helpers/app.js';
import { type Client, signUp, unique } from './helpers/factories.js';

/**
 * Issue 20 over HTTP: dates must be real calendar days, and sprint names are unique in a project
 * ignoring case (with migration 020 renaming older clashes). test/mcp-assistant.test.ts has the same
 * rows through the tools.
 */

let t: TestApp;
let owner: Client;

beforeAll(async () => {
  t = await createTestApp();
  await signUp(t.app, { username: unique('sysadmin') });
  owner = await signUp(t.app, { username: unique('ada'), name: 'Ada Assistant' });
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
