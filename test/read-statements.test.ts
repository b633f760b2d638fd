import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, dialect, type TestApp } from './helpers/app.js';
import { addMember, columnsOf, makeProject, makeTicket, type ProjectOut } from './helpers/board.js';
import { type Client, signUp } from './helpers/factories.js';

/**
 * The uncached reads in a constant, small number of statements (issue 24): what a request costs when
 * the read cache does not hold its answer, as on a busy instance.
 */
let t: TestApp;
let owner: Client;
let p: ProjectOut;

beforeAll(async () => {
  t = await createTestApp();
  owner = await signUp(t.app);
  p = await makeProject(owner, { name: 'Counted' });
});
afterAll(async () => {
  await t.close();
});

const db = () => t.app.services.db;
/** Statements a request runs; on PostgreSQL the change-log reading may add one (once per ms). */
async function count(fn: () => Promise<unknown>) {
  const before = db().statements();
  await fn();
  return db().statements() - before;
}
const extra = dialect === 'postgres' ? 1 : 0;

describe('statements of the uncached reads', () => {
  it('reads a full ticket (column, people, sprint, labels, watchers, links, counts) in one statement', async () => {
    const other = await signUp(t.app);
    await addMember(owner, p.id, other);
    const label = (
      await owner.post(`/api/projects/${p.id}/labels`, { name: 'counted', color: '#0EA5E9' })
    ).json();
    const sprint = (await owner.post(`/api/projects/${p.id}/sprints`, { name: 'Counted sprint' })).json();
    const linked = await makeTicket(owner, p.id, { title: 'Linked' });
    const ticket = await makeTicket(owner, p.id, {
      title: 'Full',
      assigneeId: other.userId,
      labelIds: [label.id],
      sprintId: sprint.id,
      watcherIds: [other.userId],
    });
    await owner.post(`/api/projects/${p.id}/tickets/${ticket.id}/links`, {
      targetTicketId: linked.id,
      linkType: 'blocks',
    });
    await owner.post(`/api/projects/${p.id}/tickets/${ticket.id}/comments`, { content: 'one' });
    // The session and the access answer are cached by a first read of another ticket.
    await owner.get(`/api/projects/${p.id}/tickets/${linked.key}`);
    let body: Record<string, unknown> = {};
    const n = await count(async () => {
      const res = await owner.get(`/api/projects/${p.id}/tickets/${ticket.key}`);
      expect(res.statusCode).toBe(200);
      body = res.json();
    });
    expect(body).toMatchObject({
      title: 'Full',
      column: { id: expect.any(String) },
      assignee: { id: other.userId },
      sprint: { id: sprint.id, name: 'Counted sprint' },
      labels: [{ id: label.id, name: 'counted', color: label.color }],
      watchers: expect.arrayContaining([expect.objectContaining({ id: other.userId })]),
      links: [{ linkType: 'blocks', ticket: { id: linked.id, key: linked.key, title: 'Linked' } }],
      commentCount: 1,
    });
    expect(n).toBeLessThanOrEqual(1 + extra);
  });

  it('reads a column of tickets and the project list in a number of statements that does not grow', async () => {
    const board = await makeProject(owner, { name: 'Column' });
    const [col] = await columnsOf(owner, board.id);
    const label = (
      await owner.post(`/api/projects/${board.id}/labels`, { name: 'l', color: '#0EA5E9' })
    ).json();
    const list = async () =>
      count(async () => {
        // A query of its own each time: never served from the cache.
        const res = await owner.get(
          `/api/projects/${board.id}/tickets?columnId=${col.id}&q=t${Math.random()}`,
        );
        expect(res.statusCode).toBe(200);
      });
    const projects = async () =>
      count(async () => {
        const res = await owner.get(`/api/projects?limit=${100 + Math.floor(Math.random() * 100)}`);
        expect(res.statusCode).toBe(200);
      });
    for (let i = 0; i < 3; i++) await makeTicket(owner, board.id, { columnId: col.id, labelIds: [label.id] });
    // Each measured after a first request, which may have to read the session and access again.
    await list();
    const smallList = await list();
    await projects();
    const fewProjects = await projects();
    for (let i = 0; i < 30; i++)
      await makeTicket(owner, board.id, { columnId: col.id, labelIds: [label.id] });
    for (let i = 0; i < 5; i++) await makeProject(owner, { name: `More ${i}` });
    await list();
    expect(await list()).toBeLessThanOrEqual(smallList + extra);
    await projects();
    expect(await projects()).toBeLessThanOrEqual(fewProjects + extra);
    // The list: its rows, their labels and watchers; the project list: one.
    expect(smallList).toBeLessThanOrEqual(3 + extra);
    expect(fewProjects).toBeLessThanOrEqual(1 + extra);
  });
});
