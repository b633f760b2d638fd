/**
 * Who may delete a ticket (issue 23): its reporter or a project admin/owner; a project setting opens
 * it to every member; a bulk deletion checks each ticket and refuses the whole request otherwise.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './helpers/app.js';
import { addMember, makeProject, makeTicket, type ProjectOut } from './helpers/board.js';
import { type Client, signUp } from './helpers/factories.js';

let t: TestApp;
let sysAdmin: Client;
let owner: Client;
let admin: Client;
let member: Client;
let other: Client;
let p: ProjectOut;

beforeAll(async () => {
  t = await createTestApp();
  sysAdmin = await signUp(t.app); // the first account is a system administrator
  owner = await signUp(t.app);
  admin = await signUp(t.app);
  member = await signUp(t.app);
  other = await signUp(t.app);
  p = await makeProject(owner, { name: 'Deletion' });
  await addMember(owner, p.id, admin, 'admin');
  await addMember(owner, p.id, member);
  await addMember(owner, p.id, other);
});
afterAll(async () => t.close());

const url = (rest = '') => `/api/projects/${p.id}/tickets${rest}`;
const exists = async (id: string) => (await owner.get(url(`/${id}`))).statusCode === 200;

describe('deleting one ticket', () => {
  it("refuses a plain member deleting someone else's ticket with 403, and keeps it", async () => {
    const theirs = await makeTicket(other, p.id);
    const res = await member.del(url(`/${theirs.id}`));
    expect(res.statusCode).toBe(403);
    expect(res.json()).toEqual({
      error: 'Only the reporter or a project admin can delete this ticket',
      tickets: [theirs.key],
    });
    expect(await exists(theirs.id)).toBe(true);
  });

  it('lets the reporter delete their own ticket', async () => {
    const mine = await makeTicket(member, p.id);
    expect((await member.del(url(`/${mine.id}`))).statusCode).toBe(200);
    expect(await exists(mine.id)).toBe(false);
  });

  it("lets a project admin, the owner and a system administrator delete anyone's ticket", async () => {
    for (const who of [admin, owner, sysAdmin]) {
      const theirs = await makeTicket(member, p.id);
      expect((await who.del(url(`/${theirs.id}`))).statusCode).toBe(200);
      expect(await exists(theirs.id)).toBe(false);
    }
  });
});

describe('the project setting', () => {
  it('is off by default and only admins may change it', async () => {
    const proj = await makeProject(owner, { name: 'Setting' });
    await addMember(owner, proj.id, member);
    expect((await owner.get(`/api/projects/${proj.id}`)).json().membersMayDeleteTickets).toBe(false);
    const refused = await member.patch(`/api/projects/${proj.id}`, { membersMayDeleteTickets: true });
    expect(refused.statusCode).toBe(403);
    const bad = await owner.patch(`/api/projects/${proj.id}`, { membersMayDeleteTickets: 'yes' });
    expect(bad.statusCode).toBe(400);
    expect((await owner.get(`/api/projects/${proj.id}`)).json().membersMayDeleteTickets).toBe(false);
  });

  it('opens deletion of any ticket to every member, and closes it again', async () => {
    const on = await owner.patch(`/api/projects/${p.id}`, { membersMayDeleteTickets: true });
    expect(on.statusCode).toBe(200);
    expect(on.json().membersMayDeleteTickets).toBe(true);
    const theirs = await makeTicket(other, p.id);
    expect((await member.del(url(`/${theirs.id}`))).statusCode).toBe(200);
    expect(await exists(theirs.id)).toBe(false);

    await owner.patch(`/api/projects/${p.id}`, { membersMayDeleteTickets: false });
    const again = await makeTicket(other, p.id);
    expect((await member.del(url(`/${again.id}`))).statusCode).toBe(403);
    expect(await exists(again.id)).toBe(true);
  });
});

describe('bulk deletion', () => {
  it('checks every ticket: one not allowed refuses all, naming it, and deletes nothing', async () => {
    const mine = await makeTicket(member, p.id);
    const theirs = await makeTicket(other, p.id);
    const res = await member.del(url(), { ticketIds: [mine.id, theirs.id] });
    expect(res.statusCode).toBe(403);
    expect(res.json().tickets).toEqual([theirs.key]);
    expect(await exists(mine.id)).toBe(true);
    expect(await exists(theirs.id)).toBe(true);

    const ok = await member.del(url(), { ticketIds: [mine.id] });
    expect(ok.json()).toMatchObject({ success: true, deleted: 1 });
    const byAdmin = await admin.del(url(), { ticketIds: [theirs.id] });
    expect(byAdmin.json()).toMatchObject({ success: true, deleted: 1 });
  });
});
