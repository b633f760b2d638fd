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
  await signUp(t.app); // the first account is a system administrator; keep it out of the way
  owner = await signUp(t.app, { name: 'Olivia Owner' });
  member = await signUp(t.app, { name: 'Max Member' });
  stranger = await signUp(t.app);
});
afterAll(async () => t.close());

const DAY = 86_400_000;
const midnight = (offsetDays = 0) =>
  `${new Date(Date.now() + offsetDays * DAY).toISOString().slice(0, 10)}T00:00:00.000Z`;
const base = (pid: string) => `/api/projects/${pid}/sprints`;

interface Board {
  id: string;
  key: string;
  todo: string;
  doing: string;
  done: string;
}

async function board(): Promise<Board> {
  const p = await makeProject(owner);
  await addMember(owner, p.id, member);
  const cols = await columnsOf(owner, p.id);
  return { id: p.id, key: p.key, todo: cols[0].id, doing: cols[1].id, done: cols[2].id };
}

async function sprint(c: Client, pid: string, body: Record<string, unknown> = {}) {
  const res = await c.post(base(pid), body);
  expect(res.statusCode, res.body).toBe(201);
  return res.json() as {
    id: string;
    name: string;
    status: string;
    startDate: string | null;
    endDate: string | null;
  };
}

async function start(c: Client, pid: string, sid: string, body: Record<string, unknown> = {}) {
  const res = await c.post(`${base(pid)}/${sid}/start`, body);
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
}

const ticketOf = async (pid: string, id: string) =>
  (await owner.get(`/api/projects/${pid}/tickets/${id}`)).json();
const historyOf = async (pid: string, id: string) =>
  (await owner.get(`/api/projects/${pid}/tickets/${id}/history`)).json() as {
    field: string;
    oldValue: string | null;
    newValue: string | null;
  }[];
const events = (projectId: string, type: string) =>
  t.app.services.db.kysely
    .selectFrom('events')
    .selectAll()
    .where('project_id', '=', projectId)
    .where('type', '=', type)
    .orderBy('id')
    .execute();

describe('creating and listing sprints', () => {
  it('creates a planning sprint with a generated `Sprint N` name, one more than the highest number used', async () => {
    const b = await board();
    const s1 = await sprint(owner, b.id);
    expect(s1).toMatchObject({
      name: 'Sprint 1',
      status: 'planning',
      projectId: b.id,
      startDate: null,
      endDate: null,
      budget: null,
      goal: null,
    });
    expect((await sprint(owner, b.id)).name).toBe('Sprint 2');
    await sprint(owner, b.id, { name: 'sprint 7' });
    expect((await sprint(owner, b.id)).name).toBe('Sprint 8');
    const s9 = await sprint(owner, b.id);
    expect(s9.name).toBe('Sprint 9');
    // A deleted sprint's number is never handed out again.
    expect((await owner.del(`${base(b.id)}/${s9.id}`)).statusCode).toBe(200);
    expect((await sprint(owner, b.id)).name).toBe('Sprint 10');
    // Renaming to a higher number counts as used.
    expect((await owner.patch(`${base(b.id)}/${s1.id}`, { name: 'Sprint 20' })).statusCode).toBe(200);
    expect((await sprint(owner, b.id)).name).toBe('Sprint 21');
  });

  it('gives two sprints created at the same moment different numbers', async () => {
    const b = await board();
    const res = await Promise.all([
      owner.post(base(b.id), {}),
      owner.post(base(b.id), {}),
      owner.post(base(b.id)),
    ]);
    expect(res.map((r) => r.statusCode)).toEqual([201, 201, 201]);
    expect(res.map((r) => r.json().name).sort()).toEqual(['Sprint 1', 'Sprint 2', 'Sprint 3']);
  });

  it('stores dates accepted as YYYY-MM-DD or timestamps as midnight UTC, with goal and budget', async () => {
    const b = await board();
    const s = await sprint(owner, b.id, {
      name: 'Launch',
      goal: 'Ship it',
      startDate: '2026-03-02',
      endDate: '2026-03-15T22:30:00-05:00',
      budget: 21,
    });
    expect(s).toMatchObject({
      name: 'Launch',
      goal: 'Ship it',
      startDate: '2026-03-02T00:00:00.000Z',
      endDate: '2026-03-16T00:00:00.000Z',
      budget: 21,
      status: 'planning',
    });
    const read = (await owner.get(`${base(b.id)}/${s.id}`)).json();
    expect(read).toMatchObject({
      startDate: '2026-03-02T00:00:00.000Z',
      budget: 21,
      tickets: [],
      ticketHistory: [],
    });
  });

  it('keeps every budget the contract takes exactly as sent, on create and on update', async () => {
    // PostgreSQL once stored budgets as 4-byte floats: 12.3456789 came back as 12.345679 and 1e-300
    // (found by the fuzz test, with an astral-plane name beside it) was a 500 (migration 088).
    const b = await board();
    const astral = '\u{1F680}\u{1D11E}\u{20000}\u{1F600}\u{10348}\u{E0041}';
    for (const [i, budget] of [1e-300, 12.3456789, 0.1, 5e-324, 100_000].entries()) {
      const name = `${astral}${i}`;
      const s = await sprint(owner, b.id, { budget });
      expect(s).toMatchObject({ budget });
      expect((await owner.get(`${base(b.id)}/${s.id}`)).json().budget).toBe(budget);
      const res = await owner.patch(`${base(b.id)}/${s.id}`, { name, budget: budget / 3 });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).toMatchObject({ name, budget: budget / 3 });
      expect((await owner.get(`${base(b.id)}/${s.id}`)).json()).toMatchObject({ name, budget: budget / 3 });
    }
  });

  it('refuses an end date before the start date, impossible dates and bad budgets with 400 naming the field', async () => {
    const b = await board();
    const bad = async (body: Record<string, unknown>, path: string) => {
      const res = await owner.post(base(b.id), body);
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json().error).toBe('Validation failed');
      expect(res.json().details.map((d: { path: string }) => d.path)).toContain(path);
    };
    await bad({ startDate: '2026-03-10', endDate: '2026-03-09' }, 'endDate');
    await bad({ startDate: '2026-02-30' }, 'startDate');
    await bad({ endDate: 'next week' }, 'endDate');
    await bad({ budget: -1 }, 'budget');
    await bad({ budget: 'ten' }, 'budget');
    await bad({ name: '   ' }, 'name');
    await bad({ name: 'x'.repeat(101) }, 'name');
    await bad({ goal: 'x'.repeat(1001) }, 'goal');
    await bad({ startDate: '2026-01-01', endDate: '2028-01-01' }, 'endDate');
    // The same day for both is a one-day sprint.
    expect(
      (await owner.post(base(b.id), { startDate: '2026-03-10', endDate: '2026-03-10' })).statusCode,
    ).toBe(201);
  });

  it('lists sprints by creation with a status filter, paging and X-Total-Count', async () => {
    const b = await board();
    const a = await sprint(owner, b.id, { name: 'A' });
    const c = await sprint(owner, b.id, { name: 'C' });
    const bb = await sprint(owner, b.id, { name: 'B' });
    await start(owner, b.id, c.id);
    const all = await member.get(base(b.id));
    expect(all.statusCode).toBe(200);
    expect(all.headers['x-total-count']).toBe('3');
    expect(all.json().map((s: { name: string }) => s.name)).toEqual(['A', 'C', 'B']);
    const planning = await member.get(`${base(b.id)}?status=planning`);
    expect(planning.json().map((s: { id: string }) => s.id)).toEqual([a.id, bb.id]);
    expect(planning.headers['x-total-count']).toBe('2');
    expect((await member.get(`${base(b.id)}?status=active`)).json().map((s: { id: string }) => s.id)).toEqual(
      [c.id],
    );
    const page = await member.get(`${base(b.id)}?limit=1&offset=1`);
    expect(page.json().map((s: { name: string }) => s.name)).toEqual(['C']);
    expect(page.headers['x-total-count']).toBe('3');
    expect((await member.get(`${base(b.id)}?status=done`)).statusCode).toBe(400);
  });

  it('hides the sprints of a project from non-members (404) and answers 404 for unknown sprints', async () => {
    const b = await board();
    const s = await sprint(owner, b.id);
    expect((await stranger.get(base(b.id))).json()).toEqual({ error: 'Project not found' });
    expect((await stranger.get(`${base(b.id)}/${s.id}`)).statusCode).toBe(404);
    expect((await stranger.post(base(b.id), {})).statusCode).toBe(404);
    const missing = await owner.get(`${base(b.id)}/0190a8a8-0000-7000-8000-000000000000`);
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toEqual({ error: 'Sprint not found' });
    const other = await board();
    const res = await owner.get(`${base(other.id)}/${s.id}`);
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ error: 'Sprint not found' });
    expect((await owner.post(`${base(other.id)}/${s.id}/start`, {})).statusCode).toBe(404);
    // The project may be named by its key in any case.
    expect((await owner.get(`/api/projects/${b.key.toLowerCase()}/sprints/${s.id}`)).statusCode).toBe(200);
  });

  it('lets any member plan and run sprints', async () => {
    const b = await board();
    const s = await sprint(member, b.id);
    expect((await member.patch(`${base(b.id)}/${s.id}`, { goal: 'G' })).statusCode).toBe(200);
    await start(member, b.id, s.id);
    expect((await member.post(`${base(b.id)}/${s.id}/complete`, {})).statusCode).toBe(200);
  });
});

describe('reading a sprint', () => {
  it('returns its tickets in board order and its membership history', async () => {
    const b = await board();
    const s = await sprint(owner, b.id);
    const t1 = await makeTicket(owner, b.id, {
      title: 'One',
      sprintId: s.id,
      storyPoints: 3,
      type: 'Bug',
      priority: 'High',
    });
    const t2 = await makeTicket(owner, b.id, { title: 'Two', sprintId: s.id, columnId: b.done });
    await makeTicket(owner, b.id, { title: 'Backlog' });
    const res = await member.get(`${base(b.id)}/${s.id}`);
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.tickets).toEqual([
      {
        id: t1.id,
        key: `${b.key}-1`,
        title: 'One',
        type: 'Bug',
        priority: 'High',
        storyPoints: 3,
        columnId: b.todo,
      },
      {
        id: t2.id,
        key: `${b.key}-2`,
        title: 'Two',
        type: 'Task',
        priority: 'Medium',
        storyPoints: null,
        columnId: b.done,
      },
    ]);
    expect(body.ticketHistory).toEqual([
      {
        ticketId: t1.id,
        entryType: 'added',
        enteredAt: expect.any(String),
        exitStatus: null,
        exitedAt: null,
      },
      {
        ticketId: t2.id,
        entryType: 'added',
        enteredAt: expect.any(String),
        exitStatus: null,
        exitedAt: null,
      },
    ]);
  });

  it('answers the active sprint or null at /sprints/active', async () => {
    const b = await board();
    const none = await member.get(`${base(b.id)}/active`);
    expect(none.statusCode).toBe(200);
    expect(none.body).toBe('null');
    const s = await sprint(owner, b.id);
    await start(owner, b.id, s.id);
    const active = await member.get(`${base(b.id)}/active`);
    expect(active.json()).toMatchObject({ id: s.id, status: 'active', name: s.name });
  });

  it('never reads `active`, `settings` or `velocity` as a sprint id', async () => {
    const b = await board();
    expect((await owner.get(`${base(b.id)}/settings`)).json()).toEqual({
      defaultSprintDuration: 2,
      autoCarryOverIncomplete: false,
      doneColumnIds: [],
    });
    expect((await owner.get(`${base(b.id)}/velocity`)).json()).toEqual({
      sprints: [],
      averageCompletedPoints: 0,
    });
    expect((await owner.get(`${base(b.id)}/active`)).body).toBe('null');
    // The parameter route still serves real ids and says `Sprint not found` for others.
    expect((await owner.get(`${base(b.id)}/activ`)).json()).toEqual({ error: 'Sprint not found' });
  });
});

describe('updating a sprint', () => {
  it('changes name, goal, dates and budget, and clears the optional ones with null', async () => {
    const b = await board();
    const s = await sprint(owner, b.id, { goal: 'Old', budget: 5 });
    const res = await owner.patch(`${base(b.id)}/${s.id}`, {
      name: 'Renamed',
      goal: null,
      startDate: '2026-05-04',
      endDate: '2026-05-15',
      budget: null,
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({
      id: s.id,
      name: 'Renamed',
      goal: null,
      startDate: '2026-05-04T00:00:00.000Z',
      endDate: '2026-05-15T00:00:00.000Z',
      budget: null,
    });
    const ev = await events(b.id, 'sprint.updated');
    expect(JSON.parse(ev[ev.length - 1].data)).toMatchObject({ id: s.id, name: 'Renamed' });
  });

  it('refuses an end before the start, also against the stored date, with 400 naming the field', async () => {
    const b = await board();
    const s = await sprint(owner, b.id, { startDate: '2026-05-04', endDate: '2026-05-15' });
    const a = await owner.patch(`${base(b.id)}/${s.id}`, { endDate: '2026-05-01' });
    expect(a.statusCode).toBe(400);
    expect(a.json().details[0].path).toBe('endDate');
    const c = await owner.patch(`${base(b.id)}/${s.id}`, { startDate: '2026-05-20' });
    expect(c.statusCode).toBe(400);
    expect(c.json().details[0].path).toBe('startDate');
    expect((await owner.patch(`${base(b.id)}/${s.id}`, { name: '' })).statusCode).toBe(400);
  });

  it('keeps the dates of a started sprint: they can change but not be cleared', async () => {
    const b = await board();
    const s = await sprint(owner, b.id);
    await start(owner, b.id, s.id);
    const res = await owner.patch(`${base(b.id)}/${s.id}`, { endDate: null });
    expect(res.statusCode).toBe(400);
    expect(res.json().details[0].path).toBe('endDate');
  });
});

describe('deleting a sprint', () => {
  it('deletes a planning sprint, moves its tickets to the backlog and records it in their history', async () => {
    const b = await board();
    const s = await sprint(owner, b.id, { name: 'Doomed' });
    const tk = await makeTicket(owner, b.id, { sprintId: s.id });
    const res = await owner.del(`${base(b.id)}/${s.id}`);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ success: true });
    expect((await owner.get(`${base(b.id)}/${s.id}`)).statusCode).toBe(404);
    expect((await ticketOf(b.id, tk.id)).sprintId).toBeNull();
    expect(await historyOf(b.id, tk.id)).toContainEqual(
      expect.objectContaining({ field: 'sprint', oldValue: 'Doomed', newValue: null }),
    );
    expect((await events(b.id, 'sprint.deleted')).map((e) => JSON.parse(e.data))).toEqual([{ id: s.id }]);
    const updated = (await events(b.id, 'ticket.updated')).map((e) => JSON.parse(e.data));
    expect(updated).toContainEqual(expect.objectContaining({ id: tk.id, sprintId: null }));
  });

  it('refuses to delete an active or completed sprint with 409', async () => {
    const b = await board();
    const s = await sprint(owner, b.id);
    const tk = await makeTicket(owner, b.id, { sprintId: s.id });
    await start(owner, b.id, s.id);
    const res = await owner.del(`${base(b.id)}/${s.id}`);
    expect(res.statusCode).toBe(409);
    expect(res.json()).toEqual({ error: 'Only planning sprints can be deleted' });
    expect((await ticketOf(b.id, tk.id)).sprintId).toBe(s.id);
    await owner.post(`${base(b.id)}/${s.id}/complete`, { incompleteAction: 'keepInSprint' });
    expect((await owner.del(`${base(b.id)}/${s.id}`)).json()).toEqual({
      error: 'Only planning sprints can be deleted',
    });
  });
});

describe('starting a sprint', () => {
  it('starts a planning sprint with today and the default duration when no dates are given', async () => {
    const b = await board();
    const s = await sprint(owner, b.id);
    const res = await owner.post(`${base(b.id)}/${s.id}/start`);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ id: s.id, status: 'active', startDate: midnight(), endDate: midnight(14) });
    expect((await events(b.id, 'sprint.started')).map((e) => JSON.parse(e.data).id)).toEqual([s.id]);
  });

  it('uses the project default duration and the dates of the request', async () => {
    const b = await board();
    expect((await owner.patch(`${base(b.id)}/settings`, { defaultSprintDuration: 3 })).statusCode).toBe(200);
    const s = await sprint(owner, b.id);
    expect(await start(owner, b.id, s.id, { startDate: '2026-06-01' })).toMatchObject({
      startDate: '2026-06-01T00:00:00.000Z',
      endDate: '2026-06-22T00:00:00.000Z',
    });
    const b2 = await board();
    const s2 = await sprint(owner, b2.id);
    expect(
      await start(owner, b2.id, s2.id, { startDate: '2026-06-01', endDate: '2026-06-05' }),
    ).toMatchObject({
      startDate: '2026-06-01T00:00:00.000Z',
      endDate: '2026-06-05T00:00:00.000Z',
    });
  });

  it('refuses an end before the start', async () => {
    const b = await board();
    const s = await sprint(owner, b.id);
    const res = await owner.post(`${base(b.id)}/${s.id}/start`, {
      startDate: '2026-06-10',
      endDate: '2026-06-01',
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().details[0].path).toBe('endDate');
    expect((await owner.get(`${base(b.id)}/${s.id}`)).json().status).toBe('planning');
  });

  it('starts only planning sprints (409 Sprint is not in planning)', async () => {
    const b = await board();
    const s = await sprint(owner, b.id);
    await start(owner, b.id, s.id);
    const again = await owner.post(`${base(b.id)}/${s.id}/start`, {});
    expect(again.statusCode).toBe(409);
    expect(again.json()).toEqual({ error: 'Sprint is not in planning' });
    await owner.post(`${base(b.id)}/${s.id}/complete`, {});
    expect((await owner.post(`${base(b.id)}/${s.id}/start`, {})).json()).toEqual({
      error: 'Sprint is not in planning',
    });
  });

  it('rejects a second active sprint with 409', async () => {
    const b = await board();
    const a = await sprint(owner, b.id);
    const c = await sprint(owner, b.id);
    await start(owner, b.id, a.id);
    const res = await owner.post(`${base(b.id)}/${c.id}/start`, {});
    expect(res.statusCode).toBe(409);
    expect(res.json()).toEqual({ error: 'Another sprint is already active' });
    // Another project is not affected.
    const other = await board();
    await start(owner, other.id, (await sprint(owner, other.id)).id);
  });

  it('lets exactly one of two sprints started at the same moment become active', async () => {
    for (let round = 0; round < 5; round++) {
      const b = await board();
      const a = await sprint(owner, b.id);
      const c = await sprint(owner, b.id);
      const res = await Promise.all([
        owner.post(`${base(b.id)}/${a.id}/start`, {}),
        member.post(`${base(b.id)}/${c.id}/start`, {}),
      ]);
      expect(res.map((r) => r.statusCode).sort()).toEqual([200, 409]);
      expect(res.find((r) => r.statusCode === 409)?.json()).toEqual({
        error: 'Another sprint is already active',
      });
      const active = (await owner.get(`${base(b.id)}?status=active`)).json();
      expect(active).toHaveLength(1);
      expect(active[0].id).toBe(res[0].statusCode === 200 ? a.id : c.id);
    }
  });

  it('starts a sprint once when two starts of it arrive together', async () => {
    const b = await board();
    const s = await sprint(owner, b.id);
    const res = await Promise.all([
      owner.post(`${base(b.id)}/${s.id}/start`, {}),
      member.post(`${base(b.id)}/${s.id}/start`, {}),
    ]);
    expect(res.map((r) => r.statusCode).sort()).toEqual([200, 409]);
    expect(res.find((r) => r.statusCode === 409)?.json()).toEqual({ error: 'Sprint is not in planning' });
    expect(await events(b.id, 'sprint.started')).toHaveLength(1);
  });

  it('has the database itself refuse a second active sprint in a project', async () => {
    const b = await board();
    const a = await sprint(owner, b.id);
    const c = await sprint(owner, b.id);
    await start(owner, b.id, a.id);
    const db = t.app.services.db.kysely;
    await expect(
      db.updateTable('sprints').set({ status: 'active' }).where('id', '=', c.id).execute(),
    ).rejects.toThrow();
  });
});

describe('completing a sprint', () => {
  async function running(opts: { settings?: Record<string, unknown> } = {}) {
    const b = await board();
    if (opts.settings)
      expect((await owner.patch(`${base(b.id)}/settings`, opts.settings)).statusCode).toBe(200);
    const s = await sprint(owner, b.id, { name: 'Current' });
    const done1 = await makeTicket(owner, b.id, {
      title: 'done 5',
      sprintId: s.id,
      storyPoints: 5,
      columnId: b.done,
    });
    const done2 = await makeTicket(owner, b.id, { title: 'done -', sprintId: s.id, columnId: b.done });
    const open1 = await makeTicket(owner, b.id, { title: 'open 3', sprintId: s.id, storyPoints: 3 });
    const open2 = await makeTicket(owner, b.id, {
      title: 'doing 8',
      sprintId: s.id,
      storyPoints: 8,
      columnId: b.doing,
    });
    await makeTicket(owner, b.id, { title: 'backlog', storyPoints: 13 });
    await start(owner, b.id, s.id);
    return { b, s, done: [done1, done2], open: [open1, open2] };
  }
  const complete = (pid: string, sid: string, body?: Record<string, unknown>) =>
    owner.post(`${base(pid)}/${sid}/complete`, body);

  it('counts complete tickets by the last column and moves the rest to the backlog by default', async () => {
    const { b, s, done, open } = await running();
    const res = await complete(b.id, s.id);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({
      id: s.id,
      status: 'completed',
      completedTicketCount: 2,
      incompleteTicketCount: 2,
      completedStoryPoints: 5,
      incompleteStoryPoints: 11,
      incompleteAction: 'moveToBacklog',
      nextSprintId: null,
    });
    for (const tk of open) {
      expect((await ticketOf(b.id, tk.id)).sprintId).toBeNull();
      expect(await historyOf(b.id, tk.id)).toContainEqual(
        expect.objectContaining({ field: 'sprint', oldValue: 'Current', newValue: null }),
      );
    }
    for (const tk of done) expect((await ticketOf(b.id, tk.id)).sprintId).toBe(s.id);
    const read = (await owner.get(`${base(b.id)}/${s.id}`)).json();
    expect(read.status).toBe('completed');
    expect(read.completedAt).toEqual(expect.any(String));
    const exits = Object.fromEntries(
      read.ticketHistory.map((h: { ticketId: string; exitStatus: string }) => [h.ticketId, h.exitStatus]),
    );
    expect(exits).toEqual({
      [done[0].id]: 'completed',
      [done[1].id]: 'completed',
      [open[0].id]: 'removed',
      [open[1].id]: 'removed',
    });
    expect(read.ticketHistory.every((h: { exitedAt: string | null }) => h.exitedAt !== null)).toBe(true);
    expect((await events(b.id, 'sprint.completed')).map((e) => JSON.parse(e.data).id)).toEqual([s.id]);
    const moved = (await events(b.id, 'ticket.updated')).map((e) => JSON.parse(e.data).id);
    expect(moved.sort()).toEqual(open.map((x) => x.id).sort());
  });

  it('uses doneColumnIds when set: only tickets in those columns are complete', async () => {
    const { b, s } = await running();
    const cols = await columnsOf(owner, b.id);
    expect((await owner.patch(`${base(b.id)}/settings`, { doneColumnIds: [cols[1].id] })).statusCode).toBe(
      200,
    );
    const res = await complete(b.id, s.id, { incompleteAction: 'keepInSprint' });
    expect(res.json()).toMatchObject({
      completedTicketCount: 1,
      completedStoryPoints: 8,
      incompleteTicketCount: 3,
      incompleteStoryPoints: 8,
    });
  });

  it('keeps incomplete tickets in the completed sprint with keepInSprint', async () => {
    const { b, s, open } = await running();
    const res = await complete(b.id, s.id, { incompleteAction: 'keepInSprint' });
    expect(res.json()).toMatchObject({ incompleteAction: 'keepInSprint', nextSprintId: null });
    for (const tk of open) expect((await ticketOf(b.id, tk.id)).sprintId).toBe(s.id);
    const read = (await owner.get(`${base(b.id)}/${s.id}`)).json();
    const kept = read.ticketHistory.filter((h: { ticketId: string }) =>
      open.some((o) => o.id === h.ticketId),
    );
    expect(kept.map((h: { exitStatus: string | null }) => h.exitStatus)).toEqual([null, null]);
    expect(await events(b.id, 'ticket.updated')).toHaveLength(0);
  });

  it('carries incomplete tickets into nextSprintId, updating the carry-over fields and both histories', async () => {
    const { b, s, open } = await running();
    const next = await sprint(owner, b.id, { name: 'Next' });
    const res = await complete(b.id, s.id, { incompleteAction: 'moveToNextSprint', nextSprintId: next.id });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({
      incompleteAction: 'moveToNextSprint',
      nextSprintId: next.id,
      incompleteTicketCount: 2,
    });
    for (const tk of open) {
      expect(await ticketOf(b.id, tk.id)).toMatchObject({
        sprintId: next.id,
        isCarriedOver: true,
        carriedFromSprintId: s.id,
        carriedOverCount: 1,
      });
      expect(await historyOf(b.id, tk.id)).toContainEqual(
        expect.objectContaining({ field: 'sprint', oldValue: 'Current', newValue: 'Next' }),
      );
    }
    const old = (await owner.get(`${base(b.id)}/${s.id}`)).json();
    expect(
      old.ticketHistory
        .filter((h: { exitStatus: string }) => h.exitStatus === 'carried_over')
        .map((h: { ticketId: string }) => h.ticketId)
        .sort(),
    ).toEqual(open.map((x) => x.id).sort());
    const nx = (await owner.get(`${base(b.id)}/${next.id}`)).json();
    expect(nx.ticketHistory).toEqual(
      open.map((o) =>
        expect.objectContaining({
          ticketId: o.id,
          entryType: 'carried_over',
          exitStatus: null,
          exitedAt: null,
        }),
      ),
    );
    expect(nx.tickets.map((x: { id: string }) => x.id).sort()).toEqual(open.map((x) => x.id).sort());
    const updated = (await events(b.id, 'ticket.updated')).map((e) => JSON.parse(e.data));
    expect(updated).toHaveLength(2);
    expect(updated[0]).toMatchObject({ sprintId: next.id, isCarriedOver: true, carriedOverCount: 1 });

    // A second carry-over counts up and names the sprint it came from.
    await start(owner, b.id, next.id);
    const third = await sprint(owner, b.id, { name: 'Third' });
    await complete(b.id, next.id, { incompleteAction: 'moveToNextSprint', nextSprintId: third.id });
    expect(await ticketOf(b.id, open[0].id)).toMatchObject({
      sprintId: third.id,
      carriedFromSprintId: next.id,
      carriedOverCount: 2,
      isCarriedOver: true,
    });
  });

  it('requires nextSprintId for moveToNextSprint (400) and changes nothing', async () => {
    const { b, s, open } = await running();
    const res = await complete(b.id, s.id, { incompleteAction: 'moveToNextSprint' });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ error: 'nextSprintId is required for moveToNextSprint' });
    expect((await owner.get(`${base(b.id)}/${s.id}`)).json().status).toBe('active');
    expect((await ticketOf(b.id, open[0].id)).sprintId).toBe(s.id);
  });

  it('refuses a nextSprintId that is completed, the sprint itself, or of another project (400 naming it)', async () => {
    const { b, s } = await running();
    const old = await sprint(owner, b.id);
    // Complete `old` by making it active after `s` is done would need `s` done; use another project instead.
    const elsewhere = await board();
    const foreign = await sprint(owner, elsewhere.id);
    for (const nextSprintId of [s.id, foreign.id, 'nope']) {
      const res = await complete(b.id, s.id, { incompleteAction: 'moveToNextSprint', nextSprintId });
      expect(res.statusCode, nextSprintId).toBe(400);
      expect(res.json().details[0].path).toBe('nextSprintId');
    }
    await complete(b.id, s.id, { incompleteAction: 'keepInSprint' });
    await start(owner, b.id, old.id);
    const res = await complete(b.id, old.id, { incompleteAction: 'moveToNextSprint', nextSprintId: s.id });
    expect(res.statusCode).toBe(400);
    expect(res.json().details[0].path).toBe('nextSprintId');
  });

  it('completes only active sprints (409 Sprint is not active)', async () => {
    const b = await board();
    const s = await sprint(owner, b.id);
    const res = await complete(b.id, s.id, {});
    expect(res.statusCode).toBe(409);
    expect(res.json()).toEqual({ error: 'Sprint is not active' });
    await start(owner, b.id, s.id);
    expect((await complete(b.id, s.id, {})).statusCode).toBe(200);
    expect((await complete(b.id, s.id, {})).json()).toEqual({ error: 'Sprint is not active' });
  });

  it('completes a sprint once when two completions arrive together', async () => {
    const { b, s } = await running();
    const res = await Promise.all([complete(b.id, s.id, {}), complete(b.id, s.id, {})]);
    expect(res.map((r) => r.statusCode).sort()).toEqual([200, 409]);
  });

  describe('with incompleteAction omitted and automatic carry-over on', () => {
    const auto = { settings: { autoCarryOverIncomplete: true } };

    it('carries into the earliest planning sprint', async () => {
      const { b, s, open } = await running(auto);
      const first = await sprint(owner, b.id, { name: 'First planned' });
      await sprint(owner, b.id, { name: 'Second planned' });
      const res = await complete(b.id, s.id);
      expect(res.json()).toMatchObject({ incompleteAction: 'moveToNextSprint', nextSprintId: first.id });
      expect((await ticketOf(b.id, open[0].id)).sprintId).toBe(first.id);
    });

    it('carries into nextSprintId when given', async () => {
      const { b, s, open } = await running(auto);
      await sprint(owner, b.id, { name: 'First planned' });
      const chosen = await sprint(owner, b.id, { name: 'Chosen' });
      const res = await complete(b.id, s.id, { nextSprintId: chosen.id });
      expect(res.json()).toMatchObject({ incompleteAction: 'moveToNextSprint', nextSprintId: chosen.id });
      expect((await ticketOf(b.id, open[1].id)).sprintId).toBe(chosen.id);
    });

    it('creates the next `Sprint N` when no planning sprint exists', async () => {
      const { b, s, open } = await running(auto);
      await sprint(owner, b.id, { name: 'Sprint 4' });
      const planned = (await owner.get(`${base(b.id)}?status=planning`)).json();
      await owner.del(`${base(b.id)}/${planned[0].id}`);
      const res = await complete(b.id, s.id);
      const nextId = res.json().nextSprintId;
      expect(nextId).toEqual(expect.any(String));
      const created = (await owner.get(`${base(b.id)}/${nextId}`)).json();
      expect(created).toMatchObject({ name: 'Sprint 5', status: 'planning' });
      expect(created.tickets.map((x: { id: string }) => x.id).sort()).toEqual(open.map((x) => x.id).sort());
      expect((await events(b.id, 'sprint.created')).map((e) => JSON.parse(e.data).id)).toContain(nextId);
    });

    it('creates no sprint when every ticket is complete', async () => {
      const b = await board();
      expect(
        (await owner.patch(`${base(b.id)}/settings`, { autoCarryOverIncomplete: true })).statusCode,
      ).toBe(200);
      const s = await sprint(owner, b.id);
      await makeTicket(owner, b.id, { sprintId: s.id, columnId: b.done });
      await start(owner, b.id, s.id);
      const res = await complete(b.id, s.id);
      expect(res.json()).toMatchObject({
        incompleteAction: 'moveToNextSprint',
        nextSprintId: null,
        incompleteTicketCount: 0,
      });
      expect((await owner.get(base(b.id))).json()).toHaveLength(1);
    });

    it('moves to the backlog when automatic carry-over is off', async () => {
      const { b, s, open } = await running({ settings: { autoCarryOverIncomplete: false } });
      await sprint(owner, b.id, { name: 'Planned' });
      const res = await complete(b.id, s.id, { nextSprintId: null });
      expect(res.json()).toMatchObject({ incompleteAction: 'moveToBacklog', nextSprintId: null });
      expect((await ticketOf(b.id, open[0].id)).sprintId).toBeNull();
    });
  });

  it('refuses an unknown incompleteAction with 400', async () => {
    const { b, s } = await running();
    const res = await complete(b.id, s.id, { incompleteAction: 'shred' });
    expect(res.statusCode).toBe(400);
    expect(res.json().details[0].path).toBe('incompleteAction');
  });
});

describe('extending a sprint', () => {
  it('moves the end date of the active sprint', async () => {
    const b = await board();
    const s = await sprint(owner, b.id);
    await start(owner, b.id, s.id, { startDate: '2026-07-01', endDate: '2026-07-14' });
    const res = await owner.post(`${base(b.id)}/${s.id}/extend`, { newEndDate: '2026-07-21' });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({
      id: s.id,
      status: 'active',
      startDate: '2026-07-01T00:00:00.000Z',
      endDate: '2026-07-21T00:00:00.000Z',
    });
    expect((await events(b.id, 'sprint.extended')).map((e) => JSON.parse(e.data).endDate)).toEqual([
      '2026-07-21T00:00:00.000Z',
    ]);
    // Shortening is allowed as long as the end does not precede the start.
    expect((await owner.post(`${base(b.id)}/${s.id}/extend`, { newEndDate: '2026-07-01' })).statusCode).toBe(
      200,
    );
  });

  it('refuses a new end before the start (400 naming newEndDate) and a missing one', async () => {
    const b = await board();
    const s = await sprint(owner, b.id);
    await start(owner, b.id, s.id, { startDate: '2026-07-01', endDate: '2026-07-14' });
    const res = await owner.post(`${base(b.id)}/${s.id}/extend`, { newEndDate: '2026-06-30' });
    expect(res.statusCode).toBe(400);
    expect(res.json().details[0].path).toBe('newEndDate');
    expect((await owner.post(`${base(b.id)}/${s.id}/extend`, {})).statusCode).toBe(400);
  });

  it('extends only active sprints (409)', async () => {
    const b = await board();
    const s = await sprint(owner, b.id);
    const res = await owner.post(`${base(b.id)}/${s.id}/extend`, { newEndDate: '2026-07-21' });
    expect(res.statusCode).toBe(409);
    expect(res.json()).toEqual({ error: 'Sprint is not active' });
  });
});

describe('sprint settings', () => {
  it('reads the defaults and changes each setting', async () => {
    const b = await board();
    expect((await member.get(`${base(b.id)}/settings`)).json()).toEqual({
      defaultSprintDuration: 2,
      autoCarryOverIncomplete: false,
      doneColumnIds: [],
    });
    const res = await owner.patch(`${base(b.id)}/settings`, {
      defaultSprintDuration: 4,
      autoCarryOverIncomplete: true,
      doneColumnIds: [b.done, b.doing, b.done],
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({
      defaultSprintDuration: 4,
      autoCarryOverIncomplete: true,
      doneColumnIds: [b.done, b.doing],
    });
    expect((await owner.patch(`${base(b.id)}/settings`, { defaultSprintDuration: 1 })).json()).toEqual({
      defaultSprintDuration: 1,
      autoCarryOverIncomplete: true,
      doneColumnIds: [b.done, b.doing],
    });
    expect((await member.get(`${base(b.id)}/settings`)).json().defaultSprintDuration).toBe(1);
  });

  it('accepts 1-4 weeks only', async () => {
    const b = await board();
    for (const v of [0, 5, 2.5, '2']) {
      const res = await owner.patch(`${base(b.id)}/settings`, { defaultSprintDuration: v });
      expect(res.statusCode, String(v)).toBe(400);
      expect(res.json().details[0].path).toBe('defaultSprintDuration');
    }
  });

  it('accepts only columns of the project as done columns', async () => {
    const b = await board();
    const other = await board();
    const res = await owner.patch(`${base(b.id)}/settings`, { doneColumnIds: [b.done, other.done] });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ error: 'Validation failed', details: [{ path: 'doneColumnIds' }] });
    expect((await owner.get(`${base(b.id)}/settings`)).json().doneColumnIds).toEqual([]);
  });

  it('lets only admins and the owner change settings (403 for members)', async () => {
    const b = await board();
    const res = await member.patch(`${base(b.id)}/settings`, { autoCarryOverIncomplete: true });
    expect(res.statusCode).toBe(403);
    expect((await stranger.get(`${base(b.id)}/settings`)).statusCode).toBe(404);
  });
});
