/**
 * The trash (issue 23, decision 048): a deleted ticket is kept 30 days and can be restored, with
 * the same id, number and key, its comments, labels and attachments, by a project admin or by the
 * user who deleted it; the periodic purge removes it and its files for good.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { purgeExpiredTrash } from '../src/domain/trash.js';
import { createTestApp, type TestApp } from './helpers/app.js';
import { multipart } from './helpers/backup.js';
import {
  addMember,
  columnsOf,
  expectDerivedKept,
  makeProject,
  makeTicket,
  type ProjectOut,
} from './helpers/board.js';
import { type Client, PASSWORD, signIn, signUp } from './helpers/factories.js';
import { makePng, storedFiles, upload } from './helpers/files.js';

let t: TestApp;
let sysAdmin: Client;
let owner: Client;
let admin: Client;
let member: Client;
let other: Client;
let outsider: Client;
let p: ProjectOut;

beforeAll(async () => {
  t = await createTestApp();
  sysAdmin = await signUp(t.app); // the first account is a system administrator
  owner = await signUp(t.app);
  admin = await signUp(t.app);
  member = await signUp(t.app);
  other = await signUp(t.app);
  outsider = await signUp(t.app);
  p = await makeProject(owner, { name: 'Trash' });
  await addMember(owner, p.id, admin, 'admin');
  await addMember(owner, p.id, member);
  await addMember(owner, p.id, other);
}, 60_000);
afterAll(async () => t.close());

const url = (rest = '') => `/api/projects/${p.id}${rest}`;

async function ok<T = any>(
  res: { statusCode: number; body: string; json(): unknown },
  status = 200,
): Promise<T> {
  expect(res.statusCode, res.body).toBe(status);
  return res.json() as T;
}

/** A ticket of `who` with a label, a comment and an attachment. */
async function fullTicket(who: Client, labelName = `label-${Math.random().toString(36).slice(2, 8)}`) {
  const label = await ok(await owner.post(url('/labels'), { name: labelName }), 201);
  const ticket = await makeTicket(who, p.id, { title: 'Keep me', labelIds: [label.id], priority: 'High' });
  await ok(await who.post(url(`/tickets/${ticket.id}/comments`), { content: 'A comment to keep' }), 201);
  const png = await makePng(16, 16);
  const att = await ok(
    await upload(who, url(`/tickets/${ticket.id}/attachments`), {
      filename: 'shot.png',
      contentType: 'image/png',
      data: png,
    }),
    201,
  );
  return { ticket, label, att, png };
}

const trashIdOf = async (who: Client, ticketId: string) =>
  (await ok<{ trashId: string }>(await who.del(url(`/tickets/${ticketId}`)))).trashId;

describe('delete, trash and restore', () => {
  it('keeps a deleted ticket in the trash and restores it with its comments, labels and attachment file', async () => {
    const { ticket, label, att, png } = await fullTicket(member);
    const filesBefore = await storedFiles(t.config, 'attachments');
    const trashId = await trashIdOf(member, ticket.id);
    expect((await member.get(url(`/tickets/${ticket.id}`))).statusCode).toBe(404);
    // The file stays while the ticket is in the trash, but is not served.
    expect(await storedFiles(t.config, 'attachments')).toEqual(filesBefore);
    expect((await member.get(att.url)).statusCode).toBe(404);

    const list = await ok(await admin.get(url('/trash')));
    const entry = list.items.find((i: { id: string }) => i.id === trashId);
    expect(entry).toMatchObject({ ticketId: ticket.id, key: ticket.key, title: 'Keep me' });
    expect(entry.deletedBy.id).toBe(member.userId);
    expect(Date.parse(entry.purgeAt) - Date.parse(entry.deletedAt)).toBe(30 * 86_400_000);
    // Not found by search while trashed.
    const found = await ok(
      await member.get(`/api/search?q=${encodeURIComponent('Keep me')}&projectId=${p.id}`),
    );
    expect(JSON.stringify(found)).not.toContain(ticket.id);

    const out = await ok(await member.post(url(`/trash/${trashId}/restore`)));
    expect(out.notes).toEqual([]);
    expect(out.ticket).toMatchObject({
      id: ticket.id,
      number: ticket.number,
      key: ticket.key,
      priority: 'High',
    });
    expect(out.ticket.labels.map((l: { id: string }) => l.id)).toEqual([label.id]);
    const back = await ok(await member.get(url(`/tickets/${ticket.id}`)));
    expect(back.key).toBe(ticket.key);
    const comments = await ok(await member.get(url(`/tickets/${ticket.id}/comments`)));
    expect(JSON.stringify(comments)).toContain('A comment to keep');
    const atts = await ok(await member.get(url(`/tickets/${ticket.id}/attachments`)));
    const items = Array.isArray(atts) ? atts : atts.items;
    expect(items.map((a: { id: string }) => a.id)).toEqual([att.id]);
    const file = await member.get(att.url);
    expect(file.statusCode).toBe(200);
    expect(Buffer.compare(file.rawPayload, png)).toBe(0);
    // Gone from the trash; found by search again.
    expect(
      (await ok(await admin.get(url('/trash')))).items.some((i: { id: string }) => i.id === trashId),
    ).toBe(false);
    expect((await member.post(url(`/trash/${trashId}/restore`))).statusCode).toBe(404);
  });

  it('puts the restored ticket at the end of its column and keeps numbers unique', async () => {
    const a = await makeTicket(owner, p.id, { title: 'First' });
    const trashId = await trashIdOf(owner, a.id);
    const b = await makeTicket(owner, p.id, { title: 'After' });
    expect(b.number).toBeGreaterThan(a.number);
    const out = await ok(await owner.post(url(`/trash/${trashId}/restore`)));
    expect(out.ticket.number).toBe(a.number);
    const board = await ok(await owner.get(url(`/tickets?columnId=${a.columnId}`)));
    const list = Array.isArray(board) ? board : board.items;
    const ids = list.map((x: { id: string }) => x.id);
    expect(ids.indexOf(a.id)).toBeGreaterThan(ids.indexOf(b.id));
    await expectDerivedKept(t.app.services.db);
  });

  it('bulk delete trashes each ticket', async () => {
    const a = await makeTicket(owner, p.id);
    const b = await makeTicket(owner, p.id);
    const out = await ok(await owner.del(url('/tickets'), { ticketIds: [a.id, b.id] }));
    expect(out.deleted).toBe(2);
    expect(out.trashIds).toHaveLength(2);
    for (const id of out.trashIds) await ok(await owner.post(url(`/trash/${id}/restore`)));
    expect((await owner.get(url(`/tickets/${a.id}`))).statusCode).toBe(200);
    expect((await owner.get(url(`/tickets/${b.id}`))).statusCode).toBe(200);
  });

  it('puts a ticket in the trash once when deletions of it race (the others answer 404)', async () => {
    const a = await makeTicket(owner, p.id);
    const answers = await Promise.all([
      owner.del(url(`/tickets/${a.id}`)),
      owner.del(url(`/tickets/${a.id}`)),
      owner.del(url('/tickets'), { ticketIds: [a.id] }),
      owner.del(url(`/tickets/${a.id}`)),
    ]);
    const codes = answers.map((r) => r.statusCode);
    expect(
      codes.filter((c) => c === 200),
      JSON.stringify(codes),
    ).toHaveLength(1);
    expect(
      codes.every((c) => c === 200 || c === 404 || c === 400),
      JSON.stringify(codes),
    ).toBe(true);
    const entries = await ok(await owner.get(url(`/trash?ticket=${a.key}`)));
    expect(entries.items).toHaveLength(1);
  });

  it('gives subtasks their parent back when it is restored', async () => {
    const parent = await makeTicket(owner, p.id, { type: 'Story' });
    const child = await makeTicket(owner, p.id, { parentId: parent.id, type: 'Subtask' });
    const trashId = await trashIdOf(owner, parent.id);
    expect((await ok(await owner.get(url(`/tickets/${child.id}`)))).parentId).toBeNull();
    await ok(await owner.post(url(`/trash/${trashId}/restore`)));
    expect((await ok(await owner.get(url(`/tickets/${child.id}`)))).parentId).toBe(parent.id);
  });
});

describe('who may see and restore', () => {
  it("refuses a member who didn't delete it (403), allows the deleter and an admin, hides it from non-members (404)", async () => {
    const mine = await makeTicket(other, p.id);
    const trashId = await trashIdOf(other, mine.id);
    expect((await member.post(url(`/trash/${trashId}/restore`))).statusCode).toBe(403);
    expect((await outsider.post(url(`/trash/${trashId}/restore`))).statusCode).toBe(404);
    expect((await outsider.get(url('/trash'))).statusCode).toBe(404);
    // A member lists only what they deleted; an admin everything.
    const theirs = await ok(await member.get(url('/trash')));
    expect(theirs.items.some((i: { id: string }) => i.id === trashId)).toBe(false);
    expect((await ok(await other.get(url('/trash')))).items.map((i: { id: string }) => i.id)).toContain(
      trashId,
    );
    expect((await member.del(url(`/trash/${trashId}`))).statusCode).toBe(403);
    expect((await other.del(url(`/trash/${trashId}`))).statusCode).toBe(403);
    await ok(await other.post(url(`/trash/${trashId}/restore`)));

    const again = await trashIdOf(other, mine.id);
    await ok(await admin.post(url(`/trash/${again}/restore`)));
  });

  it('answers 404 for a trash entry of another project', async () => {
    const q = await makeProject(owner, { name: 'Elsewhere' });
    const x = await makeTicket(owner, q.id);
    const trashId = (await ok(await owner.del(`/api/projects/${q.id}/tickets/${x.id}`))).trashId;
    expect((await owner.post(url(`/trash/${trashId}/restore`))).statusCode).toBe(404);
  });
});

describe('restore after changes', () => {
  it('falls back to the first column and drops a deleted label, saying so', async () => {
    const col = await ok(await owner.post(url('/columns'), { name: `Gone-${Date.now()}` }), 201);
    const label = await ok(await owner.post(url('/labels'), { name: `doomed-${Date.now()}` }), 201);
    const ticket = await makeTicket(owner, p.id, { columnId: col.id, labelIds: [label.id] });
    const trashId = await trashIdOf(owner, ticket.id);
    await ok(await owner.del(url(`/columns/${col.id}`)));
    await ok(await owner.del(url(`/labels/${label.id}`)));
    const out = await ok(await owner.post(url(`/trash/${trashId}/restore`)));
    const first = (await columnsOf(owner, p.id))[0];
    expect(out.ticket.columnId).toBe(first.id);
    expect(out.ticket.labels).toEqual([]);
    expect(out.notes.join(' ')).toContain('column');
    expect(out.notes.join(' ')).toContain(label.name);
  });

  it('drops a link to a ticket deleted meanwhile and clears an assignee who left', async () => {
    const leaver = await signUp(t.app);
    const m = await addMember(owner, p.id, leaver);
    const a = await makeTicket(owner, p.id, { assigneeId: leaver.userId });
    const b = await makeTicket(owner, p.id);
    await ok(
      await owner.post(url(`/tickets/${a.id}/links`), { targetTicketId: b.id, linkType: 'blocks' }),
      201,
    );
    const trashId = await trashIdOf(owner, a.id);
    await trashIdOf(owner, b.id);
    await ok(await owner.del(url(`/members/${m.id}`)));
    const out = await ok(await owner.post(url(`/trash/${trashId}/restore`)));
    expect(out.ticket.links).toEqual([]);
    expect(out.ticket.assigneeId).toBeNull();
    expect(out.notes.length).toBeGreaterThanOrEqual(2);
  });
});

describe('purge', () => {
  it('removes entries older than 30 days with their files, and leaves newer ones', async () => {
    const { ticket, att } = await fullTicket(owner);
    const fresh = await makeTicket(owner, p.id);
    const oldId = await trashIdOf(owner, ticket.id);
    const freshId = await trashIdOf(owner, fresh.id);
    const stored = await t.app.services.db.kysely
      .selectFrom('trashed_files')
      .select('stored_name')
      .where('trash_id', '=', oldId)
      .execute();
    expect(stored).toHaveLength(1);
    expect(await storedFiles(t.config, 'attachments')).toContain(stored[0].stored_name);
    // Move the clock: deleted 31 days ago.
    await t.app.services.db.kysely
      .updateTable('trashed_tickets')
      .set({ deleted_at: new Date(Date.now() - 31 * 86_400_000).toISOString() })
      .where('id', '=', oldId)
      .execute();
    expect(await purgeExpiredTrash(t.app.services)).toBe(1);
    expect(await purgeExpiredTrash(t.app.services)).toBe(0);
    expect(await storedFiles(t.config, 'attachments')).not.toContain(stored[0].stored_name);
    const left = await t.app.services.db.kysely.selectFrom('trashed_tickets').select('id').execute();
    expect(left.map((r) => r.id)).toContain(freshId);
    expect(left.map((r) => r.id)).not.toContain(oldId);
    expect((await owner.post(url(`/trash/${oldId}/restore`))).statusCode).toBe(404);
    expect((await owner.get(att.url)).statusCode).toBe(404);
    const audit = await t.app.services.db.kysely
      .selectFrom('audit_log')
      .select(['action', 'actor_id'])
      .where('target_id', '=', ticket.id)
      .execute();
    expect(audit.map((a) => a.action).sort()).toEqual(['ticket.deleted', 'ticket.purged']);
  });

  it('deletes an entry for good on an admin request', async () => {
    const { ticket } = await fullTicket(owner);
    const trashId = await trashIdOf(owner, ticket.id);
    const name = (
      await t.app.services.db.kysely
        .selectFrom('trashed_files')
        .select('stored_name')
        .where('trash_id', '=', trashId)
        .executeTakeFirstOrThrow()
    ).stored_name;
    await ok(await admin.del(url(`/trash/${trashId}`)));
    expect(await storedFiles(t.config, 'attachments')).not.toContain(name);
    expect((await admin.del(url(`/trash/${trashId}`))).statusCode).toBe(404);
  });

  it('two purges at once remove each entry once', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push(await trashIdOf(owner, (await makeTicket(owner, p.id)).id));
    await t.app.services.db.kysely
      .updateTable('trashed_tickets')
      .set({ deleted_at: new Date(Date.now() - 40 * 86_400_000).toISOString() })
      .where('id', 'in', ids)
      .execute();
    const [x, y] = await Promise.all([purgeExpiredTrash(t.app.services), purgeExpiredTrash(t.app.services)]);
    expect(x + y).toBe(3);
  });
});

describe('undo of an edit', () => {
  it('changes a ticket with ifUpdatedAt only if nobody changed it since, else 409', async () => {
    const tk = await makeTicket(owner, p.id, { priority: 'Low' });
    const mine = await ok(await owner.patch(url(`/tickets/${tk.id}`), { priority: 'High' }));
    const undo = await ok(
      await owner.patch(url(`/tickets/${tk.id}`), { priority: 'Low', ifUpdatedAt: mine.updatedAt }),
    );
    expect(undo.priority).toBe('Low');
    const again = await ok(await owner.patch(url(`/tickets/${tk.id}`), { priority: 'High' }));
    await new Promise((r) => setTimeout(r, 5));
    await ok(await member.patch(url(`/tickets/${tk.id}`), { title: 'Someone else' }));
    const refused = await owner.patch(url(`/tickets/${tk.id}`), {
      priority: 'Low',
      ifUpdatedAt: again.updatedAt,
    });
    expect(refused.statusCode).toBe(409);
    expect(refused.json().error).toBe('The ticket was changed since; reload it to see the change');
    expect((await ok(await owner.get(url(`/tickets/${tk.id}`)))).priority).toBe('High');
  });
});

describe('deleting the project', () => {
  it('removes the files its trash kept', async () => {
    const q = await makeProject(owner, { name: 'Gone with its trash' });
    const tk = await makeTicket(owner, q.id);
    const att = await ok(
      await upload(owner, `/api/projects/${q.id}/tickets/${tk.id}/attachments`, {
        filename: 'x.png',
        contentType: 'image/png',
        data: await makePng(8, 8),
      }),
      201,
    );
    const trashId = (await ok(await owner.del(`/api/projects/${q.id}/tickets/${tk.id}`))).trashId;
    const name = att.url.split('/').pop();
    expect(await storedFiles(t.config, 'attachments')).toContain(name);
    const res = await owner.del(`/api/projects/${q.id}`, { confirmation: q.key });
    expect(res.statusCode, res.body).toBe(200);
    expect(await storedFiles(t.config, 'attachments')).not.toContain(name);
    const left = await t.app.services.db.kysely
      .selectFrom('trashed_tickets')
      .select('id')
      .where('id', '=', trashId)
      .execute();
    expect(left).toEqual([]);
  });
});

// Last: it replaces the whole database.
describe('backup', () => {
  it('carries the trash and its files: after export, wipe and import a trashed ticket restores with its file', async () => {
    const { ticket, att, png } = await fullTicket(owner);
    const trashId = await trashIdOf(owner, ticket.id);
    const exported = await sysAdmin.post('/api/admin/database/export', { confirmPassword: PASSWORD });
    expect(exported.statusCode).toBe(200);
    const wipe = await sysAdmin.post('/api/admin/database/wipe', {
      confirmPassword: PASSWORD,
      confirmation: 'wipe all data',
    });
    expect(wipe.statusCode, wipe.body).toBe(200);
    const admin = await signIn(t.app, 'admin', wipe.json().newAdminCredentials.temporaryPassword);
    const imported = await admin.req({
      method: 'POST',
      url: '/api/admin/database/import',
      ...multipart(
        { confirmPassword: wipe.json().newAdminCredentials.temporaryPassword },
        { content: exported.body },
      ),
    });
    expect(imported.statusCode, imported.body).toBe(200);
    const again = await signIn(t.app, owner.username);
    const out = await ok(await again.post(url(`/trash/${trashId}/restore`)));
    expect(out.ticket.key).toBe(ticket.key);
    const file = await again.get(att.url);
    expect(file.statusCode).toBe(200);
    expect(Buffer.compare(file.rawPayload, png)).toBe(0);
  });
});
