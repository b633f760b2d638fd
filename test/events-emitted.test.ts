import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EVENT_TYPES, type EventType } from '../src/shared/events.js';
import { createTestApp, type TestApp } from './helpers/app.js';
import { addMember, columnsOf, makeProject, makeTicket } from './helpers/board.js';
import { type Client, PASSWORD, signUp } from './helpers/factories.js';
import { makePng, multipartBody, upload } from './helpers/files.js';
import { SseClient } from './helpers/sse.js';

/**
 * Every event type of EVENT_PAYLOADS (src/shared/events.ts) is one the app really emits: a walk
 * through the HTTP API, one step per kind of change, while the test records every event the app's
 * hub delivers after a commit (and what an event stream sends by itself: `resync`). A type no use
 * case emits any more fails here, as does a step whose event went missing. The payloads are checked
 * against their schemas on the way (the test app's `checkContracts`).
 */
let t: TestApp;
let base: string;
const seen = new Map<EventType, number>();
let unsubscribe: () => void;

beforeAll(async () => {
  t = await createTestApp();
  unsubscribe = t.app.hub.subscribe((events) => {
    for (const e of events) seen.set(e.type, (seen.get(e.type) ?? 0) + 1);
  });
  base = await t.app.listen({ port: 0, host: '127.0.0.1' });
});
afterAll(async () => {
  unsubscribe();
  await t.close();
});

/** Sends a request and insists on its status, so that a refused step names itself. */
async function ok<T = any>(
  res: Promise<{ statusCode: number; body: string; json(): any }>,
  status = 200,
): Promise<T> {
  const r = await res;
  expect(r.statusCode, r.body).toBe(status);
  return r.body ? r.json() : (undefined as T);
}

/** Waits until the hub has delivered `type` (delivery follows the commit, in id order). */
async function delivered(type: EventType) {
  await expect.poll(() => seen.has(type), { timeout: 10_000, interval: 5 }).toBe(true);
}

const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);

describe('events: every type of the list is emitted by the app', () => {
  it('a walk through the API emits each of EVENT_TYPES, and no other', async () => {
    const owner: Client = await signUp(t.app); // the first account: a system administrator
    const mate: Client = await signUp(t.app);

    // Accounts.
    await ok(owner.patch('/api/me', { name: 'Walker' }));

    // A project, its members, columns, labels and templates.
    const p = await makeProject(owner, { name: 'Walk' });
    const P = `/api/projects/${p.id}`;
    await ok(owner.patch(P, { description: 'Walked through' }));
    const member = await addMember(owner, p.id, mate);
    await ok(owner.patch(`${P}/members/${member.id}`, { role: 'admin' }));
    const column = await ok(owner.post(`${P}/columns`, { name: 'Review' }), 201);
    await ok(owner.patch(`${P}/columns/${column.id}`, { name: 'In review' }));
    await ok(owner.del(`${P}/columns/${column.id}`));
    const label = await ok(owner.post(`${P}/labels`, { name: 'walk' }), 201);
    await ok(owner.patch(`${P}/labels/${label.id}`, { name: 'walked' }));
    await ok(owner.del(`${P}/labels/${label.id}`));
    const template = await ok(owner.post(`${P}/templates`, { name: 'Bug report' }), 201);
    await ok(owner.patch(`${P}/templates/${template.id}`, { name: 'Bug' }));
    await ok(owner.del(`${P}/templates/${template.id}`));

    // Tickets: assigning one to the mate notifies them; they read it.
    const columns = await columnsOf(owner, p.id);
    const ticket = await makeTicket(owner, p.id, { title: 'Walk the board', assigneeId: mate.userId });
    const other = await makeTicket(owner, p.id, { title: 'Its neighbour' });
    const T = `${P}/tickets/${ticket.id}`;
    await ok(owner.patch(T, { title: 'Walk the whole board' }));
    await ok(owner.patch(T, { columnId: columns[1].id, order: 0 }));
    const comment = await ok(owner.post(`${T}/comments`, { content: 'On my way' }), 201);
    await ok(owner.patch(`${T}/comments/${comment.id}`, { content: `On my way, @${mate.username}` }));
    await ok(owner.del(`${T}/comments/${comment.id}`));
    const link = await ok(
      owner.post(`${T}/links`, { targetTicketId: other.id, linkType: 'relates_to' }),
      201,
    );
    await ok(owner.del(`${T}/links/${link.id}`));
    const file = await ok(
      upload(owner, `${T}/attachments`, {
        filename: 'map.png',
        contentType: 'image/png',
        data: await makePng(),
      }),
      201,
    );
    await ok(owner.del(`${T}/attachments/${file.id}`));
    await delivered('notification.created');
    await ok(mate.post('/api/me/notifications/read', { all: true }));

    // Sprints: planned, changed, started, extended, completed; another one deleted.
    const S = `${P}/sprints`;
    const sprint = await ok(owner.post(S, { name: 'Walk 1' }), 201);
    await ok(owner.patch(`${S}/${sprint.id}`, { goal: 'Walk every path' }));
    await ok(owner.post(`${S}/${sprint.id}/start`, { startDate: day(0), endDate: day(7) }));
    await ok(owner.post(`${S}/${sprint.id}/extend`, { newEndDate: day(14) }));
    await ok(owner.post(`${S}/${sprint.id}/complete`, {}));
    const spare = await ok(owner.post(S, { name: 'Walk 2' }), 201);
    await ok(owner.del(`${S}/${spare.id}`));

    // An import, a deletion, a member leaving, a project deleted.
    const csv = multipartBody(
      [{ filename: 'walk.csv', contentType: 'text/csv', data: Buffer.from('title\nImported on the walk\n') }],
      { format: 'csv' },
    );
    await ok(owner.req({ method: 'POST', url: `${P}/imports`, payload: csv.payload, headers: csv.headers }));
    await ok(owner.del(T));
    await ok(owner.del(`${P}/members/${member.id}`));
    const gone = await makeProject(owner, { name: 'Short-lived' });
    await ok(owner.del(`/api/projects/${gone.id}`));

    // `resync` is the stream's own: a client resuming after an id this log never had is told to refetch.
    const stream = await SseClient.open(`${base}/api/projects/events`, {
      cookie: mate.cookie,
      'last-event-id': '999999999999',
    });
    try {
      const resync = await stream.waitForType('resync');
      seen.set(resync.json?.type as EventType, 1);
    } finally {
      stream.close();
    }

    // The administrator's wipes, the projects first, then everything.
    await ok(owner.post('/api/admin/database/wipe-projects', { confirmPassword: PASSWORD }));
    await ok(
      owner.post('/api/admin/database/wipe', { confirmPassword: PASSWORD, confirmation: 'wipe all data' }),
    );
    // Events are delivered in id order: once the last is here, every earlier one is.
    await delivered('database.wiped');

    const missing = EVENT_TYPES.filter((type) => !seen.has(type));
    const unknown = [...seen.keys()].filter((type) => !EVENT_TYPES.includes(type));
    expect({ missing, unknown }).toEqual({ missing: [], unknown: [] });
  });
});
