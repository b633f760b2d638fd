import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../src/domain/ids.js';
import { presentTicketsFull } from '../src/domain/presenters/tickets.js';
import { createTestApp, type TestApp } from './helpers/app.js';
import { addMember, makeProject, makeTicket, type ProjectOut } from './helpers/board.js';
import { type Client, signUp } from './helpers/factories.js';

/**
 * The GET of a ticket answers JSON built by the database (src/domain/presenters/ticket-json.ts,
 * issue 47); the writes answer the presenter's objects (presentTicketsFull). Both are the one
 * contract: for tickets with every kind of field, the two answers are the same.
 */
let t: TestApp;
let owner: Client;
let ann: Client;
let p: ProjectOut;
let other: ProjectOut;

beforeAll(async () => {
  t = await createTestApp();
  owner = await signUp(t.app, { name: 'Owner Person' });
  ann = await signUp(t.app); // no display name: the username shows
  p = await makeProject(owner, { name: 'JSON' });
  other = await makeProject(owner, { name: 'Elsewhere' });
  await addMember(owner, p.id, ann);
});
afterAll(async () => t.close());

const k = () => t.app.services.db.kysely;

/** The presenter's answer for the owner (who reads every project linked here). */
async function presented(projectKey: string, id: string) {
  const [view] = await presentTicketsFull(k(), projectKey, [id], { userId: owner.userId, readsAll: false });
  return JSON.parse(JSON.stringify(view));
}

async function fetched(projectId: string, ref: string) {
  const res = await owner.get(`/api/projects/${projectId}/tickets/${ref}`);
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
}

describe("the GET of a ticket, built by the database, and the presenter's answer", () => {
  it('are the same for a bare ticket and one with every field', async () => {
    const label = async (name: string) =>
      (await owner.post(`/api/projects/${p.id}/labels`, { name, color: '#0EA5E9' })).json().id as string;
    const labels = [await label('zeta'), await label('alpha'), await label('Mid "quoted"')];
    const sprint = (await owner.post(`/api/projects/${p.id}/sprints`, { name: 'Sprint → one' })).json();
    const bare = await makeTicket(owner, p.id, { title: 'Bare' });
    const parent = await makeTicket(owner, p.id, { title: 'Parent', type: 'Epic' });
    const full = await makeTicket(owner, p.id, {
      title: 'Every "field" \\ here',
      description: 'Line one\nLine two\ttabbed, an emoji 😀, an arrow →, a control \u0001 and \u2028 there.',
      type: 'Bug',
      priority: 'Critical',
      assigneeId: ann.userId,
      labelIds: labels,
      sprintId: sprint.id,
      parentId: parent.id,
      storyPoints: 8,
      estimate: '3d',
      startDate: '2026-12-01',
      dueDate: '2026-12-24',
      environment: 'Firefox 140',
      affectedVersion: '1.2',
      fixVersion: '1.3',
      watcherIds: [ann.userId],
    });
    const elsewhere = await makeTicket(owner, other.id, { title: 'In another project' });
    const linked = await makeTicket(owner, p.id, { title: 'Linked' });
    const links = [
      { from: full.id, to: linked.id, linkType: 'blocks' },
      { from: linked.id, to: full.id, linkType: 'duplicates' },
      { from: full.id, to: elsewhere.id, linkType: 'relates_to' },
    ];
    for (const l of links) {
      const res = await owner.post(`/api/projects/${p.id}/tickets/${l.from}/links`, {
        targetTicketId: l.to,
        linkType: l.linkType,
      });
      expect(res.statusCode, res.body).toBe(201);
    }
    await owner.post(`/api/projects/${p.id}/tickets/${full.id}/comments`, { content: 'One' });
    await owner.post(`/api/projects/${p.id}/tickets/${full.id}/comments`, { content: 'Two' });
    // What the API does not set: an attachment, an avatar, a carried-over past.
    await k()
      .insertInto('attachments')
      .values({
        id: newId(),
        ticket_id: full.id,
        uploader_id: owner.userId,
        filename: 'a.txt',
        mime_type: 'text/plain',
        size: 3,
        stored_name: 'a.txt',
        created_at: new Date().toISOString(),
      })
      .execute();
    await k().updateTable('users').set({ avatar: 'ann.webp' }).where('id', '=', ann.userId).execute();
    await k()
      .updateTable('tickets')
      .set({ is_carried_over: 1, carried_from_sprint_id: sprint.id, carried_over_count: 2 })
      .where('id', '=', full.id)
      .execute();
    for (const ticket of [bare, parent, full, linked]) {
      const got = await fetched(p.id, ticket.id);
      expect(got).toEqual(await presented(p.key, ticket.id));
      // By key too.
      expect(await fetched(p.id, ticket.key)).toEqual(got);
    }
    const got = await fetched(p.id, full.id);
    expect(got.links).toHaveLength(3);
    expect(got.labels.map((l: { name: string }) => l.name)).toEqual(['Mid "quoted"', 'alpha', 'zeta']); // by name, as stored
    expect(got).toMatchObject({ isCarriedOver: true, attachmentCount: 1, commentCount: 2 });
    expect(got.assignee.avatar).toBe('/uploads/avatars/ann.webp');
    expect(await fetched(other.id, elsewhere.id)).toEqual(await presented(other.key, elsewhere.id));
  });

  it('are the same when the reporter and the assignee are gone', async () => {
    const ticket = await makeTicket(owner, p.id, { title: 'Orphan', assigneeId: ann.userId });
    await k().updateTable('tickets').set({ reporter_id: null }).where('id', '=', ticket.id).execute();
    await k().deleteFrom('ticket_watchers').where('ticket_id', '=', ticket.id).execute();
    const got = await fetched(p.id, ticket.id);
    expect(got).toEqual(await presented(p.key, ticket.id));
    expect(got.reporter).toEqual({ id: null, name: 'Deleted user', avatar: null });
    expect(got.watchers).toEqual([]);
  });
});
