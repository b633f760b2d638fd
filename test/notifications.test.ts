import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mentionedUsernames } from '../src/shared/mentions.js';
import { createTestApp, type TestApp } from './helpers/app.js';
import { addMember, columnsOf, makeProject, makeTicket } from './helpers/board.js';
import { type Client, signUp } from './helpers/factories.js';
import { SseClient } from './helpers/sse.js';

let t: TestApp;
let base: string;
beforeAll(async () => {
  t = await createTestApp({ DOCKET_SSE_KEEPALIVE_SECONDS: '0.2' });
  base = await t.app.listen({ port: 0, host: '127.0.0.1' });
  await signUp(t.app, { username: 'root_admin_n' }); // the first account is the administrator
});
afterAll(async () => t.close());

interface Item {
  id: string;
  type: string;
  readAt: string | null;
  excerpt: string;
  count: number;
  actor: { id: string; username: string } | null;
  project: { id: string; key: string };
  ticket: { id: string; key: string; title: string } | null;
}

async function inbox(c: Client, query = '') {
  const res = await c.get(`/api/me/notifications${query}`);
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as { items: Item[]; unreadCount: number; nextCursor: string | null };
}

/** A project of `owner` with `members` in it. */
async function team(n: number) {
  const owner = await signUp(t.app, { name: 'Owner' });
  const people: Client[] = [];
  for (let i = 0; i < n; i++) people.push(await signUp(t.app));
  const p = await makeProject(owner);
  for (const u of people) await addMember(owner, p.id, u);
  return { owner, people, p };
}

describe('mentions', () => {
  it('finds @usernames, once each, outside code and e-mail addresses', () => {
    expect(mentionedUsernames('Hi @Ann and @bob_2, also @ann. Mail x@example.com')).toEqual(['ann', 'bob_2']);
    expect(mentionedUsernames('`@code` and\n```\n@block\n```\n@after')).toEqual(['after']);
    expect(mentionedUsernames('@ab is too short, (@carol) counts')).toEqual(['carol']);
    expect(mentionedUsernames(null)).toEqual([]);
  });

  it('notifies people mentioned in a description or a comment who can see the project, not others', async () => {
    const { owner, people, p } = await team(1);
    const [ann] = people;
    const stranger = await signUp(t.app);
    const ticket = await makeTicket(owner, p.id, {
      title: 'Mention me',
      description: `Ask @${ann.username} and @${stranger.username} and @${owner.username}`,
    });
    const a = await inbox(ann);
    expect(a.unreadCount).toBe(2); // and being added to the project
    expect(a.items[0]).toMatchObject({
      type: 'mentioned',
      readAt: null,
      actor: { id: owner.userId, username: owner.username },
      project: { id: p.id, key: p.key },
      ticket: { id: ticket.id, key: ticket.key, title: 'Mention me' },
    });
    expect(a.items[0].excerpt).toContain(`@${ann.username}`);
    expect((await inbox(stranger)).items).toHaveLength(0);
    expect((await inbox(owner)).items).toHaveLength(0); // never for one's own action

    // An edit notifies only the newly mentioned; unchanged mentions stay quiet.
    const bob = await signUp(t.app);
    await addMember(owner, p.id, bob);
    const edit = await owner.patch(`/api/projects/${p.id}/tickets/${ticket.id}`, {
      description: `Ask @${ann.username} and @${bob.username}`,
    });
    expect(edit.statusCode).toBe(200);
    expect((await inbox(bob)).items.map((i) => i.type)).toEqual(['mentioned', 'added_to_project']);
    expect((await inbox(ann)).items).toHaveLength(2);
  });
});

describe('excerpts', () => {
  it('a mention far into a long text shows the text around it', async () => {
    const { owner, people, p } = await team(1);
    const [ann] = people;
    const filler = 'Lorem ipsum dolor sit amet. '.repeat(20);
    await makeTicket(owner, p.id, { description: `${filler}Please check this, @${ann.username}, thanks.` });
    const item = (await inbox(ann, '?type=mentioned')).items[0];
    expect(item.excerpt).toContain(`@${ann.username}`);
    expect(item.excerpt.startsWith('…')).toBe(true);
    expect(item.excerpt.length).toBeLessThanOrEqual(200);
  });
});

describe('notifications of changes', () => {
  it('tells the assignee, and never the actor', async () => {
    const { owner, people, p } = await team(2);
    const [ann, bob] = people;
    const ticket = await makeTicket(owner, p.id, { title: 'Assigned', assigneeId: ann.userId });
    expect((await inbox(ann)).items.find((i) => i.type === 'assigned')?.ticket?.id).toBe(ticket.id);
    // Bob assigns himself: nothing for Bob.
    await bob.patch(`/api/projects/${p.id}/tickets/${ticket.id}`, { assigneeId: bob.userId });
    expect((await inbox(bob)).items.filter((i) => i.type === 'assigned')).toHaveLength(0);
  });

  it('tells the reporter, assignee and watchers of a comment; a mention wins over the comment', async () => {
    const { owner, people, p } = await team(3);
    const [ann, bob, cid] = people;
    const ticket = await makeTicket(owner, p.id, {
      title: 'Discussed',
      assigneeId: ann.userId,
      watcherIds: [bob.userId],
    });
    const res = await cid.post(`/api/projects/${p.id}/tickets/${ticket.id}/comments`, {
      content: `Looks good @${bob.username}`,
    });
    expect(res.statusCode).toBe(201);
    const byType = async (c: Client) => (await inbox(c)).items.filter((i) => i.ticket?.id === ticket.id);
    expect((await byType(owner)).map((i) => i.type)).toEqual(['commented']);
    expect((await byType(ann)).map((i) => i.type)).toEqual(['commented', 'assigned']);
    expect((await byType(bob)).map((i) => i.type)).toEqual(['mentioned']);
    expect((await byType(cid)).map((i) => i.type)).toEqual([]);
  });

  it('tells watchers of column, priority and due-date changes, folded per actor and ticket', async () => {
    const { owner, people, p } = await team(2);
    const [ann, bob] = people;
    const cols = await columnsOf(owner, p.id);
    const ticket = await makeTicket(owner, p.id, { title: 'Watched', watcherIds: [ann.userId] });
    const url = `/api/projects/${p.id}/tickets/${ticket.id}`;
    expect((await owner.patch(url, { columnId: cols[1].id })).statusCode).toBe(200);
    expect((await owner.patch(url, { priority: 'High' })).statusCode).toBe(200);
    expect((await owner.patch(url, { dueDate: '2030-01-02' })).statusCode).toBe(200);
    expect((await owner.patch(url, { title: 'Renamed' })).statusCode).toBe(200); // not a watched field
    const about = async () => (await inbox(ann, '?type=updated')).items;
    let a = await about();
    expect(a).toHaveLength(1);
    expect(a[0]).toMatchObject({ type: 'updated', count: 3 });
    expect(a[0].excerpt).toBe('Due date: none → 2030-01-02');
    // Another actor: a notification of its own.
    expect((await bob.patch(url, { priority: 'Low' })).statusCode).toBe(200);
    a = await about();
    expect(a).toHaveLength(2);
    expect(a[0]).toMatchObject({ type: 'updated', count: 1, actor: { id: bob.userId } });
    expect(a[0].excerpt).toBe('Priority: High → Low');
    // A read notification is not folded into: the next change is new.
    await ann.post('/api/me/notifications/read', { all: true });
    expect((await bob.patch(url, { priority: 'Medium' })).statusCode).toBe(200);
    const unread = await inbox(ann, '?unread=true');
    expect(unread.items).toHaveLength(1);
    expect(unread.unreadCount).toBe(1);
  });

  it('bulk changes notify each ticket’s watchers', async () => {
    const { owner, people, p } = await team(1);
    const [ann] = people;
    const t1 = await makeTicket(owner, p.id, { watcherIds: [ann.userId] });
    const t2 = await makeTicket(owner, p.id, { watcherIds: [ann.userId] });
    const res = await owner.patch(`/api/projects/${p.id}/tickets`, {
      ticketIds: [t1.id, t2.id],
      updates: { priority: 'Highest' },
    });
    expect(res.statusCode, res.body).toBe(200);
    const ids = (await inbox(ann)).items.filter((i) => i.type === 'updated').map((i) => i.ticket?.id);
    expect(ids.sort()).toEqual([t1.id, t2.id].sort());
  });

  it('tells five watchers of a change in as many statements as one', async () => {
    const { owner, people, p } = await team(5);
    const count = async (watcherIds: string[]) => {
      const ticket = await makeTicket(owner, p.id, { watcherIds });
      const before = t.app.services.db.statements();
      const res = await owner.patch(`/api/projects/${p.id}/tickets/${ticket.id}`, { priority: 'Highest' });
      expect(res.statusCode, res.body).toBe(200);
      return t.app.services.db.statements() - before;
    };
    // The fewest of three: the count is the database's, and the webhook sender's polling may add
    // its own statement to any one of them (it did, in CI: 15 for one watcher, 14 for five).
    const fewest = async (watcherIds: string[]) =>
      Math.min(await count(watcherIds), await count(watcherIds), await count(watcherIds));
    const one = await fewest([people[0].userId]);
    const five = await fewest(people.map((u) => u.userId));
    expect(five).toBe(one);
    for (const u of people)
      expect((await inbox(u)).items.filter((i) => i.type === 'updated')).toHaveLength(
        u === people[0] ? 6 : 3,
      );
  });

  it('tells a person added to a project, and people with tickets in a sprint that starts or completes', async () => {
    const { owner, people, p } = await team(2);
    const [ann, bob] = people;
    expect((await inbox(ann)).items[0]).toMatchObject({ type: 'added_to_project', ticket: null });
    const sprint = (await owner.post(`/api/projects/${p.id}/sprints`, { name: 'Sprint A' })).json();
    await makeTicket(owner, p.id, { sprintId: sprint.id, assigneeId: ann.userId });
    expect((await owner.post(`/api/projects/${p.id}/sprints/${sprint.id}/start`, {})).statusCode).toBe(200);
    expect((await owner.post(`/api/projects/${p.id}/sprints/${sprint.id}/complete`, {})).statusCode).toBe(
      200,
    );
    const types = (await inbox(ann)).items.map((i) => i.type);
    expect(types).toContain('sprint_started');
    expect(types).toContain('sprint_completed');
    expect((await inbox(bob)).items.map((i) => i.type)).toEqual(['added_to_project']);
  });

  it('a person who leaves a project loses its notifications', async () => {
    const { owner, people, p } = await team(1);
    const [ann] = people;
    const other = await makeProject(owner);
    await addMember(owner, other.id, ann);
    await makeTicket(owner, p.id, { assigneeId: ann.userId });
    expect((await inbox(ann)).items).toHaveLength(3);
    const leave = await ann.del(`/api/projects/${p.id}/members/${ann.userId}`);
    expect(leave.statusCode, leave.body).toBe(200);
    const a = await inbox(ann);
    expect(a.items.map((i) => i.project.id)).toEqual([other.id]);
    expect(a.unreadCount).toBe(1);
  });
});

describe('GET /api/me/notifications and POST /api/me/notifications/read', () => {
  it('pages with a cursor, filters by unread and type, and marks read by id or all', async () => {
    const { owner, people, p } = await team(1);
    const [ann] = people;
    for (let i = 0; i < 5; i++) await makeTicket(owner, p.id, { title: `T${i}`, assigneeId: ann.userId });
    const first = await inbox(ann, '?limit=2');
    expect(first.items).toHaveLength(2);
    expect(first.unreadCount).toBe(6);
    const seen = [...first.items];
    let cursor = first.nextCursor;
    while (cursor) {
      const page = await inbox(ann, `?limit=2&cursor=${cursor}`);
      seen.push(...page.items);
      cursor = page.nextCursor;
    }
    expect(seen.map((i) => i.id)).toEqual((await inbox(ann)).items.map((i) => i.id));
    expect(new Set(seen.map((i) => i.id)).size).toBe(6);
    expect((await inbox(ann, '?type=assigned')).items).toHaveLength(5);

    const mark = await ann.post('/api/me/notifications/read', { ids: [seen[0].id, seen[1].id] });
    expect(mark.json()).toEqual({ updated: 2, unreadCount: 4 });
    expect((await inbox(ann, '?unread=true')).items.map((i) => i.id)).not.toContain(seen[0].id);
    // Another user's ids change nothing.
    expect((await owner.post('/api/me/notifications/read', { ids: [seen[2].id] })).json().updated).toBe(0);
    expect((await ann.post('/api/me/notifications/read', { all: true })).json()).toEqual({
      updated: 4,
      unreadCount: 0,
    });
  });

  it('refuses bad input with 400 and no session with 401', async () => {
    const u = await signUp(t.app);
    for (const q of ['?limit=0', '?limit=1000', '?unread=maybe', '?type=nope', '?cursor=zzz']) {
      const res = await u.get(`/api/me/notifications${q}`);
      expect(res.statusCode, q).toBe(400);
    }
    for (const body of [{}, { ids: [] }, { all: false }, { all: true, ids: ['x'] }, { ids: 'x' }]) {
      expect((await u.post('/api/me/notifications/read', body)).statusCode).toBe(400);
    }
    expect((await t.app.inject({ method: 'GET', url: '/api/me/notifications' })).statusCode).toBe(401);
  });

  it('the user stream carries notification.created and notification.read to that user only', async () => {
    const { owner, people, p } = await team(2);
    const [ann, bob] = people;
    const sa = await SseClient.open(`${base}/api/users/events`, { cookie: ann.cookie });
    const sb = await SseClient.open(`${base}/api/users/events`, { cookie: bob.cookie });
    try {
      await sa.until(() => sa.messages.length > 0);
      await sb.until(() => sb.messages.length > 0);
      const ticket = await makeTicket(owner, p.id, { assigneeId: ann.userId });
      const created = await sa.waitForType('notification.created');
      expect(created.json?.data.notification).toMatchObject({ type: 'assigned', ticket: { id: ticket.id } });
      expect(created.json?.data.unreadCount).toBe(2);
      await ann.post('/api/me/notifications/read', { all: true });
      const read = await sa.waitForType('notification.read');
      expect(read.json?.data).toEqual({ ids: null, unreadCount: 0 });
      // Bob's stream carried nothing of Ann's (a later event of Bob's proves it was delivering).
      await makeTicket(owner, p.id, { assigneeId: bob.userId });
      await sb.waitForType('notification.created');
      const bobs = sb.events.filter((e) => e.json?.type.startsWith('notification.'));
      expect(bobs).toHaveLength(1);
      expect(bobs[0].json?.data.notification.ticket.key).not.toBe(ticket.key);
    } finally {
      sa.close();
      sb.close();
    }
  });
});
