/**
 * Issue 19: each finding of the probe, tried as the attacker did. Each test failed before its fix.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './helpers/app.js';
import { addMember, makeProject, makeTicket } from './helpers/board.js';
import { type Client, signUp } from './helpers/factories.js';

let t: TestApp;
let admin: Client;

beforeAll(async () => {
  t = await createTestApp();
  admin = await signUp(t.app); // the first account is a system administrator
});
afterAll(async () => t.close());

const db = () => t.app.services.db.kysely;

describe('finding 1: a linked ticket of another project', () => {
  it('shows nothing of a ticket the reader cannot see, in reads, answers and events', async () => {
    const both = await signUp(t.app);
    const onlyA = await signUp(t.app);
    const pa = await makeProject(both, { name: 'A' });
    const pb = await makeProject(both, { name: 'B' });
    const bMember = await addMember(both, pb.id, onlyA);
    await addMember(both, pa.id, onlyA);
    const a1 = await makeTicket(both, pa.id, { title: 'Public A' });
    const b1 = await makeTicket(both, pb.id, { title: 'Secret B', priority: 'Critical' });
    const linked = await both.post(`/api/projects/${pa.id}/tickets/${a1.id}/links`, {
      targetTicketId: b1.key,
      linkType: 'blocks',
    });
    expect(linked.statusCode, linked.body).toBe(201);
    const read = (c: Client) => c.get(`/api/projects/${pa.id}/tickets/${a1.id}`);
    // A member of both sees it; so does the member of A while still in B.
    expect((await read(both)).json().links[0].ticket.title).toBe('Secret B');
    expect((await read(onlyA)).json().links[0].ticket.title).toBe('Secret B');
    // Removed from B: the link shows nothing of B-1 any more.
    const removed = await both.del(`/api/projects/${pb.id}/members/${bMember.id}`);
    expect(removed.statusCode, removed.body).toBe(200);
    const after = await read(onlyA);
    expect(after.statusCode).toBe(200);
    expect(after.json().links).toEqual([]);
    expect(after.body).not.toContain('Secret B');
    expect(after.body).not.toContain(b1.id);
    // The member of both still sees it (the kept read is the same text for both).
    expect((await read(both)).json().links).toHaveLength(1);
    // An update's answer is filtered for its caller.
    const patched = await onlyA.patch(`/api/projects/${pa.id}/tickets/${a1.id}`, { title: 'Public A2' });
    expect(patched.statusCode, patched.body).toBe(200);
    expect(patched.body).not.toContain('Secret B');
    const bulk = await onlyA.patch(`/api/projects/${pa.id}/tickets`, {
      ticketIds: [a1.id],
      updates: { priority: 'High' },
    });
    expect(bulk.statusCode, bulk.body).toBe(200);
    expect(bulk.body).not.toContain('Secret B');
    // Project A's events (read by every member of A) never name B-1's fields.
    const events = await db()
      .selectFrom('events')
      .select(['type', 'data'])
      .where('project_id', '=', pa.id)
      .execute();
    expect(events.length).toBeGreaterThan(2);
    for (const e of events) {
      expect(e.data).not.toContain('Secret B');
      expect(e.data).not.toContain('Critical');
    }
    // A system administrator reads every project.
    expect((await read(admin)).json().links[0].ticket.title).toBe('Secret B');
  });
});
