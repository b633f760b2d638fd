import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './helpers/app.js';
import { columnsOf, makeProject, makeTicket } from './helpers/board.js';
import { type Client, signUp } from './helpers/factories.js';

let t: TestApp;
let owner: Client;
let stranger: Client;
beforeAll(async () => {
  t = await createTestApp();
  await signUp(t.app); // the first account is a system administrator
  owner = await signUp(t.app);
  stranger = await signUp(t.app);
});
afterAll(async () => t.close());

const DAY = 86_400_000;
const HOUR = 3_600_000;
const base = (pid: string) => `/api/projects/${pid}/sprints`;

async function board() {
  const p = await makeProject(owner);
  const cols = await columnsOf(owner, p.id);
  return { id: p.id, todo: cols[0].id, doing: cols[1].id, done: cols[2].id };
}

async function post(url: string, body: Record<string, unknown> = {}, status = 200) {
  const res = await owner.post(url, body);
  expect(res.statusCode, res.body).toBe(status);
  return res.json();
}
async function patch(url: string, body: Record<string, unknown>) {
  const res = await owner.patch(url, body);
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
}

describe('burndown', () => {
  /**
   * A ten-day sprint that began four days ago. The history is recorded by the API and then moved
   * back in time, as if each change had happened on its day:
   *   day 0  A (5), B (3), C (2) are in the sprint, which starts
   *   day 1  A moves to Done
   *   day 2  D (8) is added; B is re-estimated 3 -> 5
   *   day 3  C is removed from the sprint
   */
  async function tenDaySprint() {
    const b = await board();
    const start = Date.parse(`${new Date(Date.now() - 4 * DAY).toISOString().slice(0, 10)}T00:00:00.000Z`);
    const at = (day: number, hour: number) => new Date(start + day * DAY + hour * HOUR).toISOString();
    const s = await post(base(b.id), { name: 'Ten days' }, 201);
    const A = await makeTicket(owner, b.id, { title: 'A', sprintId: s.id, storyPoints: 5 });
    const B = await makeTicket(owner, b.id, { title: 'B', sprintId: s.id, storyPoints: 3 });
    const C = await makeTicket(owner, b.id, { title: 'C', sprintId: s.id, storyPoints: 2 });
    await post(`${base(b.id)}/${s.id}/start`, {
      startDate: new Date(start).toISOString().slice(0, 10),
      endDate: new Date(start + 9 * DAY).toISOString().slice(0, 10),
    });
    await patch(`/api/projects/${b.id}/tickets/${A.id}`, { columnId: b.done });
    const D = await makeTicket(owner, b.id, { title: 'D', sprintId: s.id, storyPoints: 8 });
    await patch(`/api/projects/${b.id}/tickets/${B.id}`, { storyPoints: 5 });
    await patch(`/api/projects/${b.id}/tickets/${C.id}`, { sprintId: null });

    const db = t.app.services.db.kysely;
    await db
      .updateTable('sprint_ticket_history')
      .set({ entered_at: at(0, 9) })
      .where('sprint_id', '=', s.id)
      .where('ticket_id', 'in', [A.id, B.id, C.id])
      .execute();
    await db
      .updateTable('sprints')
      .set({ started_at: at(0, 10) })
      .where('id', '=', s.id)
      .execute();
    await db
      .updateTable('ticket_history')
      .set({ changed_at: at(1, 12) })
      .where('ticket_id', '=', A.id)
      .where('field', '=', 'status')
      .execute();
    await db
      .updateTable('sprint_ticket_history')
      .set({ entered_at: at(2, 9) })
      .where('ticket_id', '=', D.id)
      .execute();
    await db
      .updateTable('ticket_history')
      .set({ changed_at: at(2, 10) })
      .where('ticket_id', '=', B.id)
      .where('field', '=', 'storyPoints')
      .execute();
    await db
      .updateTable('sprint_ticket_history')
      .set({ exited_at: at(3, 8) })
      .where('ticket_id', '=', C.id)
      .where('sprint_id', '=', s.id)
      .execute();
    const dates = Array.from({ length: 10 }, (_, i) => new Date(start + i * DAY).toISOString().slice(0, 10));
    return { b, s, dates, tickets: { A, B, C, D } };
  }

  const row = (date: string, remaining: [number, number, number, number] | null, ideal: number) => ({
    date,
    remainingPoints: remaining ? remaining[0] : null,
    remainingTickets: remaining ? remaining[1] : null,
    completedPoints: remaining ? remaining[2] : null,
    scopePoints: remaining ? remaining[3] : null,
    idealPoints: ideal,
  });

  it('follows the day-by-day history: completions, additions, re-estimates and removals mid-sprint', async () => {
    const { b, s, dates } = await tenDaySprint();
    const res = await owner.get(`${base(b.id)}/${s.id}/burndown`);
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({
      sprintId: s.id,
      status: 'active',
      committedPoints: 10,
      committedTickets: 3,
    });
    expect(body.startDate).toBe(`${dates[0]}T00:00:00.000Z`);
    expect(body.endDate).toBe(`${dates[9]}T00:00:00.000Z`);
    expect(body.days).toEqual([
      row(dates[0], [10, 3, 0, 10], 9),
      row(dates[1], [5, 2, 5, 10], 8),
      row(dates[2], [15, 3, 5, 20], 7),
      row(dates[3], [13, 2, 5, 18], 6),
      row(dates[4], [13, 2, 5, 18], 5),
      row(dates[5], null, 4),
      row(dates[6], null, 3),
      row(dates[7], null, 2),
      row(dates[8], null, 1),
      row(dates[9], null, 0),
    ]);
  });

  it('still counts the tickets that left at completion on the last measured day', async () => {
    const { b, s, dates } = await tenDaySprint();
    const done = await post(`${base(b.id)}/${s.id}/complete`, { incompleteAction: 'moveToBacklog' });
    expect(done).toMatchObject({
      completedTicketCount: 1,
      incompleteTicketCount: 2,
      completedStoryPoints: 5,
      incompleteStoryPoints: 13,
    });
    const body = (await owner.get(`${base(b.id)}/${s.id}/burndown`)).json();
    expect(body.status).toBe('completed');
    expect(body.days[4]).toEqual(row(dates[4], [13, 2, 5, 18], 5));
    expect(body.days[5]).toEqual(row(dates[5], null, 4));
  });

  it('has no days for a planning sprint and counts its current scope as committed', async () => {
    const b = await board();
    const s = await post(base(b.id), { startDate: '2026-01-01', endDate: '2026-01-10' }, 201);
    await makeTicket(owner, b.id, { sprintId: s.id, storyPoints: 13 });
    const body = (await owner.get(`${base(b.id)}/${s.id}/burndown`)).json();
    expect(body).toMatchObject({ status: 'planning', committedPoints: 13, committedTickets: 1, days: [] });
  });

  it('answers 404 for an unknown sprint and for non-members', async () => {
    const b = await board();
    const s = await post(base(b.id), {}, 201);
    expect((await owner.get(`${base(b.id)}/0190a8a8-0000-7000-8000-000000000000/burndown`)).json()).toEqual({
      error: 'Sprint not found',
    });
    expect((await stranger.get(`${base(b.id)}/${s.id}/burndown`)).json()).toEqual({
      error: 'Project not found',
    });
  });
});

describe('velocity', () => {
  it('reports committed points at the start, completed points and carry-overs of the last completed sprints', async () => {
    const b = await board();
    const s1 = await post(base(b.id), { name: 'One' }, 201);
    const s2 = await post(base(b.id), { name: 'Two' }, 201);
    const A = await makeTicket(owner, b.id, { sprintId: s1.id, storyPoints: 5 });
    const B = await makeTicket(owner, b.id, { sprintId: s1.id, storyPoints: 3 });
    await makeTicket(owner, b.id, { sprintId: s1.id, storyPoints: 2 });
    await post(`${base(b.id)}/${s1.id}/start`);
    // Added after the start: not committed, but completed work counts.
    const late = await makeTicket(owner, b.id, { sprintId: s1.id, storyPoints: 1 });
    await patch(`/api/projects/${b.id}/tickets/${A.id}`, { columnId: b.done });
    await patch(`/api/projects/${b.id}/tickets/${late.id}`, { columnId: b.done });
    await post(`${base(b.id)}/${s1.id}/complete`, {
      incompleteAction: 'moveToNextSprint',
      nextSprintId: s2.id,
    });

    await post(`${base(b.id)}/${s2.id}/start`);
    const D = await makeTicket(owner, b.id, { sprintId: s2.id, storyPoints: 8 });
    await patch(`/api/projects/${b.id}/tickets/${B.id}`, { columnId: b.done });
    await patch(`/api/projects/${b.id}/tickets/${D.id}`, { columnId: b.done });
    await post(`${base(b.id)}/${s2.id}/complete`, { incompleteAction: 'moveToBacklog' });

    // An active sprint is not reported.
    const s3 = await post(base(b.id), { name: 'Three' }, 201);
    await post(`${base(b.id)}/${s3.id}/start`);

    const res = await owner.get(`${base(b.id)}/velocity`);
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    expect(body.sprints).toEqual([
      expect.objectContaining({
        id: s1.id,
        name: 'One',
        committedPoints: 10,
        committedTickets: 3,
        completedPoints: 6,
        completedTickets: 2,
        carriedOverCount: 2,
        completedAt: expect.any(String),
      }),
      expect.objectContaining({
        id: s2.id,
        name: 'Two',
        committedPoints: 5,
        committedTickets: 2,
        completedPoints: 11,
        completedTickets: 2,
        carriedOverCount: 0,
      }),
    ]);
    expect(body.averageCompletedPoints).toBe(8.5);

    const last = (await owner.get(`${base(b.id)}/velocity?limit=1`)).json();
    expect(last.sprints.map((s: { id: string }) => s.id)).toEqual([s2.id]);
    expect(last.averageCompletedPoints).toBe(11);
  });

  it('counts the points a ticket had when it was completed, not later re-estimates', async () => {
    const b = await board();
    const s = await post(base(b.id), {}, 201);
    const A = await makeTicket(owner, b.id, { sprintId: s.id, storyPoints: 3, columnId: b.done });
    await post(`${base(b.id)}/${s.id}/start`);
    await post(`${base(b.id)}/${s.id}/complete`);
    await patch(`/api/projects/${b.id}/tickets/${A.id}`, { storyPoints: 13 });
    const body = (await owner.get(`${base(b.id)}/velocity`)).json();
    expect(body.sprints[0]).toMatchObject({ committedPoints: 3, completedPoints: 3 });
  });

  it('refuses a limit outside 1-50 and hides the report from non-members', async () => {
    const b = await board();
    expect((await owner.get(`${base(b.id)}/velocity?limit=0`)).statusCode).toBe(400);
    expect((await owner.get(`${base(b.id)}/velocity?limit=51`)).statusCode).toBe(400);
    expect((await stranger.get(`${base(b.id)}/velocity`)).statusCode).toBe(404);
  });
});

describe('OpenAPI', () => {
  it('documents the sprint endpoints and the report shapes', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/api/openapi.json' })).json();
    const p = '/api/projects/{projectId}/sprints';
    for (const path of [
      p,
      `${p}/active`,
      `${p}/settings`,
      `${p}/velocity`,
      `${p}/{sprintId}`,
      `${p}/{sprintId}/burndown`,
    ]) {
      expect(doc.paths[path], path).toBeDefined();
    }
    const burndown = JSON.stringify(doc.paths[`${p}/{sprintId}/burndown`].get.responses['200']);
    expect(burndown).toContain('remainingPoints');
    expect(burndown).toContain('idealPoints');
    const velocity = JSON.stringify(doc.paths[`${p}/velocity`].get.responses['200']);
    expect(velocity).toContain('committedPoints');
    expect(velocity).toContain('carriedOverCount');
    expect(Object.keys(doc.paths[`${p}/{sprintId}`])).toEqual(
      expect.arrayContaining(['get', 'patch', 'delete']),
    );
  });
});
