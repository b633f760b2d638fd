import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './helpers/app.js';
import { addMember, columnsOf, makeProject, makeTicket } from './helpers/board.js';
import { type Client, signUp } from './helpers/factories.js';

let t: TestApp;
let owner: Client;
let member: Client;
let stranger: Client;
beforeAll(async () => {
  t = await createTestApp();
  await signUp(t.app); // the first account is a system administrator
  owner = await signUp(t.app);
  member = await signUp(t.app);
  stranger = await signUp(t.app);
});
afterAll(async () => t.close());

async function get(c: Client, url: string, status = 200) {
  const res = await c.get(url);
  expect(res.statusCode, res.body).toBe(status);
  return res.json();
}

/** A project whose columns are To do, a middle one and a last one; `member` belongs to it. */
async function board() {
  const p = await makeProject(owner);
  await addMember(owner, p.id, member);
  const cols = await columnsOf(owner, p.id);
  return { id: p.id, key: p.key, first: cols[0].id, middle: cols[1].id, last: cols[cols.length - 1].id };
}

describe('GET /api/projects/:projectId/epics', () => {
  it('counts each epic’s children by number and points, done by the project’s done columns', async () => {
    const b = await board();
    const e1 = await makeTicket(owner, b.id, {
      title: 'Launch',
      type: 'Epic',
      startDate: '2026-03-01',
      dueDate: '2026-03-31',
      assigneeId: member.userId,
    });
    const e2 = await makeTicket(owner, b.id, { title: 'Empty epic', type: 'epic' });
    await makeTicket(owner, b.id, { title: 'a', parentId: e1.id, storyPoints: 5, columnId: b.last });
    await makeTicket(owner, b.id, { title: 'b', parentId: e1.id, storyPoints: 3, columnId: b.middle });
    await makeTicket(owner, b.id, { title: 'c', parentId: e1.id });
    await makeTicket(owner, b.id, { title: 'free', storyPoints: 2, columnId: b.last });
    await makeTicket(owner, b.id, { title: 'free 2', storyPoints: 8 });

    let out = await get(member, `/api/projects/${b.id}/epics`);
    expect(out.total).toBe(2);
    expect(out.epics.map((e: { key: string }) => e.key)).toEqual([e1.key, e2.key]);
    const [first, second] = out.epics;
    expect(first).toMatchObject({
      title: 'Launch',
      startDate: '2026-03-01',
      dueDate: '2026-03-31',
      isDone: false,
      columnId: b.first,
      assignee: { id: member.userId },
      children: { total: 3, done: 1, points: 8, donePoints: 5 },
    });
    expect(typeof first.columnName).toBe('string');
    expect(second.children).toEqual({ total: 0, done: 0, points: 0, donePoints: 0 });
    expect(second.assignee).toBeNull();
    expect(out.noEpic).toEqual({ total: 2, done: 1, points: 10, donePoints: 2 });

    // The middle column becomes a done column too (decision 046): the counts follow.
    const s = await owner.patch(`/api/projects/${b.id}/sprints/settings`, {
      doneColumnIds: [b.middle, b.last],
    });
    expect(s.statusCode, s.body).toBe(200);
    out = await get(member, `/api/projects/${b.id}/epics`);
    expect(out.epics[0].children).toEqual({ total: 3, done: 2, points: 8, donePoints: 8 });
  });

  it('pages the epics with a limit and an offset, at most 200 at a time', async () => {
    const b = await board();
    const epics = [];
    for (let i = 0; i < 3; i++) epics.push(await makeTicket(owner, b.id, { title: `E${i}`, type: 'Epic' }));
    await makeTicket(owner, b.id, { title: 'child of the last', parentId: epics[2].id, storyPoints: 1 });
    const page = await get(member, `/api/projects/${b.id}/epics?limit=2&offset=1`);
    expect(page).toMatchObject({ total: 3, limit: 2, offset: 1 });
    expect(page.epics.map((e: { id: string }) => e.id)).toEqual([epics[1].id, epics[2].id]);
    expect(page.epics[1].children).toEqual({ total: 1, done: 0, points: 1, donePoints: 0 });
    const res = await member.get(`/api/projects/${b.id}/epics?limit=201`);
    expect(res.statusCode).toBe(400);
    expect(res.body).toContain('at most 200');
  });

  it('reads a project the caller is not in as missing (404)', async () => {
    const b = await board();
    await get(stranger, `/api/projects/${b.id}/epics`, 404);
  });

  it('counts the children of any number of epics in the same number of statements', async () => {
    const db = t.app.services.db;
    const statements = async (pid: string) => {
      await get(member, `/api/projects/${pid}/epics`); // the project access is cached from here on
      const before = db.statements();
      await get(member, `/api/projects/${pid}/epics`);
      return db.statements() - before;
    };
    const few = await board();
    const e = await makeTicket(owner, few.id, { title: 'One', type: 'Epic' });
    await makeTicket(owner, few.id, { title: 'child', parentId: e.id, storyPoints: 1 });
    const many = await board();
    for (let i = 0; i < 12; i++) {
      const epic = await makeTicket(owner, many.id, { title: `E${i}`, type: 'Epic' });
      await makeTicket(owner, many.id, { title: `child ${i}`, parentId: epic.id, storyPoints: 2 });
    }
    const one = await statements(few.id);
    // On PostgreSQL the change-log reading may add one statement (once per millisecond).
    expect(Math.abs((await statements(many.id)) - one)).toBeLessThanOrEqual(1);
    expect(one).toBeLessThanOrEqual(8);
  });

  it('lists one epic’s children with the ticket list filtered by parent', async () => {
    const b = await board();
    const e = await makeTicket(owner, b.id, { title: 'Epic', type: 'Epic' });
    const child = await makeTicket(owner, b.id, { title: 'child', parentId: e.id });
    await makeTicket(owner, b.id, { title: 'other' });
    const list = await get(
      member,
      `/api/projects/${b.id}/tickets?query=${encodeURIComponent(`parent:${e.key}`)}`,
    );
    expect(list.map((x: { id: string }) => x.id)).toEqual([child.id]);
  });
});

describe('GET /api/projects/:projectId/timeline', () => {
  const url = (pid: string, from: string, to: string) =>
    `/api/projects/${pid}/timeline?from=${from}&to=${to}`;

  it('places epics and tickets whose days meet the window, grouped by epic', async () => {
    const b = await board();
    const epic = await makeTicket(owner, b.id, {
      title: 'Epic in',
      type: 'Epic',
      startDate: '2026-01-20',
      dueDate: '2026-03-10',
    });
    const outside = await makeTicket(owner, b.id, {
      title: 'Epic out',
      type: 'Epic',
      startDate: '2025-01-01',
      dueDate: '2025-02-01',
    });
    const mk = (title: string, fields: Record<string, unknown>) =>
      makeTicket(owner, b.id, { title, ...fields });
    const spans = await mk('spans the window', {
      parentId: epic.id,
      startDate: '2026-01-01',
      dueDate: '2026-12-31',
    });
    const ends = await mk('ends on from', {
      parentId: epic.id,
      startDate: '2026-01-15',
      dueDate: '2026-02-01',
    });
    const starts = await mk('starts on to', {
      parentId: outside.id,
      startDate: '2026-02-28',
      dueDate: '2026-04-02',
    });
    const pointIn = await mk('due only, inside', { dueDate: '2026-02-10', columnId: b.last });
    const startOnly = await mk('start only, inside', { startDate: '2026-02-01' });
    await mk('before', { startDate: '2026-01-01', dueDate: '2026-01-31' });
    await mk('after', { startDate: '2026-03-01', dueDate: '2026-03-05' });
    await mk('due only, outside', { dueDate: '2026-03-01' });
    await mk('no dates', { parentId: epic.id });

    const out = await get(member, url(b.id, '2026-02-01', '2026-02-28'));
    expect(out).toMatchObject({ from: '2026-02-01', to: '2026-02-28', truncated: false });
    const shape = out.groups.map(
      (g: { epic: { id: string; inWindow: boolean } | null; tickets: { id: string }[] }) => ({
        epic: g.epic && { id: g.epic.id, inWindow: g.epic.inWindow },
        tickets: g.tickets.map((x) => x.id),
      }),
    );
    expect(shape).toEqual([
      { epic: { id: outside.id, inWindow: false }, tickets: [starts.id] },
      { epic: { id: epic.id, inWindow: true }, tickets: [spans.id, ends.id] },
      { epic: null, tickets: [startOnly.id, pointIn.id] },
    ]);
    const none = out.groups[2].tickets;
    expect(none[1]).toMatchObject({ key: pointIn.key, isDone: true, startDate: null, dueDate: '2026-02-10' });
    expect(none[0]).toMatchObject({ isDone: false, startDate: '2026-02-01', dueDate: null });
  });

  it('caps the answer at 500 items and says it was truncated', async () => {
    const b = await board();
    const db = t.app.services.db.kysely;
    const first = await makeTicket(owner, b.id, { title: 'seed', dueDate: '2026-05-01' });
    // 501 dated tickets, written straight to the table (the API is tested above).
    const base = await db
      .selectFrom('tickets')
      .selectAll()
      .where('id', '=', first.id)
      .executeTakeFirstOrThrow();
    const rows = Array.from({ length: 500 }, (_, i) => ({
      ...base,
      id: `${base.id.slice(0, 20)}x${i}`,
      number: 1000 + i,
      rank: `${base.rank}${String(i).padStart(4, '0')}`,
    }));
    for (let i = 0; i < rows.length; i += 100)
      await db
        .insertInto('tickets')
        .values(rows.slice(i, i + 100))
        .execute();
    const out = await get(member, url(b.id, '2026-05-01', '2026-05-01'));
    expect(out.truncated).toBe(true);
    expect(out.groups.reduce((n: number, g: { tickets: unknown[] }) => n + g.tickets.length, 0)).toBe(500);
    const narrow = await get(member, url(b.id, '2026-05-02', '2026-06-01'));
    expect(narrow).toMatchObject({ truncated: false, groups: [] });
  });

  it('refuses bad windows with 400 and a clear message', async () => {
    const b = await board();
    for (const [from, to, text] of [
      ['2026-02-30', '2026-03-01', 'real calendar date'],
      ['2026/01/01', '2026-03-01', 'YYYY-MM-DD'],
      ['2026-03-01', '2026-02-01', 'Must not be before from'],
      ['2020-01-01', '2026-01-01', 'at most 800 days'],
    ]) {
      const res = await member.get(url(b.id, from, to));
      expect(res.statusCode, `${from}..${to}`).toBe(400);
      expect(res.body).toContain(text);
    }
    const missing = await member.get(`/api/projects/${b.id}/timeline?from=2026-01-01`);
    expect(missing.statusCode).toBe(400);
  });

  it('reads a project the caller is not in as missing (404)', async () => {
    const b = await board();
    await get(stranger, url(b.id, '2026-01-01', '2026-01-31'), 404);
  });
});
