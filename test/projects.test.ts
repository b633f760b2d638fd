import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PALETTE } from '../src/shared/limits.js';
import { createTestApp, type TestApp } from './helpers/app.js';
import { addMember, columnsOf, makeProject, makeTicket, newKey } from './helpers/board.js';
import { type Client, signUp } from './helpers/factories.js';

let t: TestApp;
let admin: Client;
let owner: Client;
let other: Client;
beforeAll(async () => {
  t = await createTestApp();
  admin = await signUp(t.app); // the first account is a system administrator
  owner = await signUp(t.app, { name: 'Olivia Owner' });
  other = await signUp(t.app);
});
afterAll(async () => t.close());

const events = (type: string, projectId?: string) => {
  let q = t.app.services.db.kysely.selectFrom('events').selectAll().where('type', '=', type);
  if (projectId) q = q.where('project_id', '=', projectId);
  return q.orderBy('id').execute();
};

describe('projects', () => {
  it('creates a project with the caller as owner, default columns, sprint settings and a palette colour', async () => {
    const res = await owner.post('/api/projects', { name: 'Alpha', key: 'alp1', description: 'First' });
    expect(res.statusCode).toBe(201);
    const p = res.json();
    expect(p).toMatchObject({ name: 'Alpha', key: 'ALP1', description: 'First' });
    expect(Object.keys(p).sort()).toEqual([
      'color',
      'createdAt',
      'description',
      'id',
      'key',
      'membersMayDeleteTickets',
      'name',
      'updatedAt',
    ]);
    expect(p.membersMayDeleteTickets).toBe(false);
    expect(PALETTE).toContain(p.color);
    const cols = await columnsOf(owner, p.id);
    expect(cols.map((c) => [c.name, c.order])).toEqual([
      ['To Do', 0],
      ['In Progress', 1],
      ['Done', 2],
    ]);
    const members = (await owner.get(`/api/projects/${p.id}/members`)).json();
    expect(members).toEqual([
      expect.objectContaining({
        userId: owner.userId,
        projectId: p.id,
        role: 'owner',
        user: expect.objectContaining({
          id: owner.userId,
          username: owner.username,
          name: 'Olivia Owner',
          avatar: null,
        }),
      }),
    ]);
    const settings = await t.app.services.db.kysely
      .selectFrom('sprint_settings')
      .selectAll()
      .where('project_id', '=', p.id)
      .executeTakeFirst();
    expect(settings).toMatchObject({ default_sprint_duration: 2, auto_carry_over: 0, done_column_ids: '[]' });
    const ev = await events('project.created', p.id);
    expect(ev).toHaveLength(1);
    expect(ev[0].scope).toBe('projects');
  });

  it('keeps a given colour in upper case and refuses a bad one', async () => {
    const p = await makeProject(owner, { color: '#a1b2c3' });
    expect(p.color).toBe('#A1B2C3');
    const bad = await owner.post('/api/projects', { name: 'X', key: newKey(), color: 'red' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().details[0].path).toBe('color');
  });

  it.each([['a'], ['TOOLONGKEY11'], ['AB-C'], ['']])('refuses key %j with 400 naming key', async (key) => {
    const res = await owner.post('/api/projects', { name: 'X', key });
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toBe('Validation failed');
    expect(res.json().details.map((d: { path: string }) => d.path)).toContain('key');
  });

  it('refuses a blank name and a missing key', async () => {
    const res = await owner.post('/api/projects', { name: '   ' });
    expect(res.statusCode).toBe(400);
    const paths = res.json().details.map((d: { path: string }) => d.path);
    expect(paths).toEqual(expect.arrayContaining(['name', 'key']));
  });

  it('refuses a key that exists in any letter case with 409', async () => {
    const p = await makeProject(owner);
    const res = await other.post('/api/projects', { name: 'Dup', key: p.key.toLowerCase() });
    expect(res.statusCode).toBe(409);
    expect(res.json()).toEqual({ error: 'Project key already exists' });
  });

  it('gives each of several concurrent creations with one key a single winner', async () => {
    const key = newKey('C');
    const results = await Promise.all(
      [owner, other, owner, other].map((c) => c.post('/api/projects', { name: 'Race', key })),
    );
    expect(results.map((r) => r.statusCode).sort()).toEqual([201, 409, 409, 409]);
  });

  it('lists only the projects the caller belongs to, by name, with paging; admins see all', async () => {
    const u = await signUp(t.app);
    await makeProject(u, { name: 'zeta' });
    await makeProject(u, { name: 'Beta' });
    await makeProject(u, { name: 'alpha' });
    await makeProject(other, { name: 'Hidden' });
    const res = await u.get('/api/projects');
    expect(res.json().map((p: { name: string }) => p.name)).toEqual(['alpha', 'Beta', 'zeta']);
    expect(res.headers['x-total-count']).toBe('3');
    const page = await u.get('/api/projects?limit=1&offset=1');
    expect(page.json().map((p: { name: string }) => p.name)).toEqual(['Beta']);
    expect(page.headers['x-total-count']).toBe('3');
    const all = await admin.get('/api/projects');
    expect(all.json().map((p: { name: string }) => p.name)).toContain('Hidden');
  });

  it('reads a project by id or by key in any case; non-members get 404', async () => {
    const p = await makeProject(owner);
    expect((await owner.get(`/api/projects/${p.id}`)).json().id).toBe(p.id);
    expect((await owner.get(`/api/projects/${p.key.toLowerCase()}`)).json().id).toBe(p.id);
    const res = await other.get(`/api/projects/${p.key}`);
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ error: 'Project not found' });
    expect((await owner.get('/api/projects/NOPE99')).statusCode).toBe(404);
    expect((await admin.get(`/api/projects/${p.key}`)).statusCode).toBe(200);
  });

  it('hides every project path from non-members with 404', async () => {
    const p = await makeProject(owner);
    const paths: [string, string, unknown?][] = [
      ['GET', `/api/projects/${p.id}/columns`],
      ['GET', `/api/projects/${p.id}/members`],
      ['GET', `/api/projects/${p.id}/labels`],
      ['POST', `/api/projects/${p.id}/labels`, { name: 'x' }],
      ['PATCH', `/api/projects/${p.id}`, { name: 'x' }],
      ['DELETE', `/api/projects/${p.id}`],
      ['POST', `/api/projects/${p.id}/columns`, { name: 'x' }],
      ['POST', `/api/projects/${p.id}/members`, { userId: other.userId }],
      ['GET', `/api/projects/${p.id}/tickets`],
      ['POST', `/api/projects/${p.id}/tickets`, { title: 'x' }],
    ];
    for (const [method, url, payload] of paths) {
      const res = await other.req({ method: method as 'GET', url, payload: payload as never });
      expect(res.statusCode, `${method} ${url}`).toBe(404);
      expect(res.json().error).toBe('Project not found');
    }
  });

  it('lets admins and the owner update, never the key; members get 403', async () => {
    const p = await makeProject(owner);
    const m = await signUp(t.app);
    const a = await signUp(t.app);
    await addMember(owner, p.id, m, 'member');
    await addMember(owner, p.id, a, 'admin');
    const denied = await m.patch(`/api/projects/${p.id}`, { name: 'No' });
    expect(denied.statusCode).toBe(403);
    expect(denied.json()).toEqual({ error: 'Forbidden' });
    const ok = await a.patch(`/api/projects/${p.id}`, {
      name: 'Renamed',
      description: null,
      color: '#00ff00',
    });
    expect(ok.statusCode).toBe(200);
    expect(ok.json()).toMatchObject({ name: 'Renamed', description: null, color: '#00FF00', key: p.key });
    expect(ok.json().updatedAt >= ok.json().createdAt).toBe(true);
    const same = await owner.patch(`/api/projects/${p.id}`, { key: p.key.toLowerCase() });
    expect(same.statusCode).toBe(200);
    const key = await owner.patch(`/api/projects/${p.id}`, { key: 'OTHER1' });
    expect(key.statusCode).toBe(400);
    expect(key.json().details[0]).toEqual({ path: 'key', message: 'The project key cannot change' });
    expect((await events('project.updated', p.id)).length).toBe(1);
  });

  it('lets only the owner delete; it removes tickets, columns and attachment files and tells the former members', async () => {
    const p = await makeProject(owner);
    const a = await signUp(t.app);
    await addMember(owner, p.id, a, 'admin');
    const ticket = await makeTicket(owner, p.id);
    const stored = `${Date.now()}-abcdef.txt`;
    await t.app.services.files.write('attachments', stored, Buffer.from('hello'));
    await t.app.services.db.kysely
      .insertInto('attachments')
      .values({
        id: `att-${stored}`,
        ticket_id: ticket.id,
        uploader_id: owner.userId,
        filename: 'a.txt',
        mime_type: 'text/plain',
        size: 5,
        stored_name: stored,
        created_at: new Date().toISOString(),
      })
      .execute();
    expect((await a.del(`/api/projects/${p.id}`)).statusCode).toBe(403);
    const res = await owner.del(`/api/projects/${p.key}`);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ success: true });
    expect((await owner.get(`/api/projects/${p.id}`)).statusCode).toBe(404);
    const db = t.app.services.db.kysely;
    expect(await db.selectFrom('tickets').select('id').where('project_id', '=', p.id).execute()).toEqual([]);
    expect(await db.selectFrom('columns').select('id').where('project_id', '=', p.id).execute()).toEqual([]);
    expect(await t.app.services.files.stat('attachments', stored)).toBeNull();
    const [ev] = await events('project.deleted', p.id);
    expect(JSON.parse(ev.data)).toEqual({ id: p.id });
    expect(JSON.parse(ev.audience ?? '[]').sort()).toEqual([owner.userId, a.userId].sort());
  });
});

describe('columns', () => {
  it('gives an empty board the default columns when listed', async () => {
    const p = await makeProject(owner);
    await t.app.services.db.kysely.deleteFrom('columns').where('project_id', '=', p.id).execute();
    const cols = await columnsOf(owner, p.id);
    expect(cols.map((c) => c.name)).toEqual(['To Do', 'In Progress', 'Done']);
  });

  it('creates at the end or at an order, shifting the others; names unique ignoring case', async () => {
    const p = await makeProject(owner);
    const end = await owner.post(`/api/projects/${p.id}/columns`, { name: 'Review' });
    expect(end.statusCode).toBe(201);
    expect(end.json()).toMatchObject({ name: 'Review', order: 3 });
    const first = await owner.post(`/api/projects/${p.id}/columns`, { name: 'Backlog', order: 0 });
    expect(first.json().order).toBe(0);
    const far = await owner.post(`/api/projects/${p.id}/columns`, { name: 'Far', order: 99 });
    expect(far.json().order).toBe(5);
    expect((await columnsOf(owner, p.id)).map((c) => `${c.order}:${c.name}`)).toEqual([
      '0:Backlog',
      '1:To Do',
      '2:In Progress',
      '3:Done',
      '4:Review',
      '5:Far',
    ]);
    const dup = await owner.post(`/api/projects/${p.id}/columns`, { name: 'review' });
    expect(dup.statusCode).toBe(409);
    expect(dup.json()).toEqual({ error: 'Column already exists' });
    const blank = await owner.post(`/api/projects/${p.id}/columns`, { name: ' ' });
    expect(blank.statusCode).toBe(400);
    expect((await events('column.created', p.id)).length).toBe(3);
  });

  it('renames and reorders keeping orders 0..n-1', async () => {
    const p = await makeProject(owner);
    const [todo, doing, done] = await columnsOf(owner, p.id);
    const moved = await owner.patch(`/api/projects/${p.id}/columns/${done.id}`, {
      order: 0,
      name: 'Finished',
    });
    expect(moved.json()).toEqual({ id: done.id, name: 'Finished', order: 0 });
    expect((await columnsOf(owner, p.id)).map((c) => c.id)).toEqual([done.id, todo.id, doing.id]);
    await owner.patch(`/api/projects/${p.id}/columns/${done.id}`, { order: 10 });
    expect((await columnsOf(owner, p.id)).map((c) => `${c.order}:${c.id}`)).toEqual([
      `0:${todo.id}`,
      `1:${doing.id}`,
      `2:${done.id}`,
    ]);
    const dup = await owner.patch(`/api/projects/${p.id}/columns/${todo.id}`, { name: 'IN PROGRESS' });
    expect(dup.statusCode).toBe(409);
    const caseOnly = await owner.patch(`/api/projects/${p.id}/columns/${todo.id}`, { name: 'TO DO' });
    expect(caseOnly.json().name).toBe('TO DO');
    expect((await owner.patch(`/api/projects/${p.id}/columns/nope`, { name: 'x' })).json()).toEqual({
      error: 'Column not found',
    });
  });

  it('lets only admins and the owner change columns', async () => {
    const p = await makeProject(owner);
    const m = await signUp(t.app);
    await addMember(owner, p.id, m);
    const [col] = await columnsOf(m, p.id);
    expect((await m.post(`/api/projects/${p.id}/columns`, { name: 'X' })).statusCode).toBe(403);
    expect((await m.patch(`/api/projects/${p.id}/columns/${col.id}`, { name: 'X' })).statusCode).toBe(403);
    expect((await m.del(`/api/projects/${p.id}/columns/${col.id}`)).statusCode).toBe(403);
  });

  it('deletes a column moving its tickets to the end of moveTicketsTo in order; the last column stays', async () => {
    const p = await makeProject(owner);
    const other2 = await makeProject(owner);
    const [todo, doing, done] = await columnsOf(owner, p.id);
    const [foreign] = await columnsOf(owner, other2.id);
    const a = await makeTicket(owner, p.id, { columnId: doing.id });
    const b = await makeTicket(owner, p.id, { columnId: doing.id });
    const c = await makeTicket(owner, p.id, { columnId: todo.id });
    const missing = await owner.del(`/api/projects/${p.id}/columns/${doing.id}`);
    expect(missing.statusCode).toBe(400);
    expect(missing.json().details[0].path).toBe('moveTicketsTo');
    const wrong = await owner.del(`/api/projects/${p.id}/columns/${doing.id}`, { moveTicketsTo: foreign.id });
    expect(wrong.statusCode).toBe(400);
    expect(wrong.json().details[0].path).toBe('moveTicketsTo');
    const ok = await owner.del(`/api/projects/${p.id}/columns/${doing.id}`, { moveTicketsTo: todo.id });
    expect(ok.json()).toEqual({ success: true });
    const list = (await owner.get(`/api/projects/${p.id}/tickets`)).json();
    expect(
      list.map((x: { id: string; order: number; columnId: string }) => [x.id, x.columnId, x.order]),
    ).toEqual([
      [c.id, todo.id, 0],
      [a.id, todo.id, 1],
      [b.id, todo.id, 2],
    ]);
    expect((await columnsOf(owner, p.id)).map((x) => `${x.order}:${x.name}`)).toEqual(['0:To Do', '1:Done']);
    const history = (await owner.get(`/api/projects/${p.id}/tickets/${a.id}/history`)).json();
    expect(history[0]).toMatchObject({ field: 'status', oldValue: 'In Progress', newValue: 'To Do' });
    expect((await owner.del(`/api/projects/${p.id}/columns/${done.id}`)).statusCode).toBe(200);
    const last = await owner.del(`/api/projects/${p.id}/columns/${todo.id}`);
    expect(last.statusCode).toBe(409);
    expect(last.json()).toEqual({ error: 'A project needs at least one column' });
  });

  it('keeps column orders 0..n-1 under concurrent reorders and creations', async () => {
    const p = await makeProject(owner);
    const cols = await columnsOf(owner, p.id);
    const work = [];
    for (let i = 0; i < 12; i++) {
      work.push(
        i % 3 === 0
          ? owner.post(`/api/projects/${p.id}/columns`, { name: `C${i}`, order: i % 4 })
          : owner.patch(`/api/projects/${p.id}/columns/${cols[i % 3].id}`, { order: (i * 7) % 5 }),
      );
    }
    const results = await Promise.all(work);
    for (const r of results) expect(r.statusCode, r.body).toBeLessThan(300);
    const after = await columnsOf(owner, p.id);
    expect(after.map((c) => c.order)).toEqual(after.map((_, i) => i));
    expect(after).toHaveLength(7);
  });
});

describe('members', () => {
  it('adds by userId or username with a role, lists owner, admins, members by username', async () => {
    const p = await makeProject(owner);
    const zed = await signUp(t.app, { username: `zz${Date.now()}` });
    const amy = await signUp(t.app, { username: `aa${Date.now()}` });
    const bob = await signUp(t.app, { username: `bb${Date.now()}` });
    const r1 = await owner.post(`/api/projects/${p.id}/members`, { username: zed.username.toUpperCase() });
    expect(r1.statusCode).toBe(201);
    expect(r1.json()).toMatchObject({
      userId: zed.userId,
      role: 'member',
      projectId: p.id,
      user: { username: zed.username },
    });
    await owner.post(`/api/projects/${p.id}/members`, { userId: amy.userId, role: 'MEMBER' });
    await owner.post(`/api/projects/${p.id}/members`, { userId: bob.userId, role: 'admin' });
    const list = (await amy.get(`/api/projects/${p.id}/members`)).json();
    expect(list.map((m: { userId: string; role: string }) => m.userId)).toEqual([
      owner.userId,
      bob.userId,
      amy.userId,
      zed.userId,
    ]);
    const dup = await owner.post(`/api/projects/${p.id}/members`, { userId: amy.userId });
    expect(dup.statusCode).toBe(409);
    const none = await owner.post(`/api/projects/${p.id}/members`, { username: 'nobody-here-at-all' });
    // DECISIONS section 4 (decision 058): a user that does not exist is 404 `User not found`.
    expect(none.statusCode).toBe(404);
    expect(none.json()).toEqual({ error: 'User not found' });
    const neither = await owner.post(`/api/projects/${p.id}/members`, { role: 'member' });
    expect(neither.statusCode).toBe(400);
    const badRole = await owner.post(`/api/projects/${p.id}/members`, { userId: other.userId, role: 'king' });
    expect(badRole.statusCode).toBe(400);
    expect((await amy.post(`/api/projects/${p.id}/members`, { userId: other.userId })).statusCode).toBe(403);
    expect((await events('member.added', p.id)).length).toBe(3);
  });

  it('transfers ownership only by the owner, turning the previous owner into an admin', async () => {
    const o = await signUp(t.app);
    const p = await makeProject(o);
    const a = await signUp(t.app);
    const m = await signUp(t.app);
    const am = await addMember(o, p.id, a, 'admin');
    const mm = await addMember(o, p.id, m, 'member');
    const ownerRow = (await o.get(`/api/projects/${p.id}/members`)).json()[0];
    expect((await a.patch(`/api/projects/${p.id}/members/${mm.id}`, { role: 'owner' })).statusCode).toBe(403);
    expect(
      (await a.patch(`/api/projects/${p.id}/members/${ownerRow.id}`, { role: 'member' })).statusCode,
    ).toBe(403);
    expect((await a.del(`/api/projects/${p.id}/members/${ownerRow.id}`)).statusCode).toBe(403);
    expect(
      (await a.post(`/api/projects/${p.id}/members`, { userId: other.userId, role: 'owner' })).statusCode,
    ).toBe(403);
    const demoteSelf = await o.patch(`/api/projects/${p.id}/members/${ownerRow.id}`, { role: 'admin' });
    expect(demoteSelf.statusCode).toBe(400);
    const t1 = await o.patch(`/api/projects/${p.id}/members/${mm.id}`, { role: 'Owner' });
    expect(t1.statusCode).toBe(200);
    expect(t1.json().role).toBe('owner');
    const roles = Object.fromEntries(
      (await o.get(`/api/projects/${p.id}/members`))
        .json()
        .map((x: { userId: string; role: string }) => [x.userId, x.role]),
    );
    expect(roles).toEqual({ [m.userId]: 'owner', [o.userId]: 'admin', [a.userId]: 'admin' });
    expect((await o.del(`/api/projects/${p.id}`)).statusCode).toBe(403);
    expect((await m.patch(`/api/projects/${p.id}/members/${am.id}`, { role: 'member' })).json().role).toBe(
      'member',
    );
  });

  it('lets the owner add someone directly as owner, which makes the previous owner an admin', async () => {
    const o = await signUp(t.app);
    const p = await makeProject(o);
    const n = await signUp(t.app);
    const res = await o.post(`/api/projects/${p.id}/members`, { userId: n.userId, role: 'owner' });
    expect(res.statusCode).toBe(201);
    expect(res.json().role).toBe('owner');
    const roles = (await o.get(`/api/projects/${p.id}/members`))
      .json()
      .map((x: { userId: string; role: string }) => [x.userId, x.role]);
    expect(roles).toEqual([
      [n.userId, 'owner'],
      [o.userId, 'admin'],
    ]);
    const updated = await events('member.updated', p.id);
    expect(updated.map((e) => JSON.parse(e.data).userId)).toEqual([o.userId]);
  });

  it('lets a system administrator act as owner of a project they are not a member of', async () => {
    const o = await signUp(t.app);
    const p = await makeProject(o);
    const m = await signUp(t.app);
    expect(
      (await admin.post(`/api/projects/${p.id}/members`, { userId: m.userId, role: 'admin' })).statusCode,
    ).toBe(201);
    expect(
      (await admin.patch(`/api/projects/${p.id}/members/${m.userId}`, { role: 'owner' })).json().role,
    ).toBe('owner');
    expect((await admin.del(`/api/projects/${p.id}`)).json()).toEqual({ success: true });
  });

  it('lets admins change and remove members, members only leave; the owner cannot leave', async () => {
    const o = await signUp(t.app);
    const p = await makeProject(o);
    const a = await signUp(t.app);
    const m1 = await signUp(t.app);
    const m2 = await signUp(t.app);
    await addMember(o, p.id, a, 'admin');
    const r1 = await addMember(o, p.id, m1);
    const r2 = await addMember(o, p.id, m2);
    expect((await m1.del(`/api/projects/${p.id}/members/${r2.id}`)).statusCode).toBe(403);
    expect((await m1.patch(`/api/projects/${p.id}/members/${r2.id}`, { role: 'admin' })).statusCode).toBe(
      403,
    );
    expect((await a.patch(`/api/projects/${p.id}/members/${r2.id}`, { role: 'admin' })).json().role).toBe(
      'admin',
    );
    expect((await a.del(`/api/projects/${p.id}/members/${r2.id}`)).json()).toEqual({ success: true });
    expect((await m1.del(`/api/projects/${p.id}/members/${m1.userId}`)).json()).toEqual({ success: true });
    expect((await m1.get(`/api/projects/${p.id}`)).statusCode).toBe(404);
    const leave = await o.del(`/api/projects/${p.id}/members/${o.userId}`);
    expect(leave.statusCode).toBe(400);
    expect(leave.json()).toEqual({ error: 'Transfer ownership before leaving the project' });
    expect((await o.del(`/api/projects/${p.id}/members/${r1.id}`)).json()).toEqual({
      error: 'Member not found',
    });
    expect((await events('member.removed', p.id)).length).toBe(2);
  });

  it('unassigns a removed member and ends their watches in the project', async () => {
    const o = await signUp(t.app);
    const p = await makeProject(o);
    const m = await signUp(t.app, { name: 'Mo' });
    const r = await addMember(o, p.id, m);
    const ticket = await makeTicket(o, p.id, { assigneeId: m.userId, watcherIds: [m.userId] });
    await o.del(`/api/projects/${p.id}/members/${r.id}`);
    const full = (await o.get(`/api/projects/${p.id}/tickets/${ticket.id}`)).json();
    expect(full.assigneeId).toBeNull();
    expect(full.watchers.map((w: { id: string }) => w.id)).toEqual([o.userId]);
    const history = (await o.get(`/api/projects/${p.id}/tickets/${ticket.id}/history`)).json();
    expect(history[0]).toMatchObject({ field: 'assignee', oldValue: 'Mo', newValue: null });
    const [ev] = await events('ticket.updated', p.id);
    expect(JSON.parse(ev.data)).toMatchObject({
      id: ticket.id,
      assigneeId: null,
      assignee: null,
      watcherIds: [o.userId],
    });
  });
});

describe('labels', () => {
  it('creates with an auto colour, lists by name, refuses duplicates ignoring case', async () => {
    const p = await makeProject(owner);
    const m = await signUp(t.app);
    await addMember(owner, p.id, m);
    const b = await m.post(`/api/projects/${p.id}/labels`, { name: 'bug' });
    expect(b.statusCode).toBe(201);
    expect(PALETTE).toContain(b.json().color);
    expect(Object.keys(b.json()).sort()).toEqual(['color', 'id', 'name']);
    await m.post(`/api/projects/${p.id}/labels`, { name: 'Alpha', color: '#123abc' });
    const dup = await m.post(`/api/projects/${p.id}/labels`, { name: 'BUG' });
    expect(dup.statusCode).toBe(409);
    expect(dup.json()).toEqual({ error: 'Label already exists' });
    const list = await m.get(`/api/projects/${p.id}/labels`);
    expect(list.json().map((l: { name: string; color: string }) => `${l.name}${l.color}`)).toEqual([
      'Alpha#123ABC',
      `bug${b.json().color}`,
    ]);
    expect(list.headers['x-total-count']).toBe('2');
    const long = await m.post(`/api/projects/${p.id}/labels`, { name: 'x'.repeat(51) });
    expect(long.statusCode).toBe(400);
  });

  it('updates name and colour, emitting label.updated; refuses a taken name', async () => {
    const p = await makeProject(owner);
    const l = (await owner.post(`/api/projects/${p.id}/labels`, { name: 'one' })).json();
    await owner.post(`/api/projects/${p.id}/labels`, { name: 'two' });
    const res = await owner.patch(`/api/projects/${p.id}/labels/${l.id}`, { name: 'One', color: '#ffffff' });
    expect(res.json()).toEqual({ id: l.id, name: 'One', color: '#FFFFFF' });
    expect((await owner.patch(`/api/projects/${p.id}/labels/${l.id}`, { name: 'TWO' })).statusCode).toBe(409);
    expect((await owner.patch(`/api/projects/${p.id}/labels/nope`, { name: 'x' })).json()).toEqual({
      error: 'Label not found',
    });
    expect((await events('label.updated', p.id)).length).toBe(1);
  });

  it('deletes a label and removes it from tickets', async () => {
    const p = await makeProject(owner);
    const l = (await owner.post(`/api/projects/${p.id}/labels`, { name: 'gone' })).json();
    const ticket = await makeTicket(owner, p.id, { labelIds: [l.id] });
    expect(ticket.labels).toHaveLength(1);
    expect((await owner.del(`/api/projects/${p.id}/labels/${l.id}`)).json()).toEqual({ success: true });
    expect((await owner.get(`/api/projects/${p.id}/tickets/${ticket.id}`)).json().labels).toEqual([]);
    expect((await owner.del(`/api/projects/${p.id}/labels/${l.id}`)).statusCode).toBe(404);
    const [ev] = await events('label.deleted', p.id);
    expect(JSON.parse(ev.data)).toEqual({ id: l.id });
  });
});

describe('OpenAPI', () => {
  it('documents every project and ticket route with its schemas', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/api/openapi.json' })).json();
    const expected: [string, string[]][] = [
      ['/api/projects', ['get', 'post']],
      ['/api/projects/{projectId}', ['get', 'patch', 'delete']],
      ['/api/projects/{projectId}/columns', ['get', 'post']],
      ['/api/projects/{projectId}/columns/{columnId}', ['patch', 'delete']],
      ['/api/projects/{projectId}/members', ['get', 'post']],
      ['/api/projects/{projectId}/members/{memberId}', ['patch', 'delete']],
      ['/api/projects/{projectId}/labels', ['get', 'post']],
      ['/api/projects/{projectId}/labels/{labelId}', ['patch', 'delete']],
      ['/api/projects/{projectId}/tickets', ['get', 'post', 'patch', 'delete']],
      ['/api/projects/{projectId}/tickets/{ticketId}', ['get', 'patch', 'delete']],
      ['/api/projects/{projectId}/tickets/{ticketId}/history', ['get']],
      ['/api/projects/{projectId}/tickets/{ticketId}/links', ['post']],
      ['/api/projects/{projectId}/tickets/{ticketId}/links/{linkId}', ['delete']],
      ['/api/projects/{projectId}/tickets/{ticketId}/comments', ['get', 'post']],
      ['/api/projects/{projectId}/tickets/{ticketId}/comments/{commentId}', ['patch', 'delete']],
    ];
    for (const [path, methods] of expected) {
      for (const m of methods) expect(doc.paths[path]?.[m], `${m} ${path}`).toBeDefined();
    }
    expect(doc.paths['/api/projects/{projectId}/tickets'].post.requestBody).toBeDefined();
    const query = doc.paths['/api/projects/{projectId}/tickets'].get.parameters.map(
      (x: { name: string }) => x.name,
    );
    expect(query).toEqual(
      expect.arrayContaining([
        'sprintId',
        'columnId',
        'type',
        'priority',
        'assigneeId',
        'labelId',
        'parentId',
        'q',
        'limit',
        'offset',
      ]),
    );
  });
});
