/**
 * The ticket list's filters with several values (issue 23, docs/decisions/049-swimlanes-and-filters.md):
 * a comma list is "any of" within one filter, filters combine with "and", single values keep working.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './helpers/app.js';
import { addMember, makeProject, makeTicket, type ProjectOut } from './helpers/board.js';
import { type Client, signUp } from './helpers/factories.js';

let t: TestApp;
let owner: Client & { userId: string };
let member: Client & { userId: string };
let p: ProjectOut;
let ui: { id: string };
let api: { id: string };
let docs: { id: string };
let a: { id: string };
let b: { id: string };
let c: { id: string };
let d: { id: string };

beforeAll(async () => {
  t = await createTestApp();
  await signUp(t.app);
  owner = (await signUp(t.app, { name: 'Olga' })) as Client & { userId: string };
  member = (await signUp(t.app, { name: 'Max' })) as Client & { userId: string };
  p = await makeProject(owner, { name: 'Filters' });
  await addMember(owner, p.id, member);
  const label = async (name: string) => (await owner.post(`/api/projects/${p.id}/labels`, { name })).json();
  ui = await label('ui');
  api = await label('api');
  docs = await label('docs');
  a = await makeTicket(owner, p.id, { type: 'Bug', priority: 'High', labelIds: [ui.id] });
  b = await makeTicket(owner, p.id, {
    type: 'Story',
    priority: 'Low',
    assigneeId: member.userId,
    labelIds: [api.id, ui.id],
  });
  c = await makeTicket(owner, p.id, { type: 'Task', priority: 'Medium', assigneeId: owner.userId });
  d = await makeTicket(owner, p.id, { type: 'Bug', priority: 'Low', labelIds: [docs.id] });
});
afterAll(async () => t.close());

const ids = async (query: string) => {
  const res = await owner.get(`/api/projects/${p.id}/tickets?${query}`);
  expect(res.statusCode, res.body).toBe(200);
  return (res.json() as { id: string }[]).map((x) => x.id).sort();
};
const sorted = (...xs: { id: string }[]) => xs.map((x) => x.id).sort();

describe('ticket list filters with several values', () => {
  it('matches any value of one filter', async () => {
    expect(await ids('type=bug,story')).toEqual(sorted(a, b, d));
    expect(await ids('priority=high,medium')).toEqual(sorted(a, c));
    expect(await ids(`labelId=${api.id},${docs.id}`)).toEqual(sorted(b, d));
    expect(await ids(`assigneeId=${member.userId},${owner.userId}`)).toEqual(sorted(b, c));
  });

  it('mixes unassigned with people in the assignee filter', async () => {
    expect(await ids(`assigneeId=none,${member.userId}`)).toEqual(sorted(a, b, d));
    expect(await ids('assigneeId=NONE')).toEqual(sorted(a, d));
  });

  it('combines filters with and', async () => {
    expect(await ids('type=bug,story&priority=low')).toEqual(sorted(b, d));
    expect(await ids(`type=bug&labelId=${ui.id},${docs.id}&assigneeId=none`)).toEqual(sorted(a, d));
    expect(await ids('type=task&priority=high,low')).toEqual([]);
  });

  it('keeps single values, spaces and repeats working', async () => {
    expect(await ids('type=Bug')).toEqual(sorted(a, d));
    expect(await ids(`labelId=${ui.id}`)).toEqual(sorted(a, b));
    expect(await ids('type=%20bug%20,bug,')).toEqual(sorted(a, d));
  });

  it('refuses an unknown value with 400 naming it', async () => {
    const res = await owner.get(`/api/projects/${p.id}/tickets?type=bug,feature`);
    expect(res.statusCode).toBe(400);
    expect(res.json().details[0]).toMatchObject({
      path: 'querystring.type',
      message: expect.stringMatching(/^"feature": Must be one of/),
    });
    const empty = await owner.get(`/api/projects/${p.id}/tickets?priority=,`);
    expect(empty.statusCode).toBe(400);
    expect(empty.body).toContain('Give at least one value');
    const many = await owner.get(
      `/api/projects/${p.id}/tickets?labelId=${Array.from({ length: 51 }, (_, i) => `l${i}`).join(',')}`,
    );
    expect(many.statusCode).toBe(400);
    expect(many.body).toContain('At most 50 values');
  });

  it('counts the filtered total with paging', async () => {
    const res = await owner.get(`/api/projects/${p.id}/tickets?type=bug,story&limit=1`);
    expect(res.statusCode).toBe(200);
    expect(res.headers['x-total-count']).toBe('3');
    expect(res.json()).toHaveLength(1);
  });
});
