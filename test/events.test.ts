import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { transact } from '../src/domain/context.js';
import { newId, nowIso } from '../src/domain/ids.js';
import { pruneEventLog } from '../src/events/setup.js';
import type { NewEvent } from '../src/events/types.js';
import { createTestApp, type TestApp } from './helpers/app.js';
import { type Client, PASSWORD, signIn, signUp, unique } from './helpers/factories.js';
import { SseClient } from './helpers/sse.js';

let t: TestApp;
let base: string;
let admin: Client;
const open: SseClient[] = [];

beforeAll(async () => {
  t = await createTestApp({ DOCKET_SSE_KEEPALIVE_SECONDS: '0.2' });
  base = await t.app.listen({ port: 0, host: '127.0.0.1' });
  admin = await signUp(t.app); // the first account: a system administrator
});
afterAll(async () => {
  for (const c of open) c.close();
  await t.close();
});

async function stream(path: string, headers: Record<string, string> = {}): Promise<SseClient> {
  const c = await SseClient.open(`${base}${path}`, headers);
  open.push(c);
  return c;
}

/** Opens a stream as the client and waits until it is subscribed (the first message, an id, arrived). */
async function connect(who: { cookie: string } | null, path: string, headers: Record<string, string> = {}) {
  const c = await stream(path, { ...(who ? { cookie: who.cookie } : {}), ...headers });
  expect(c.status).toBe(200);
  await c.until(() => c.messages.length > 0, 5000, 'the first message');
  return c;
}

/** An event of any made-up payload: these tests are about delivery, not payloads. */
type RawEvent = Omit<NewEvent, 'type' | 'data'> & { type: NewEvent['type']; data: unknown };

/** The app's services with the payload contract checks off. */
const unchecked = () => ({ ...t.app.services, config: { ...t.app.services.config, checkContracts: false } });

/** Writes events in one transaction, as a use case does (payload contracts not checked). */
async function emit(events: RawEvent[], tabId: string | null = null) {
  await transact({ ...unchecked(), tabId }, async (_tx, e) => {
    for (const ev of events) e(ev as NewEvent);
  });
}

async function makeProject(members: { userId: string; role: 'owner' | 'admin' | 'member' }[]) {
  const db = t.app.services.db.kysely;
  const id = newId();
  const now = nowIso();
  const key = `E${unique('')
    .toUpperCase()
    .replace(/[^A-Z0-9]/g, '')
    .slice(-8)}`;
  await db
    .insertInto('projects')
    .values({
      id,
      name: `Project ${key}`,
      key,
      description: null,
      color: '#6366F1',
      ticket_counter: 0,
      sprint_counter: 0,
      created_at: now,
      updated_at: now,
    })
    .execute();
  for (const m of members) {
    await db
      .insertInto('project_members')
      .values({ id: newId(), project_id: id, user_id: m.userId, role: m.role, created_at: now })
      .execute();
  }
  return { id, key };
}

const ticketEvent = (projectId: string, n: number): RawEvent => ({
  scope: 'project',
  type: 'ticket.updated',
  projectId,
  data: { id: `ticket-${n}`, title: `T${n}` },
});

async function lastLogId(): Promise<number> {
  const row = await t.app.services.db.kysely
    .selectFrom('events')
    .select((eb) => eb.fn.max('id').as('id'))
    .executeTakeFirst();
  return Number(row?.id ?? 0);
}

describe('stream responses', () => {
  it('answers with the event-stream headers, an id to resume from, and a keepalive comment', async () => {
    const c = await connect(admin, '/api/users/events');
    expect(c.headers['content-type']).toBe('text/event-stream');
    expect(c.headers['cache-control']).toBe('no-cache');
    expect(c.headers['x-accel-buffering']).toBe('no');
    expect(c.messages[0].data).toBeUndefined();
    expect(Number(c.messages[0].id)).toBe(await lastLogId());
    await c.until(() => c.comments.filter((x) => x === 'keepalive').length >= 2, 3000, 'two keepalives');
  });

  it.each(['/api/users/events', '/api/projects/events', `/api/projects/${newId()}/events`])(
    'answers 401 without a session on %s',
    async (path) => {
      const c = await stream(path);
      await c.waitForEnd();
      expect(c.status).toBe(401);
      expect(JSON.parse(c.body)).toEqual({ error: 'Authentication required' });
    },
  );

  it('answers 401 for a signed-out session cookie', async () => {
    const u = await signUp(t.app);
    expect((await u.post('/api/auth/signout', {})).statusCode).toBe(302);
    const c = await stream('/api/users/events', { cookie: u.cookie });
    await c.waitForEnd();
    expect(c.status).toBe(401);
  });

  it('accepts an API key like a session', async () => {
    const u = await signUp(t.app);
    const key = (await u.post('/api/me/mcp-key')).json().apiKey;
    const c = await connect(null, '/api/users/events', { authorization: `Bearer ${key}` });
    await u.patch('/api/me', { name: 'Keyed' });
    const m = await c.waitForType('user.updated');
    expect(m.json?.data).toMatchObject({ id: u.userId, name: 'Keyed' });
  });

  it('answers 401 Invalid API key for a wrong key', async () => {
    const c = await stream('/api/users/events', { authorization: 'Bearer dk_wrong' });
    await c.waitForEnd();
    expect(c.status).toBe(401);
    expect(JSON.parse(c.body)).toEqual({ error: 'Invalid API key' });
  });
});

describe('the user stream', () => {
  it('sends user.updated to every signed-in user with the id of the log row and the envelope', async () => {
    const a = await signUp(t.app);
    const b = await signUp(t.app);
    const sa = await connect(a, '/api/users/events');
    const sb = await connect(b, '/api/users/events');
    const res = await a.req({
      method: 'PATCH',
      url: '/api/me',
      payload: { name: 'Ada' },
      headers: { 'x-tab-id': 'tab-123' },
    });
    expect(res.statusCode).toBe(200);
    for (const s of [sa, sb]) {
      const m = await s.waitForType('user.updated');
      expect(Number(m.id)).toBe(await lastLogId());
      expect(Object.keys(m.json!).sort()).toEqual(['data', 'tabId', 'timestamp', 'type']);
      expect(m.json).toMatchObject({
        type: 'user.updated',
        tabId: 'tab-123',
        data: { id: a.userId, name: 'Ada' },
      });
      expect(Date.parse(m.json!.timestamp)).not.toBeNaN();
    }
  });

  it('sends tabId null when the request had no X-Tab-Id', async () => {
    const a = await signUp(t.app);
    const s = await connect(a, '/api/users/events');
    await a.patch('/api/me', { name: 'No tab' });
    const m = await s.waitForType('user.updated');
    expect(m.json?.tabId).toBeNull();
  });

  it('does not carry project events', async () => {
    const a = await signUp(t.app);
    const p = await makeProject([{ userId: a.userId, role: 'owner' }]);
    const s = await connect(a, '/api/users/events');
    await emit([ticketEvent(p.id, 1)]);
    await a.patch('/api/me', { name: 'After' });
    await s.waitForType('user.updated');
    expect(s.events.map((m) => m.json?.type)).toEqual(['user.updated']);
  });
});

describe('the project stream', () => {
  it('is open to members and system administrators, and 404 for anyone else or an unknown project', async () => {
    const owner = await signUp(t.app);
    const outsider = await signUp(t.app);
    const p = await makeProject([{ userId: owner.userId, role: 'owner' }]);
    await connect(owner, `/api/projects/${p.id}/events`);
    await connect(owner, `/api/projects/${p.key.toLowerCase()}/events`);
    await connect(admin, `/api/projects/${p.id}/events`);
    for (const path of [`/api/projects/${p.id}/events`, `/api/projects/${newId()}/events`]) {
      const c = await stream(path, { cookie: outsider.cookie });
      await c.waitForEnd();
      expect(c.status).toBe(404);
      expect(JSON.parse(c.body)).toEqual({ error: 'Project not found' });
    }
  });

  it("delivers the project's events in order, and no other project's", async () => {
    const owner = await signUp(t.app);
    const p = await makeProject([{ userId: owner.userId, role: 'owner' }]);
    const other = await makeProject([{ userId: owner.userId, role: 'owner' }]);
    const s = await connect(owner, `/api/projects/${p.id}/events`);
    await emit([ticketEvent(p.id, 1), ticketEvent(other.id, 2), ticketEvent(p.id, 3)]);
    await emit([
      { scope: 'project', type: 'label.created', projectId: p.id, data: { id: 'l1', name: 'bug' } },
    ]);
    await s.waitForType('label.created');
    expect(s.events.map((m) => [m.json?.type, m.json?.data.id])).toEqual([
      ['ticket.updated', 'ticket-1'],
      ['ticket.updated', 'ticket-3'],
      ['label.created', 'l1'],
    ]);
    const ids = s.events.map((m) => Number(m.id));
    expect([...ids].sort((x, y) => x - y)).toEqual(ids);
  });

  it('never sends the events of a transaction that rolled back', async () => {
    const owner = await signUp(t.app);
    const p = await makeProject([{ userId: owner.userId, role: 'owner' }]);
    const s = await connect(owner, `/api/projects/${p.id}/events`);
    await expect(
      transact(unchecked(), async (_tx, e) => {
        e(ticketEvent(p.id, 666) as NewEvent);
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    await emit([ticketEvent(p.id, 7)]);
    await s.until(() => s.events.some((m) => m.json?.data.id === 'ticket-7'), 5000, 'ticket-7');
    expect(s.events.map((m) => m.json?.data.id)).toEqual(['ticket-7']);
  });

  it('stops delivering to a removed member: the member.removed event, then the end of the stream', async () => {
    const owner = await signUp(t.app);
    const member = await signUp(t.app);
    const p = await makeProject([
      { userId: owner.userId, role: 'owner' },
      { userId: member.userId, role: 'member' },
    ]);
    const s = await connect(member, `/api/projects/${p.id}/events`);
    await transact(unchecked(), async (tx, e) => {
      await tx
        .deleteFrom('project_members')
        .where('project_id', '=', p.id)
        .where('user_id', '=', member.userId)
        .execute();
      e({
        scope: 'project',
        type: 'member.removed',
        projectId: p.id,
        data: { userId: member.userId, projectId: p.id },
      } as NewEvent);
    });
    await emit([ticketEvent(p.id, 9)]);
    await s.waitForEnd();
    expect(s.events.map((m) => m.json?.type)).toEqual(['member.removed']);
    const again = await stream(`/api/projects/${p.id}/events`, { cookie: member.cookie });
    await again.waitForEnd();
    expect(again.status).toBe(404);
  });

  it('ends when the project is deleted', async () => {
    const owner = await signUp(t.app);
    const p = await makeProject([{ userId: owner.userId, role: 'owner' }]);
    const s = await connect(owner, `/api/projects/${p.id}/events`);
    await transact(t.app.services, async (tx, e) => {
      await tx.deleteFrom('projects').where('id', '=', p.id).execute();
      e({
        scope: 'projects',
        type: 'project.deleted',
        projectId: p.id,
        audience: [owner.userId],
        data: { id: p.id },
      });
    });
    await s.waitForEnd();
  });
});

describe('the project-list stream', () => {
  it("delivers a project's events to its members and system administrators only", async () => {
    const member = await signUp(t.app);
    const outsider = await signUp(t.app);
    const p = await makeProject([{ userId: member.userId, role: 'owner' }]);
    const sm = await connect(member, '/api/projects/events');
    const so = await connect(outsider, '/api/projects/events');
    const sa = await connect(admin, '/api/projects/events');
    await emit([
      { scope: 'projects', type: 'project.updated', projectId: p.id, data: { id: p.id, name: 'Renamed' } },
    ]);
    await sm.waitForType('project.updated');
    await sa.waitForType('project.updated');
    // The outsider's stream received the next event but not this one.
    await emit([{ scope: 'all', type: 'database.projects.wiped', data: {} }]);
    await so.waitForType('database.projects.wiped');
    expect(so.events.map((m) => m.json?.type)).toEqual(['database.projects.wiped']);
  });

  it('delivers project.deleted to its recorded audience after the memberships are gone', async () => {
    const owner = await signUp(t.app);
    const outsider = await signUp(t.app);
    const p = await makeProject([{ userId: owner.userId, role: 'owner' }]);
    const so = await connect(owner, '/api/projects/events');
    const sx = await connect(outsider, '/api/projects/events');
    await transact(t.app.services, async (tx, e) => {
      await tx.deleteFrom('projects').where('id', '=', p.id).execute();
      e({
        scope: 'projects',
        type: 'project.deleted',
        projectId: p.id,
        audience: [owner.userId],
        data: { id: p.id },
      });
    });
    const m = await so.waitForType('project.deleted');
    expect(m.json?.data).toEqual({ id: p.id });
    await outsider.patch('/api/me', { name: 'x' }); // an event on another stream, to let time pass
    await emit([{ scope: 'all', type: 'database.projects.wiped', data: {} }]);
    await sx.waitForType('database.projects.wiped');
    expect(sx.events.map((e) => e.json?.type)).toEqual(['database.projects.wiped']);
  });

  it('carries member events about the holder, so a new project appears in their list', async () => {
    const owner = await signUp(t.app);
    const newcomer = await signUp(t.app);
    const p = await makeProject([{ userId: owner.userId, role: 'owner' }]);
    const s = await connect(newcomer, '/api/projects/events');
    const so = await connect(owner, '/api/projects/events');
    await emit([
      {
        scope: 'project',
        type: 'member.added',
        projectId: p.id,
        data: { userId: newcomer.userId, projectId: p.id, role: 'member' },
      },
    ]);
    const m = await s.waitForType('member.added');
    expect(m.json?.data.userId).toBe(newcomer.userId);
    await emit([{ scope: 'all', type: 'database.projects.wiped', data: {} }]);
    await so.waitForType('database.projects.wiped');
    expect(so.events.map((e) => e.json?.type)).toEqual(['database.projects.wiped']);
  });
});

describe('events of the HTTP API', () => {
  it('streams project.created to its creator, member.added to the new member, and ticket events with the tab id', async () => {
    const owner = await signUp(t.app);
    const newcomer = await signUp(t.app);
    const list = await connect(owner, '/api/projects/events');
    const key = `K${unique('')
      .toUpperCase()
      .replace(/[^A-Z0-9]/g, '')
      .slice(-6)}`;
    const created = await owner.post('/api/projects', { name: 'Streamed', key });
    expect(created.statusCode).toBe(201);
    const project = created.json();
    const m = await list.waitForType('project.created');
    expect(m.json?.data).toMatchObject({ id: project.id, key });

    const newcomerList = await connect(newcomer, '/api/projects/events');
    const board = await connect(owner, `/api/projects/${project.id}/events`);
    expect(
      (await owner.post(`/api/projects/${project.id}/members`, { userId: newcomer.userId })).statusCode,
    ).toBeLessThan(300);
    const added = await newcomerList.waitForType('member.added');
    expect(added.json?.data.userId).toBe(newcomer.userId);

    const ticket = await owner.req({
      method: 'POST',
      url: `/api/projects/${project.id}/tickets`,
      payload: { title: 'Live' },
      headers: { 'x-tab-id': 'tab-board' },
    });
    expect(ticket.statusCode).toBe(201);
    const tc = await board.waitForType('ticket.created');
    expect(tc.json).toMatchObject({ tabId: 'tab-board', data: { id: ticket.json().id, title: 'Live' } });
    const newcomerBoard = await connect(newcomer, `/api/projects/${project.id}/events`);
    await owner.patch(`/api/projects/${project.id}/tickets/${ticket.json().id}`, { title: 'Renamed' });
    const tu = await newcomerBoard.waitForType('ticket.updated');
    expect(tu.json?.data).toMatchObject({ id: ticket.json().id, title: 'Renamed' });
  });
});

describe('database events', () => {
  it.each(['database.wiped', 'database.projects.wiped'] as const)(
    'sends %s on all three streams',
    async (type) => {
      const u = await signUp(t.app);
      const p = await makeProject([{ userId: u.userId, role: 'owner' }]);
      const streams = [
        await connect(u, '/api/users/events'),
        await connect(u, '/api/projects/events'),
        await connect(u, `/api/projects/${p.id}/events`),
      ];
      await emit([{ scope: 'all', type, data: {} }]);
      for (const s of streams) {
        const m = await s.waitForType(type);
        expect(m.json?.data).toEqual({});
      }
    },
  );
});

describe('resuming with Last-Event-ID', () => {
  it('replays what was missed, in order, then continues live without repeating anything', async () => {
    const owner = await signUp(t.app);
    const p = await makeProject([{ userId: owner.userId, role: 'owner' }]);
    const first = await connect(owner, `/api/projects/${p.id}/events`);
    await emit([ticketEvent(p.id, 1)]);
    const seen = await first.waitForType('ticket.updated');
    first.close();
    await emit([ticketEvent(p.id, 2)]);
    await emit([{ scope: 'user', type: 'user.updated', userId: owner.userId, data: { id: owner.userId } }]);
    await emit([ticketEvent(p.id, 3), ticketEvent(p.id, 4)]);
    const again = await connect(owner, `/api/projects/${p.id}/events`, { 'last-event-id': seen.id! });
    await emit([ticketEvent(p.id, 5)]);
    await again.until(() => again.events.length >= 4, 5000, 'four events');
    await emit([{ scope: 'all', type: 'database.projects.wiped', data: {} }]);
    await again.waitForType('database.projects.wiped');
    expect(again.events.map((m) => m.json?.data.id ?? m.json?.type)).toEqual([
      'ticket-2',
      'ticket-3',
      'ticket-4',
      'ticket-5',
      'database.projects.wiped',
    ]);
  });

  it('accepts the id as the lastEventId query parameter', async () => {
    const u = await signUp(t.app);
    const s = await connect(u, '/api/users/events');
    await u.patch('/api/me', { name: 'one' });
    const m = await s.waitForType('user.updated');
    s.close();
    await u.patch('/api/me', { name: 'two' });
    const again = await connect(u, `/api/users/events?lastEventId=${m.id}`);
    const replayed = await again.waitForType('user.updated');
    expect(replayed.json?.data.name).toBe('two');
  });

  it('resumes from the id of an empty stream, so nothing is lost before the first event', async () => {
    const u = await signUp(t.app);
    const s = await connect(u, '/api/users/events');
    const primer = s.messages[0].id!;
    s.close();
    await u.patch('/api/me', { name: 'while away' });
    const again = await connect(u, '/api/users/events', { 'last-event-id': primer });
    const m = await again.waitForType('user.updated');
    expect(m.json?.data.name).toBe('while away');
  });

  it('does not replay events the user may not see', async () => {
    const owner = await signUp(t.app);
    const outsider = await signUp(t.app);
    const p = await makeProject([{ userId: owner.userId, role: 'owner' }]);
    const s = await connect(outsider, '/api/projects/events');
    const from = s.messages[0].id!;
    s.close();
    await emit([{ scope: 'projects', type: 'project.updated', projectId: p.id, data: { id: p.id } }]);
    await emit([{ scope: 'all', type: 'database.projects.wiped', data: {} }]);
    const again = await connect(outsider, '/api/projects/events', { 'last-event-id': from });
    await again.waitForType('database.projects.wiped');
    expect(again.events.map((m) => m.json?.type)).toEqual(['database.projects.wiped']);
  });

  it.each(['999999999', 'not-a-number', '-1'])(
    'sends resync first for an unknown id (%s), then live events',
    async (id) => {
      const u = await signUp(t.app);
      const s = await connect(u, '/api/users/events', { 'last-event-id': id });
      expect(s.messages[0].json).toMatchObject({ type: 'resync', data: {} });
      expect(Number(s.messages[0].id)).toBe(await lastLogId());
      await u.patch('/api/me', { name: 'live' });
      await s.waitForType('user.updated');
      expect(s.events.map((m) => m.json?.type)).toEqual(['resync', 'user.updated']);
    },
  );

  it('sends resync when the missed events are older than the replay window', async () => {
    const u = await signUp(t.app);
    const s = await connect(u, '/api/users/events');
    await u.patch('/api/me', { name: 'seen' });
    const seen = await s.waitForType('user.updated');
    s.close();
    await u.patch('/api/me', { name: 'missed long ago' });
    const old = new Date(Date.now() - 11 * 60_000).toISOString();
    await t.app.services.db.kysely
      .updateTable('events')
      .set({ created_at: old })
      .where('id', '>', Number(seen.id))
      .execute();
    const again = await connect(u, '/api/users/events', { 'last-event-id': seen.id! });
    expect(again.events.map((m) => m.json?.type)).toEqual(['resync']);
    expect(again.events.some((m) => m.json?.data?.name === 'missed long ago')).toBe(false);
  });

  it('sends resync when the missed events were pruned', async () => {
    const u = await signUp(t.app);
    const s = await connect(u, '/api/users/events');
    await u.patch('/api/me', { name: 'seen' });
    const seen = await s.waitForType('user.updated');
    s.close();
    await u.patch('/api/me', { name: 'pruned' });
    await u.patch('/api/me', { name: 'kept' });
    const head = await lastLogId();
    await t.app.services.db.kysely.deleteFrom('events').where('id', '<', head).execute();
    const again = await connect(u, '/api/users/events', { 'last-event-id': seen.id! });
    expect(again.events[0].json?.type).toBe('resync');
  });

  it('sends resync instead of replaying more than 10,000 missed log rows', async () => {
    const u = await signUp(t.app);
    const s = await connect(u, '/api/users/events');
    const from = s.messages[0].id!;
    s.close();
    const now = nowIso();
    const row = {
      scope: 'user' as const,
      project_id: null,
      user_id: u.userId,
      type: 'user.updated',
      data: '{}',
      tab_id: null,
      audience: null,
      created_at: now,
    };
    for (let i = 0; i < 21; i++) {
      await t.app.services.db.kysely
        .insertInto('events')
        .values(Array.from({ length: 500 }, () => row))
        .execute();
    }
    const again = await connect(u, '/api/users/events', { 'last-event-id': from });
    expect(again.events.map((m) => m.json?.type)).toEqual(['resync']);
    await t.app.services.db.kysely
      .deleteFrom('events')
      .where('id', '>', Number(from))
      .where('data', '=', '{}')
      .execute();
  });

  it('neither loses nor repeats an event when it connects while events are being written', async () => {
    const u = await signUp(t.app);
    const s = await connect(u, '/api/users/events');
    const from = Number(s.messages[0].id);
    s.close();
    const writes = (async () => {
      for (let i = 0; i < 40; i++)
        await emit([{ scope: 'user', type: 'user.updated', userId: u.userId, data: { n: i } }]);
    })();
    // Not a wait for something: the reconnect is meant to land while the writes are still going on.
    await new Promise((r) => setTimeout(r, 5));
    const again = await connect(u, '/api/users/events', { 'last-event-id': String(from) });
    await writes;
    const expected = (
      await t.app.services.db.kysely
        .selectFrom('events')
        .select('id')
        .where('id', '>', from)
        .where('scope', 'in', ['user', 'all'])
        .orderBy('id')
        .execute()
    ).map((r) => String(r.id));
    await again.until(() => again.events.length >= expected.length, 10_000, `${expected.length} events`);
    expect(again.events.map((m) => m.id)).toEqual(expected);
  });
});

describe('the end of a session ends its streams', () => {
  it('on sign-out, leaving the same user’s other sessions open', async () => {
    const u = await signUp(t.app);
    const other = await signIn(t.app, u.username);
    const s1 = await connect(u, '/api/users/events');
    const s2 = await connect(u, '/api/projects/events');
    const s3 = await connect(other, '/api/users/events');
    expect((await u.post('/api/auth/signout', {})).statusCode).toBe(302);
    await s1.waitForEnd();
    await s2.waitForEnd();
    await other.patch('/api/me', { name: 'still here' });
    await s3.waitForType('user.updated');
    expect(s3.ended).toBe(false);
  });

  it('on a password change, for every session of the user', async () => {
    const u = await signUp(t.app);
    const other = await signIn(t.app, u.username);
    const s1 = await connect(u, '/api/users/events');
    const s2 = await connect(other, '/api/users/events');
    const res = await u.patch('/api/me/password', {
      currentPassword: PASSWORD,
      newPassword: 'Another-horse-43',
    });
    expect(res.statusCode).toBe(200);
    await s1.waitForEnd();
    await s2.waitForEnd();
  });

  it('when an administrator disables the account', async () => {
    const u = await signUp(t.app);
    const s = await connect(u, '/api/users/events');
    const res = await admin.patch(`/api/admin/users/${u.userId}`, { isActive: false });
    expect(res.statusCode).toBe(200);
    await s.waitForEnd();
  });

  it('when the session is deleted elsewhere (another instance), at the next re-validation', async () => {
    const u = await signUp(t.app);
    const s = await connect(u, '/api/users/events');
    await t.app.services.db.kysely.deleteFrom('sessions').where('user_id', '=', u.userId).execute();
    await s.waitForEnd(3000);
  });

  it('when the session expires', async () => {
    const u = await signUp(t.app);
    const s = await connect(u, '/api/users/events');
    const past = new Date(Date.now() - 1000).toISOString();
    await t.app.services.db.kysely
      .updateTable('sessions')
      .set({ expires_at: past })
      .where('user_id', '=', u.userId)
      .execute();
    await s.waitForEnd(3000);
    const again = await stream('/api/users/events', { cookie: u.cookie });
    await again.waitForEnd();
    expect(again.status).toBe(401);
  });

  it('when the API key is revoked', async () => {
    const u = await signUp(t.app);
    const key = (await u.post('/api/me/mcp-key')).json().apiKey;
    const s = await connect(null, '/api/users/events', { authorization: `Bearer ${key}` });
    await u.del('/api/me/mcp-key');
    await s.waitForEnd(3000);
  });
});

describe('the event log', () => {
  it('prunes rows older than the replay window and keeps recent ones', async () => {
    const db = t.app.services.db.kysely;
    const old = new Date(Date.now() - 20 * 60_000).toISOString();
    const inserted = await db
      .insertInto('events')
      .values({
        scope: 'user',
        project_id: null,
        user_id: null,
        type: 'user.updated',
        data: '{}',
        tab_id: null,
        audience: null,
        created_at: old,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    const u = await signUp(t.app);
    await u.patch('/api/me', { name: 'recent' });
    const recent = await lastLogId();
    expect(await pruneEventLog(t.app.services)).toBeGreaterThanOrEqual(1);
    const ids = (await db.selectFrom('events').select('id').execute()).map((r) => Number(r.id));
    expect(ids).not.toContain(Number(inserted.id));
    expect(ids).toContain(recent);
  });

  it('closes open streams when the server closes', async () => {
    const other = await createTestApp();
    const url = await other.app.listen({ port: 0, host: '127.0.0.1' });
    const u = await signUp(other.app);
    const s = await SseClient.open(`${url}/api/users/events`, { cookie: u.cookie });
    await s.until(() => s.messages.length > 0);
    await other.close();
    await s.waitForEnd();
  });
});
