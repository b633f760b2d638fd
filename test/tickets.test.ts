import type { KyselyPlugin } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../src/domain/ids.js';
import { createTestApp, type TestApp } from './helpers/app.js';
import { addMember, columnsOf, makeProject, makeTicket, type ProjectOut } from './helpers/board.js';
import { type Client, PASSWORD, signUp } from './helpers/factories.js';

let t: TestApp;
let owner: Client;
let member: Client;
let outsider: Client;
let p: ProjectOut;
let cols: { id: string; name: string; order: number }[];

beforeAll(async () => {
  t = await createTestApp();
  await signUp(t.app); // the first account is a system administrator
  owner = await signUp(t.app, { name: 'Olga' });
  member = await signUp(t.app, { name: 'Max' });
  outsider = await signUp(t.app);
  p = await makeProject(owner, { name: 'Tickets' });
  await addMember(owner, p.id, member);
  cols = await columnsOf(owner, p.id);
});
afterAll(async () => t.close());

const db = () => t.app.services.db.kysely;
const url = (proj: { id: string }, rest = '') => `/api/projects/${proj.id}/tickets${rest}`;
const events = (type: string, projectId: string) =>
  db()
    .selectFrom('events')
    .selectAll()
    .where('type', '=', type)
    .where('project_id', '=', projectId)
    .orderBy('id')
    .execute();

async function makeSprint(
  projectId: string,
  status: 'planning' | 'active' | 'completed' = 'planning',
  given?: string,
) {
  const now = new Date().toISOString();
  const id = newId();
  // Sprint names are unique in a project ignoring case (issue 20).
  const name = given ?? `Sprint ${id}`;
  await db()
    .insertInto('sprints')
    .values({
      id,
      project_id: projectId,
      name,
      goal: null,
      start_date: null,
      end_date: null,
      status,
      budget: null,
      completed_at: null,
      created_at: now,
      updated_at: now,
    })
    .execute();
  return id;
}

async function board(c: Client, proj: { id: string }) {
  const list = (await c.get(url(proj))).json() as {
    id: string;
    columnId: string;
    order: number;
    number: number;
  }[];
  const by = new Map<string, { id: string; order: number; number: number }[]>();
  for (const x of list) by.set(x.columnId, [...(by.get(x.columnId) ?? []), x]);
  return by;
}

describe('creating tickets', () => {
  it('applies the defaults: Task, Medium, first column at the end, reporter and watcher, key and number', async () => {
    const proj = await makeProject(owner);
    const first = await makeTicket(owner, proj.id, { title: '  First  ' });
    const second = await makeTicket(owner, proj.id, { title: 'Second' });
    const [todo] = await columnsOf(owner, proj.id);
    expect(first).toMatchObject({
      number: 1,
      key: `${proj.key}-1`,
      title: 'First',
      description: null,
      type: 'Task',
      priority: 'Medium',
      columnId: todo.id,
      order: 0,
      assigneeId: null,
      sprintId: null,
      parentId: null,
      storyPoints: null,
      estimate: null,
      startDate: null,
      dueDate: null,
      environment: null,
      affectedVersion: null,
      fixVersion: null,
      isCarriedOver: false,
      carriedFromSprintId: null,
      carriedOverCount: 0,
      projectId: proj.id,
      column: { id: todo.id, name: 'To Do' },
      assignee: null,
      sprint: null,
      labels: [],
      links: [],
      attachmentCount: 0,
      commentCount: 0,
      reporter: { id: owner.userId, name: 'Olga', avatar: null },
      watchers: [{ id: owner.userId, name: 'Olga' }],
    });
    expect(second).toMatchObject({ number: 2, order: 0 + 1 });
    const [ev] = await events('ticket.created', proj.id);
    expect(JSON.parse(ev.data)).toMatchObject({
      id: first.id,
      key: `${proj.key}-1`,
      reporter: { id: owner.userId },
    });
  });

  it('stores every field of the Ticket table, accepting types and priorities in any case', async () => {
    const label = (await owner.post(`/api/projects/${p.id}/labels`, { name: `l${Date.now()}` })).json();
    const sprintId = await makeSprint(p.id, 'active', 'Sprint A');
    const parent = await makeTicket(owner, p.id, { title: 'Epic', type: 'epic' });
    const res = await member.post(url(p), {
      title: 'Everything',
      description: '# Heading\n\n*markdown*',
      type: 'BUG',
      priority: 'highest',
      columnId: cols[1].id,
      assigneeId: member.userId,
      sprintId,
      parentId: parent.key.toLowerCase(),
      storyPoints: 8,
      estimate: '2h',
      startDate: '2026-01-02',
      dueDate: '2026-02-03',
      environment: 'Production',
      affectedVersion: '1.0',
      fixVersion: '1.1',
      labelIds: [label.id],
      watcherIds: [owner.userId],
    });
    expect(res.statusCode).toBe(201);
    expect(res.json()).toMatchObject({
      description: '# Heading\n\n*markdown*',
      type: 'Bug',
      priority: 'Highest',
      columnId: cols[1].id,
      column: { id: cols[1].id, name: 'In Progress' },
      assigneeId: member.userId,
      assignee: { id: member.userId, name: 'Max', avatar: null },
      sprintId,
      sprint: { id: sprintId, name: 'Sprint A' },
      parentId: parent.id,
      storyPoints: 8,
      estimate: '2h',
      startDate: '2026-01-02',
      dueDate: '2026-02-03',
      environment: 'Production',
      affectedVersion: '1.0',
      fixVersion: '1.1',
      labelIds: [label.id],
      labels: [{ id: label.id, name: label.name, color: label.color }],
      reporter: { id: member.userId },
    });
    expect(
      res
        .json()
        .watchers.map((w: { id: string }) => w.id)
        .sort(),
    ).toEqual([owner.userId, member.userId].sort());
    expect(parent.type).toBe('Epic');
    const membership = await db()
      .selectFrom('sprint_ticket_history')
      .selectAll()
      .where('ticket_id', '=', res.json().id)
      .execute();
    expect(membership).toEqual([
      expect.objectContaining({
        sprint_id: sprintId,
        entry_type: 'added',
        exit_status: null,
        exited_at: null,
        story_points: 8,
      }),
    ]);
  });

  it.each([
    [{ title: '' }, 'title'],
    [{ title: '   ' }, 'title'],
    [{ title: 'x'.repeat(256) }, 'title'],
    [{}, 'title'],
    [{ title: 'x', type: 'Feature' }, 'type'],
    [{ title: 'x', priority: 'urgent' }, 'priority'],
    [{ title: 'x', storyPoints: 4 }, 'storyPoints'],
    [{ title: 'x', dueDate: '2026-13-01' }, 'dueDate'],
    [{ title: 'x', startDate: 'tomorrow' }, 'startDate'],
    [{ title: 'x', description: 'd'.repeat(100_001) }, 'description'],
  ])('refuses %j with 400 naming %s', async (body, field) => {
    const res = await owner.post(url(p), body);
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toBe('Validation failed');
    expect(res.json().details.map((d: { path: string }) => d.path)).toContain(field);
  });

  it('refuses references that are missing, elsewhere or not allowed with 400 naming the field', async () => {
    const elsewhere = await makeProject(owner);
    const [foreignCol] = await columnsOf(owner, elsewhere.id);
    const foreignLabel = (await owner.post(`/api/projects/${elsewhere.id}/labels`, { name: 'x' })).json();
    const foreignTicket = await makeTicket(owner, elsewhere.id);
    const foreignSprint = await makeSprint(elsewhere.id);
    const doneSprint = await makeSprint(p.id, 'completed');
    const cases: [Record<string, unknown>, string][] = [
      [{ columnId: foreignCol.id }, 'columnId'],
      [{ assigneeId: outsider.userId }, 'assigneeId'],
      [{ assigneeId: 'no-such-user' }, 'assigneeId'],
      [{ watcherIds: [member.userId, outsider.userId] }, 'watcherIds'],
      [{ labelIds: [foreignLabel.id] }, 'labelIds'],
      [{ parentId: foreignTicket.id }, 'parentId'],
      [{ parentId: foreignTicket.key }, 'parentId'],
      [{ sprintId: foreignSprint }, 'sprintId'],
      [{ sprintId: doneSprint }, 'sprintId'],
    ];
    for (const [body, field] of cases) {
      const res = await owner.post(url(p), { title: 'x', ...body });
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json().details[0].path, JSON.stringify(body)).toBe(field);
    }
  });

  it('gives 50 concurrent creations 50 distinct consecutive numbers, and orders a client can replay', async () => {
    const proj = await makeProject(owner);
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) => owner.post(url(proj), { title: `T${i}` })),
    );
    for (const r of results) expect(r.statusCode, r.body).toBe(201);
    const created = results.map(
      (r) => r.json() as { id: string; number: number; order: number; columnId: string },
    );
    const numbers = created.map((t) => t.number).sort((a, b) => a - b);
    expect(numbers).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
    // Numbers are drawn in commit order. A client that inserts each new card at the order its
    // answer (and its event) gave, in that order, has the board the server lists.
    const replayed: string[] = [];
    for (const t of [...created].sort((a, b) => a.number - b.number)) replayed.splice(t.order, 0, t.id);
    const board = (await owner.get(`${url(proj)}?columnId=${created[0].columnId}`)).json() as {
      id: string;
      order: number;
    }[];
    expect(board.map((t) => t.order)).toEqual(Array.from({ length: 50 }, (_, i) => i));
    expect(replayed).toEqual(board.map((t) => t.id));
  });

  it('answers 201, 400 or 409, never 500, when a label is deleted while tickets using it are created', async () => {
    const proj = await makeProject(owner);
    for (let round = 0; round < 3; round++) {
      const label = (await owner.post(`/api/projects/${proj.id}/labels`, { name: `race${round}` })).json();
      const creates = Array.from({ length: 15 }, () =>
        owner.post(url(proj), { title: 'x', labelIds: [label.id] }),
      );
      const del = owner.del(`/api/projects/${proj.id}/labels/${label.id}`);
      const results = await Promise.all([...creates, del]);
      for (const r of results) expect([200, 201, 400, 409], r.body).toContain(r.statusCode);
    }
  });

  it('never reuses a number after a deletion', async () => {
    const proj = await makeProject(owner);
    await makeTicket(owner, proj.id);
    const two = await makeTicket(owner, proj.id);
    expect((await owner.del(url(proj, `/${two.id}`))).json()).toMatchObject({ success: true });
    expect((await makeTicket(owner, proj.id)).number).toBe(3);
  });
});

describe('reading tickets', () => {
  it('reads by id or key in any case; 404 for missing tickets and for non-members', async () => {
    const tk = await makeTicket(owner, p.id);
    expect((await member.get(url(p, `/${tk.key.toLowerCase()}`))).json().id).toBe(tk.id);
    expect((await member.get(`/api/projects/${p.key}/tickets/${tk.id}`)).json().id).toBe(tk.id);
    const missing = await member.get(url(p, `/${p.key}-9999`));
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toEqual({ error: 'Ticket not found' });
    const other = await makeProject(owner);
    expect((await member.get(`/api/projects/${other.id}/tickets/${tk.id}`)).statusCode).toBe(404);
    const hidden = await outsider.get(url(p, `/${tk.id}`));
    expect(hidden.statusCode).toBe(404);
    expect(hidden.json()).toEqual({ error: 'Project not found' });
    for (const [method, path] of [
      ['PATCH', `/${tk.id}`],
      ['DELETE', `/${tk.id}`],
      ['GET', `/${tk.id}/history`],
      ['GET', `/${tk.id}/comments`],
      ['POST', `/${tk.id}/comments`],
      ['POST', `/${tk.id}/links`],
    ]) {
      const res = await outsider.req({
        method: method as 'GET',
        url: url(p, path),
        payload: { content: 'x', targetTicketId: tk.id, linkType: 'blocks' } as never,
      });
      expect(res.statusCode, `${method} ${path}`).toBe(404);
    }
  });

  it('shows a deleted reporter and comment author as Deleted user', async () => {
    const proj = await makeProject(owner);
    const gone = await signUp(t.app);
    await addMember(owner, proj.id, gone);
    const tk = await makeTicket(gone, proj.id, { assigneeId: gone.userId });
    await gone.post(url(proj, `/${tk.id}/comments`), { content: 'bye' });
    const del = await gone.del('/api/me/account', { password: PASSWORD, confirmation: 'delete my account' });
    expect(del.statusCode).toBe(200);
    const full = (await owner.get(url(proj, `/${tk.id}`))).json();
    expect(full.reporter).toEqual({ id: null, name: 'Deleted user', avatar: null });
    expect(full.assignee).toBeNull();
    expect(full.assigneeId).toBeNull();
    const [comment] = (await owner.get(url(proj, `/${tk.id}/comments`))).json();
    expect(comment.author).toEqual({ id: null, name: 'Deleted user', avatar: null });
  });

  it('filters by sprint (or none), column, type, priority, assignee (or none), label, parent and text', async () => {
    const proj = await makeProject(owner);
    await addMember(owner, proj.id, member);
    const [todo, doing] = await columnsOf(owner, proj.id);
    const sprint = await makeSprint(proj.id);
    const label = (await owner.post(`/api/projects/${proj.id}/labels`, { name: 'ui' })).json();
    const a = await makeTicket(owner, proj.id, {
      title: 'Login page',
      type: 'Bug',
      priority: 'High',
      sprintId: sprint,
      labelIds: [label.id],
    });
    const b = await makeTicket(owner, proj.id, {
      title: 'Other',
      description: 'About the LOGIN flow',
      columnId: doing.id,
      assigneeId: member.userId,
      parentId: a.id,
    });
    const c = await makeTicket(owner, proj.id, { title: '100% done_ok', type: 'Story' });
    const ids = async (query: string) =>
      ((await owner.get(url(proj, `?${query}`))).json() as { id: string }[]).map((x) => x.id);
    expect(await ids(`sprintId=${sprint}`)).toEqual([a.id]);
    expect(await ids('sprintId=none')).toEqual([c.id, b.id]);
    expect(await ids(`columnId=${doing.id}`)).toEqual([b.id]);
    expect(await ids(`columnId=${todo.id}`)).toEqual([a.id, c.id]);
    expect(await ids('type=bug')).toEqual([a.id]);
    expect(await ids('priority=HIGH')).toEqual([a.id]);
    expect(await ids(`assigneeId=${member.userId}`)).toEqual([b.id]);
    expect(await ids('assigneeId=none')).toEqual([a.id, c.id]);
    expect(await ids(`labelId=${label.id}`)).toEqual([a.id]);
    expect(await ids(`parentId=${a.id}`)).toEqual([b.id]);
    expect(await ids(`parentId=${a.key}`)).toEqual([b.id]);
    expect(await ids('q=login')).toEqual([a.id, b.id]);
    expect(await ids(`q=${c.key.toLowerCase()}`)).toEqual([c.id]);
    expect(await ids('q=100%25')).toEqual([c.id]);
    expect(await ids('q=e_o')).toEqual([c.id]);
    expect(await ids('type=bug&priority=Low')).toEqual([]);
    expect((await owner.get(url(proj, '?type=Feature'))).statusCode).toBe(400);
  });

  it('orders by column position, then order, then number, with paging and X-Total-Count', async () => {
    const proj = await makeProject(owner);
    const [todo, doing, done] = await columnsOf(owner, proj.id);
    const d1 = await makeTicket(owner, proj.id, { columnId: done.id });
    const t1 = await makeTicket(owner, proj.id, { columnId: todo.id });
    const g1 = await makeTicket(owner, proj.id, { columnId: doing.id });
    const t2 = await makeTicket(owner, proj.id, { columnId: todo.id });
    await owner.patch(url(proj, `/${t2.id}`), { order: 0 });
    const all = await owner.get(url(proj));
    expect(all.json().map((x: { id: string }) => x.id)).toEqual([t2.id, t1.id, g1.id, d1.id]);
    expect(all.headers['x-total-count']).toBe('4');
    const page = await owner.get(url(proj, '?limit=2&offset=1'));
    expect(page.json().map((x: { id: string }) => x.id)).toEqual([t1.id, g1.id]);
    expect(page.headers['x-total-count']).toBe('4');
    expect(all.json()[0]).toMatchObject({
      labelIds: [],
      watcherIds: [owner.userId],
      assignee: null,
      labels: [],
    });
  });

  it('reads a list in the same number of queries whatever its size', async () => {
    const proj = await makeProject(owner);
    await addMember(owner, proj.id, member);
    const label = (await owner.post(`/api/projects/${proj.id}/labels`, { name: 'q' })).json();
    const counted = async () => {
      const original = t.app.services.db.kysely;
      let n = 0;
      const counter: KyselyPlugin = {
        transformQuery: (a) => {
          n++;
          return a.node;
        },
        transformResult: async (a) => a.result,
      };
      t.app.services.db.kysely = original.withPlugin(counter);
      try {
        const res = await owner.get(url(proj));
        expect(res.statusCode).toBe(200);
        return { n, count: res.json().length };
      } finally {
        t.app.services.db.kysely = original;
      }
    };
    for (let i = 0; i < 3; i++)
      await makeTicket(owner, proj.id, {
        labelIds: [label.id],
        assigneeId: member.userId,
        watcherIds: [member.userId],
      });
    const small = await counted();
    for (let i = 0; i < 40; i++)
      await makeTicket(owner, proj.id, {
        labelIds: [label.id],
        assigneeId: member.userId,
        watcherIds: [member.userId],
      });
    const large = await counted();
    expect(small.count).toBe(3);
    expect(large.count).toBe(43);
    expect(small.n).toBeGreaterThan(2);
    expect(large.n).toBe(small.n);
    // session, project, membership, count, page, labels, watchers (+ their id subqueries, which the counter also sees)
    expect(large.n).toBeLessThanOrEqual(10);
  });
});

describe('updating tickets', () => {
  it('records one history entry per changed field with display strings, newest first', async () => {
    const proj = await makeProject(owner);
    await addMember(owner, proj.id, member);
    const [, doing] = await columnsOf(owner, proj.id);
    const sprint = await makeSprint(proj.id, 'planning', 'Sprint 7');
    const l1 = (await owner.post(`/api/projects/${proj.id}/labels`, { name: 'beta' })).json();
    const l2 = (await owner.post(`/api/projects/${proj.id}/labels`, { name: 'alpha' })).json();
    const parent = await makeTicket(owner, proj.id, { title: 'Parent' });
    const tk = await makeTicket(owner, proj.id, { title: 'Old' });
    const res = await member.patch(url(proj, `/${tk.key}`), {
      title: 'New',
      description: 'Text',
      type: 'story',
      priority: 'low',
      assigneeId: member.userId,
      sprintId: sprint,
      storyPoints: 5,
      estimate: '1d',
      startDate: '2026-03-01',
      dueDate: '2026-03-02',
      environment: 'Staging',
      affectedVersion: '2.0',
      fixVersion: '2.1',
      columnId: doing.id,
      labelIds: [l1.id, l2.id],
      parentId: parent.id,
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      title: 'New',
      type: 'Story',
      priority: 'Low',
      columnId: doing.id,
      parentId: parent.id,
      storyPoints: 5,
    });
    const history = (await owner.get(url(proj, `/${tk.id}/history`))).json();
    const byField = Object.fromEntries(
      history.map((h: { field: string; oldValue: string; newValue: string }) => [
        h.field,
        [h.oldValue, h.newValue],
      ]),
    );
    expect(byField).toEqual({
      title: ['Old', 'New'],
      description: [null, 'Text'],
      type: ['Task', 'Story'],
      priority: ['Medium', 'Low'],
      assignee: [null, 'Max'],
      sprint: [null, 'Sprint 7'],
      storyPoints: [null, '5'],
      estimate: [null, '1d'],
      startDate: [null, '2026-03-01'],
      dueDate: [null, '2026-03-02'],
      environment: [null, 'Staging'],
      affectedVersion: [null, '2.0'],
      fixVersion: [null, '2.1'],
      status: ['To Do', 'In Progress'],
      labels: [null, 'alpha, beta'],
      parent: [null, parent.key],
    });
    expect(history[0]).toMatchObject({ changedBy: { id: member.userId, name: 'Max' } });
    expect(Object.keys(history[0]).sort()).toEqual([
      'changedAt',
      'changedBy',
      'field',
      'id',
      'newValue',
      'oldValue',
    ]);
    await owner.patch(url(proj, `/${tk.id}`), {
      title: 'Newer',
      labelIds: [l2.id],
      assigneeId: null,
      sprintId: null,
    });
    const again = (await owner.get(url(proj, `/${tk.id}/history`))).json();
    expect(again).toHaveLength(history.length + 4);
    expect(
      again
        .slice(0, 4)
        .map((h: { field: string }) => h.field)
        .sort(),
    ).toEqual(['assignee', 'labels', 'sprint', 'title']);
    expect(
      again.find((h: { field: string; newValue: string }) => h.field === 'labels' && h.newValue === 'alpha'),
    ).toMatchObject({ oldValue: 'alpha, beta' });
    const page = await owner.get(url(proj, `/${tk.id}/history?limit=2`));
    expect(page.json()).toHaveLength(2);
    expect(page.headers['x-total-count']).toBe(String(again.length));
    const membership = await db()
      .selectFrom('sprint_ticket_history')
      .selectAll()
      .where('ticket_id', '=', tk.id)
      .execute();
    expect(membership).toEqual([
      expect.objectContaining({
        sprint_id: sprint,
        entry_type: 'added',
        exit_status: 'removed',
        story_points: 5,
      }),
    ]);
  });

  it('writes no history and no event when nothing changes', async () => {
    const tk = await makeTicket(owner, p.id, { title: 'Same', priority: 'High' });
    const before = (await events('ticket.updated', p.id)).length;
    const res = await owner.patch(url(p, `/${tk.id}`), { title: 'Same', priority: 'high', order: tk.order });
    expect(res.statusCode).toBe(200);
    expect((await owner.get(url(p, `/${tk.id}/history`))).json()).toEqual([]);
    expect((await events('ticket.updated', p.id)).length).toBe(before);
  });

  it('closes the old sprint entry and opens one in the new sprint when the sprint changes', async () => {
    const s1 = await makeSprint(p.id);
    const s2 = await makeSprint(p.id);
    const tk = await makeTicket(owner, p.id, { sprintId: s1, storyPoints: 3 });
    await owner.patch(url(p, `/${tk.id}`), { sprintId: s2 });
    const rows = await db()
      .selectFrom('sprint_ticket_history')
      .selectAll()
      .where('ticket_id', '=', tk.id)
      .orderBy('entered_at')
      .orderBy('id')
      .execute();
    expect(rows.map((r) => [r.sprint_id, r.entry_type, r.exit_status, r.exited_at !== null])).toEqual([
      [s1, 'added', 'removed', true],
      [s2, 'added', null, false],
    ]);
  });

  it('refuses a parent that is the ticket itself or a descendant, and bad references with 400', async () => {
    const a = await makeTicket(owner, p.id);
    const b = await makeTicket(owner, p.id, { parentId: a.id });
    const c = await makeTicket(owner, p.id, { parentId: b.id });
    for (const parentId of [a.id, c.id, b.key]) {
      const res = await owner.patch(url(p, `/${a.id}`), { parentId });
      expect(res.statusCode).toBe(400);
      expect(res.json().details[0].path).toBe('parentId');
    }
    expect(
      (await owner.patch(url(p, `/${a.id}`), { assigneeId: outsider.userId })).json().details[0].path,
    ).toBe('assigneeId');
    expect((await owner.patch(url(p, `/${a.id}`), { storyPoints: 7 })).statusCode).toBe(400);
    expect((await owner.patch(url(p, `/${a.id}`), { order: -1 })).statusCode).toBe(400);
    expect((await owner.patch(url(p, `/${c.id}`), { parentId: null })).json().parentId).toBeNull();
  });

  it('moves within and across columns shifting the neighbours, emitting ticket.moved', async () => {
    const proj = await makeProject(owner);
    const [todo, doing] = await columnsOf(owner, proj.id);
    const a = await makeTicket(owner, proj.id);
    const b = await makeTicket(owner, proj.id);
    const c = await makeTicket(owner, proj.id);
    const x = await makeTicket(owner, proj.id, { columnId: doing.id });
    const order = async () => {
      const by = await board(owner, proj);
      return [todo.id, doing.id].map((col) =>
        (by.get(col) ?? []).map((t) => `${t.order}:${t.number}`).join(' '),
      );
    };
    expect(await order()).toEqual([`0:${a.number} 1:${b.number} 2:${c.number}`, `0:${x.number}`]);
    const m1 = await owner.patch(url(proj, `/${c.id}`), { order: 0 });
    expect(m1.json().order).toBe(0);
    expect(await order()).toEqual([`0:${c.number} 1:${a.number} 2:${b.number}`, `0:${x.number}`]);
    await owner.patch(url(proj, `/${c.id}`), { order: 99 });
    expect(await order()).toEqual([`0:${a.number} 1:${b.number} 2:${c.number}`, `0:${x.number}`]);
    await owner.patch(url(proj, `/${a.id}`), { columnId: doing.id, order: 0 });
    expect(await order()).toEqual([`0:${b.number} 1:${c.number}`, `0:${a.number} 1:${x.number}`]);
    await owner.patch(url(proj, `/${b.id}`), { columnId: doing.id });
    expect(await order()).toEqual([`0:${c.number}`, `0:${a.number} 1:${x.number} 2:${b.number}`]);
    await owner.patch(url(proj, `/${c.id}`), { title: 'Renamed' });
    const moved = await events('ticket.moved', proj.id);
    expect(moved).toHaveLength(4);
    expect(JSON.parse(moved[3].data)).toMatchObject({ id: b.id, columnId: doing.id, order: 2 });
    const updated = await events('ticket.updated', proj.id);
    expect(updated.map((e) => JSON.parse(e.data).id)).toEqual([c.id]);
  });

  it('keeps orders 0..n-1 in every column under racing moves', async () => {
    const proj = await makeProject(owner);
    const columns = await columnsOf(owner, proj.id);
    const tickets: { id: string }[] = [];
    for (let i = 0; i < 12; i++)
      tickets.push(await makeTicket(owner, proj.id, { columnId: columns[i % 2].id }));
    for (let round = 0; round < 3; round++) {
      const moves = Array.from({ length: 40 }, (_, i) => {
        const tk = tickets[(i * 5 + round) % tickets.length];
        const body =
          i % 3 === 0
            ? { columnId: columns[(i + round) % 2].id, order: i % 4 }
            : { order: (i * 3 + round) % 6 };
        return owner.patch(url(proj, `/${tk.id}`), body);
      });
      const results = await Promise.all(moves);
      for (const r of results) expect(r.statusCode, r.body).toBe(200);
      const by = await board(owner, proj);
      let total = 0;
      for (const list of by.values()) {
        expect(list.map((x) => x.order)).toEqual(list.map((_, i) => i));
        total += list.length;
      }
      expect(total).toBe(12);
    }
  });
});

describe('deleting and bulk changes', () => {
  it('deletes a ticket, detaches its subtasks and closes the gap in its column', async () => {
    const proj = await makeProject(owner);
    const a = await makeTicket(owner, proj.id);
    const b = await makeTicket(owner, proj.id);
    const sub = await makeTicket(owner, proj.id, { parentId: a.id, type: 'Subtask' });
    expect((await member.del(url(proj, `/${a.id}`))).statusCode).toBe(404);
    expect((await owner.del(url(proj, `/${a.key}`))).json()).toMatchObject({ success: true });
    expect((await owner.get(url(proj, `/${a.id}`))).statusCode).toBe(404);
    const s = (await owner.get(url(proj, `/${sub.id}`))).json();
    expect(s.parentId).toBeNull();
    expect((await owner.get(url(proj, `/${b.id}`))).json().order).toBe(0);
    expect(s.order).toBe(1);
    const [ev] = await events('ticket.deleted', proj.id);
    expect(JSON.parse(ev.data)).toEqual({ id: a.id });
    expect((await owner.del(url(proj, `/${a.id}`))).json()).toEqual({ error: 'Ticket not found' });
  });

  it('bulk-updates all or nothing, one event per ticket', async () => {
    const proj = await makeProject(owner);
    await addMember(owner, proj.id, member);
    const [, doing] = await columnsOf(owner, proj.id);
    const a = await makeTicket(owner, proj.id);
    const b = await makeTicket(owner, proj.id);
    const c = await makeTicket(owner, proj.id);
    const bad = await owner.patch(url(proj), {
      ticketIds: [a.id, 'nope'],
      updates: { priority: 'Critical' },
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().details[0].path).toBe('ticketIds');
    const badRef = await owner.patch(url(proj), {
      ticketIds: [a.id],
      updates: { assigneeId: outsider.userId },
    });
    expect(badRef.json().details[0].path).toBe('assigneeId');
    expect((await owner.get(url(proj, `/${a.id}`))).json().priority).toBe('Medium');
    const res = await owner.patch(url(proj), {
      ticketIds: [a.id, b.key],
      updates: { priority: 'critical', assigneeId: member.userId, columnId: doing.id },
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ success: true, updated: 2 });
    expect(
      res.json().tickets.map((x: { priority: string; columnId: string }) => [x.priority, x.columnId]),
    ).toEqual([
      ['Critical', doing.id],
      ['Critical', doing.id],
    ]);
    const by = await board(owner, proj);
    expect((by.get(doing.id) ?? []).map((x) => `${x.order}:${x.id}`)).toEqual([`0:${a.id}`, `1:${b.id}`]);
    expect([...by.values()].flat().find((x) => x.id === c.id)?.order).toBe(0);
    const moved = await events('ticket.moved', proj.id);
    expect(moved.map((e) => JSON.parse(e.data).id)).toEqual([a.id, b.id]);
    const history = (await owner.get(url(proj, `/${b.id}/history`))).json();
    expect(history.map((h: { field: string }) => h.field).sort()).toEqual(['assignee', 'priority', 'status']);
  });

  it('bulk-deletes all or nothing', async () => {
    const proj = await makeProject(owner);
    const a = await makeTicket(owner, proj.id);
    const b = await makeTicket(owner, proj.id);
    const c = await makeTicket(owner, proj.id);
    const bad = await owner.del(url(proj), { ticketIds: [a.id, `${proj.key}-99`] });
    expect(bad.statusCode).toBe(400);
    expect((await owner.get(url(proj))).json()).toHaveLength(3);
    const res = await owner.del(url(proj), { ticketIds: [a.id, b.key] });
    expect(res.json()).toMatchObject({ success: true, deleted: 2 });
    const left = (await owner.get(url(proj))).json();
    expect(left.map((x: { id: string; order: number }) => [x.id, x.order])).toEqual([[c.id, 0]]);
    expect((await events('ticket.deleted', proj.id)).length).toBe(2);
  });
});

describe('links', () => {
  it('creates a link, shows the inverse from the target and refuses self, duplicate and inverse links', async () => {
    const a = await makeTicket(owner, p.id, { title: 'A' });
    const b = await makeTicket(owner, p.id, { title: 'B', type: 'Bug' });
    const res = await member.post(url(p, `/${a.id}/links`), { targetTicketId: b.key, linkType: 'Blocks' });
    expect(res.statusCode).toBe(201);
    expect(res.json()).toEqual({
      id: expect.any(String),
      linkType: 'blocks',
      ticket: { id: b.id, key: b.key, title: 'B', type: 'Bug', priority: 'Medium', columnId: b.columnId },
    });
    const fromB = (await owner.get(url(p, `/${b.id}`))).json();
    expect(fromB.links).toEqual([
      {
        id: res.json().id,
        linkType: 'is_blocked_by',
        ticket: expect.objectContaining({ id: a.id, key: a.key }),
      },
    ]);
    const self = await owner.post(url(p, `/${a.id}/links`), { targetTicketId: a.id, linkType: 'relates_to' });
    expect(self.statusCode).toBe(400);
    const again = await owner.post(url(p, `/${a.id}/links`), { targetTicketId: b.id, linkType: 'blocks' });
    expect(again.statusCode).toBe(409);
    expect(again.json()).toEqual({ error: 'Link already exists' });
    const inverse = await owner.post(url(p, `/${b.id}/links`), {
      targetTicketId: a.id,
      linkType: 'is_blocked_by',
    });
    expect(inverse.statusCode).toBe(409);
    const rel = await owner.post(url(p, `/${a.id}/links`), { targetTicketId: b.id, linkType: 'relates_to' });
    expect(rel.statusCode).toBe(201);
    expect(
      (await owner.post(url(p, `/${b.id}/links`), { targetTicketId: a.id, linkType: 'relates_to' }))
        .statusCode,
    ).toBe(409);
    const bad = await owner.post(url(p, `/${a.id}/links`), { targetTicketId: b.id, linkType: 'causes' });
    expect(bad.statusCode).toBe(400);
    expect((await owner.del(url(p, `/${b.id}/links/${res.json().id}`))).json()).toEqual({ success: true });
    expect(
      (await owner.get(url(p, `/${a.id}`))).json().links.map((l: { linkType: string }) => l.linkType),
    ).toEqual(['relates_to']);
    expect((await owner.del(url(p, `/${b.id}/links/${res.json().id}`))).json()).toEqual({
      error: 'Link not found',
    });
    const c = await makeTicket(owner, p.id);
    expect((await owner.del(url(p, `/${c.id}/links/${rel.json().id}`))).statusCode).toBe(404);
    expect((await events('link.created', p.id)).length).toBeGreaterThanOrEqual(2);
  });

  it('links across projects only when the caller is a member of both', async () => {
    const mine = await makeProject(member);
    const theirs = await makeProject(outsider);
    const here = await makeTicket(owner, p.id);
    const there = await makeTicket(member, mine.id);
    const hidden = await makeTicket(outsider, theirs.id);
    const ok = await member.post(url(p, `/${here.id}/links`), {
      targetTicketId: there.key,
      linkType: 'duplicates',
    });
    expect(ok.statusCode).toBe(201);
    expect((await member.get(url(mine, `/${there.id}`))).json().links[0]).toMatchObject({
      linkType: 'is_duplicated_by',
      ticket: { id: here.id },
    });
    const no = await member.post(url(p, `/${here.id}/links`), {
      targetTicketId: hidden.id,
      linkType: 'blocks',
    });
    expect(no.statusCode).toBe(400);
    expect(no.json().details[0].path).toBe('targetTicketId');
    expect(
      (await member.post(url(p, `/${here.id}/links`), { targetTicketId: 'ZZ-1', linkType: 'blocks' }))
        .statusCode,
    ).toBe(400);
  });
});

describe('comments', () => {
  it('lists oldest first, stores Markdown as written, counts them on the ticket', async () => {
    const tk = await makeTicket(owner, p.id);
    const md = '**bold** <script>x</script>\n- item';
    const c1 = await member.post(url(p, `/${tk.id}/comments`), { content: md });
    expect(c1.statusCode).toBe(201);
    expect(c1.json()).toMatchObject({
      content: md,
      author: { id: member.userId, name: 'Max', avatar: null },
    });
    await owner.post(url(p, `/${tk.id}/comments`), { content: 'second' });
    const list = await owner.get(url(p, `/${tk.id}/comments`));
    expect(list.json().map((c: { content: string }) => c.content)).toEqual([md, 'second']);
    expect(list.headers['x-total-count']).toBe('2');
    expect((await owner.get(url(p, `/${tk.id}`))).json().commentCount).toBe(2);
    expect((await owner.post(url(p, `/${tk.id}/comments`), { content: '  ' })).statusCode).toBe(400);
    expect((await events('comment.created', p.id)).length).toBeGreaterThanOrEqual(2);
  });

  it('lets only the author edit; the author or an admin or owner delete', async () => {
    const tk = await makeTicket(owner, p.id);
    const third = await signUp(t.app);
    await addMember(owner, p.id, third);
    const c = (await member.post(url(p, `/${tk.id}/comments`), { content: 'mine' })).json();
    expect((await owner.patch(url(p, `/${tk.id}/comments/${c.id}`), { content: 'x' })).statusCode).toBe(403);
    const edited = await member.patch(url(p, `/${tk.id}/comments/${c.id}`), { content: 'edited' });
    expect(edited.json()).toMatchObject({ content: 'edited' });
    expect(edited.json().updatedAt >= edited.json().createdAt).toBe(true);
    expect((await third.del(url(p, `/${tk.id}/comments/${c.id}`))).statusCode).toBe(403);
    expect((await owner.del(url(p, `/${tk.id}/comments/${c.id}`))).json()).toEqual({ success: true });
    const c2 = (await member.post(url(p, `/${tk.id}/comments`), { content: 'again' })).json();
    expect((await member.del(url(p, `/${tk.id}/comments/${c2.id}`))).json()).toEqual({ success: true });
    expect((await member.del(url(p, `/${tk.id}/comments/${c2.id}`))).json()).toEqual({
      error: 'Comment not found',
    });
  });
});
