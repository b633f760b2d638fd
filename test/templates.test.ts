/** Ticket templates per project (issue 23, docs/decisions/050-ticket-templates.md). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LIMITS } from '../src/shared/limits.js';
import { TEMPLATE_ERR } from '../src/shared/templates.js';
import { createTestApp, type TestApp } from './helpers/app.js';
import { multipart, snapshot } from './helpers/backup.js';
import { addMember, makeProject } from './helpers/board.js';
import { type Client, PASSWORD, signIn, signUp } from './helpers/factories.js';

let t: TestApp;
let sysAdmin: Client;
let owner: Client;
let admin: Client;
let member: Client;
let outsider: Client;
beforeAll(async () => {
  t = await createTestApp();
  sysAdmin = await signUp(t.app); // the first account is a system administrator
  owner = await signUp(t.app);
  admin = await signUp(t.app);
  member = await signUp(t.app);
  outsider = await signUp(t.app);
});
afterAll(async () => t.close());

async function project() {
  const p = await makeProject(owner);
  await addMember(owner, p.id, admin, 'admin');
  await addMember(owner, p.id, member);
  return p;
}

const path = (projectId: string, id?: string) => `/api/projects/${projectId}/templates${id ? `/${id}` : ''}`;

async function create(c: Client, projectId: string, body: Record<string, unknown>) {
  const res = await c.post(path(projectId), body);
  expect(res.statusCode, res.body).toBe(201);
  return res.json();
}

async function label(projectId: string, name: string) {
  const res = await owner.post(`/api/projects/${projectId}/labels`, { name });
  expect(res.statusCode, res.body).toBe(201);
  return res.json() as { id: string; name: string; color: string };
}

const names = async (projectId: string) =>
  ((await member.get(path(projectId))).json() as { name: string }[]).map((x) => x.name);

const eventsOf = (projectId: string, prefix: string) =>
  t.app.services.db.kysely
    .selectFrom('events')
    .select(['type', 'data'])
    .where('project_id', '=', projectId)
    .where('type', 'like', `${prefix}%`)
    .orderBy('id')
    .execute();

describe('ticket templates', () => {
  it('lets an admin create, list, edit and delete a template, with events and audit entries', async () => {
    const p = await project();
    const bug = await label(p.id, 'bug');
    const tpl = await create(admin, p.id, {
      name: 'Bug report',
      about: 'Something is broken',
      type: 'bug',
      title: 'Bug: ',
      description: '## Steps to reproduce\n\n## Expected\n\n## Actual',
      priority: 'high',
      labelIds: [bug.id],
      storyPoints: 3,
      assigneeId: member.userId,
    });
    expect(tpl).toMatchObject({
      projectId: p.id,
      name: 'Bug report',
      about: 'Something is broken',
      type: 'Bug',
      title: 'Bug: ',
      priority: 'High',
      labels: [bug],
      storyPoints: 3,
      assigneeId: member.userId,
      position: 0,
      isDefault: false,
      createdBy: admin.userId,
      version: 1,
    });
    const list = await member.get(path(p.id));
    expect(list.statusCode).toBe(200);
    expect(list.json()).toEqual([tpl]);

    const edited = await owner.patch(path(p.id, tpl.id), { name: 'Bug', priority: null, version: 1 });
    expect(edited.statusCode, edited.body).toBe(200);
    expect(edited.json()).toMatchObject({ name: 'Bug', priority: null, version: 2 });

    const gone = await admin.del(path(p.id, tpl.id));
    expect(gone.statusCode).toBe(200);
    expect(await names(p.id)).toEqual([]);
    expect((await eventsOf(p.id, 'template.')).map((e) => e.type)).toEqual([
      'template.created',
      'template.updated',
      'template.deleted',
    ]);
    const audit = (await sysAdmin.get('/api/admin/audit?limit=200')).json().items as {
      action: string;
      target: { id: string };
    }[];
    expect(audit.filter((e) => e.target?.id === tpl.id).map((e) => e.action)).toEqual([
      'template.deleted',
      'template.updated',
      'template.created',
    ]);
  });

  it('lets members read templates but not change them; outsiders get 404', async () => {
    const p = await project();
    const tpl = await create(owner, p.id, { name: 'Task' });
    expect((await member.post(path(p.id), { name: 'Mine' })).statusCode).toBe(403);
    expect((await member.patch(path(p.id, tpl.id), { name: 'X' })).statusCode).toBe(403);
    expect((await member.del(path(p.id, tpl.id))).statusCode).toBe(403);
    expect((await outsider.get(path(p.id))).statusCode).toBe(404);
    expect((await outsider.post(path(p.id), { name: 'X' })).statusCode).toBe(404);
    // A system administrator acts as the owner of every project.
    expect((await sysAdmin.patch(path(p.id, tpl.id), { about: 'by the admin' })).statusCode).toBe(200);
  });

  it('answers bad input with 400 naming the field, a missing template with 404', async () => {
    const p = await project();
    const other = await makeProject(owner);
    const foreign = await label(other.id, 'elsewhere');
    const cases: [Record<string, unknown>, string][] = [
      [{}, 'name'],
      [{ name: '   ' }, 'name'],
      [{ name: 'x'.repeat(LIMITS.templateNameMax + 1) }, 'name'],
      [{ name: 'A', type: 'Saga' }, 'type'],
      [{ name: 'A', priority: 'urgent' }, 'priority'],
      [{ name: 'A', storyPoints: 4 }, 'storyPoints'],
      [{ name: 'A', title: '  ' }, 'title'],
      [{ name: 'A', labelIds: [foreign.id] }, 'labelIds'],
      [{ name: 'A', assigneeId: outsider.userId }, 'assigneeId'],
      [{ name: 'A', position: -1 }, 'position'],
    ];
    for (const [body, field] of cases) {
      const res = await owner.post(path(p.id), body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json().details.map((d: { path: string }) => d.path)).toContain(field);
    }
    const missing = await owner.patch(path(p.id, 'nope'), { name: 'X' });
    expect(missing.statusCode).toBe(404);
    expect(missing.json().error).toBe(TEMPLATE_ERR.notFound);
    expect((await owner.del(path(p.id, 'nope'))).statusCode).toBe(404);
  });

  it('refuses a second template of the same name in any letter case, a stale version and more than the limit with 409', async () => {
    const p = await project();
    const tpl = await create(owner, p.id, { name: 'Story' });
    const dup = await owner.post(path(p.id), { name: 'STORY' });
    expect(dup.statusCode).toBe(409);
    expect(dup.json().error).toBe(TEMPLATE_ERR.exists);
    const other = await create(owner, p.id, { name: 'Other' });
    expect((await owner.patch(path(p.id, other.id), { name: 'story' })).statusCode).toBe(409);
    // Another project may use the name.
    await create(owner, (await project()).id, { name: 'Story' });

    expect((await owner.patch(path(p.id, tpl.id), { about: 'a' })).json().version).toBe(2);
    const stale = await owner.patch(path(p.id, tpl.id), { about: 'b', version: 1 });
    expect(stale.statusCode).toBe(409);
    expect(stale.json().error).toBe(TEMPLATE_ERR.stale);

    for (let i = 2; i < LIMITS.templatesPerProject; i++) await create(owner, p.id, { name: `T${i}` });
    const over = await owner.post(path(p.id), { name: 'One too many' });
    expect(over.statusCode).toBe(409);
    expect(over.json().error).toBe(TEMPLATE_ERR.limit);
  });

  it('keeps the list in order, reorders, and has at most one default', async () => {
    const p = await project();
    const a = await create(owner, p.id, { name: 'A' });
    const b = await create(owner, p.id, { name: 'B', isDefault: true });
    const c = await create(owner, p.id, { name: 'C', position: 0 });
    expect(await names(p.id)).toEqual(['C', 'A', 'B']);
    await owner.patch(path(p.id, c.id), { position: 2 });
    expect(await names(p.id)).toEqual(['A', 'B', 'C']);
    const list = (await member.get(path(p.id))).json();
    expect(list.map((x: { position: number }) => x.position)).toEqual([0, 1, 2]);
    expect(list.filter((x: { isDefault: boolean }) => x.isDefault).map((x: { id: string }) => x.id)).toEqual([
      b.id,
    ]);

    const res = await owner.patch(path(p.id, a.id), { isDefault: true });
    expect(res.json().isDefault).toBe(true);
    const after = (await member.get(path(p.id))).json();
    expect(after.filter((x: { isDefault: boolean }) => x.isDefault).map((x: { id: string }) => x.id)).toEqual(
      [a.id],
    );
    // The template that lost the default was announced too.
    const updates = (await eventsOf(p.id, 'template.updated')).map((e) => JSON.parse(String(e.data)));
    expect(updates.some((d) => d.id === b.id && d.isDefault === false)).toBe(true);

    await owner.del(path(p.id, a.id));
    const rest = (await member.get(path(p.id))).json();
    expect(rest.map((x: { name: string; position: number }) => [x.name, x.position])).toEqual([
      ['B', 0],
      ['C', 1],
    ]);
  });

  it('keeps one default and distinct places when admins change templates at the same moment', async () => {
    const p = await project();
    const made = [];
    for (let i = 0; i < 6; i++) made.push(await create(owner, p.id, { name: `R${i}` }));
    const answers = await Promise.all([
      ...made.map((x) => owner.patch(path(p.id, x.id), { isDefault: true })),
      ...made.map((x, i) => admin.patch(path(p.id, x.id), { position: (i * 7) % 6 })),
      admin.post(path(p.id), { name: 'Late', isDefault: true }),
    ]);
    for (const a of answers) expect(a.statusCode, a.body).toBeLessThan(300);
    const list = (await member.get(path(p.id))).json() as { isDefault: boolean; position: number }[];
    expect(list.filter((x) => x.isDefault)).toHaveLength(1);
    expect(list.map((x) => x.position)).toEqual([0, 1, 2, 3, 4, 5, 6]);
  });

  it('creates a ticket from a template: the template fills what the request leaves out, the request wins', async () => {
    const p = await project();
    const bug = await label(p.id, 'bug');
    const ui = await label(p.id, 'ui');
    const tpl = await create(owner, p.id, {
      name: 'Bug report',
      type: 'Bug',
      title: 'Bug: ',
      description: '## Steps to reproduce',
      priority: 'High',
      labelIds: [bug.id],
      storyPoints: 3,
      assigneeId: admin.userId,
    });
    const filled = await member.post(`/api/projects/${p.id}/tickets`, { templateId: tpl.id });
    expect(filled.statusCode, filled.body).toBe(201);
    expect(filled.json()).toMatchObject({
      title: 'Bug:',
      type: 'Bug',
      description: '## Steps to reproduce',
      priority: 'High',
      storyPoints: 3,
      assigneeId: admin.userId,
    });
    expect(filled.json().labels.map((l: { id: string }) => l.id)).toEqual([bug.id]);

    const mine = await member.post(`/api/projects/${p.id}/tickets`, {
      templateId: tpl.id,
      title: 'Bug: crash on save',
      priority: 'Low',
      assigneeId: null,
      labelIds: [ui.id],
      storyPoints: null,
    });
    expect(mine.statusCode, mine.body).toBe(201);
    expect(mine.json()).toMatchObject({
      title: 'Bug: crash on save',
      type: 'Bug',
      priority: 'Low',
      assigneeId: null,
      storyPoints: null,
      description: '## Steps to reproduce',
    });
    expect(mine.json().labels.map((l: { id: string }) => l.id)).toEqual([ui.id]);

    const other = await makeProject(owner);
    const foreign = await create(owner, other.id, { name: 'Elsewhere', title: 'X' });
    const bad = await member.post(`/api/projects/${p.id}/tickets`, { templateId: foreign.id });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().details[0].path).toBe('templateId');
    const noTitle = await member.post(`/api/projects/${p.id}/tickets`, {
      templateId: (await create(owner, p.id, { name: 'Untitled' })).id,
    });
    expect(noTitle.statusCode).toBe(400);
    expect(noTitle.json().details[0].path).toBe('title');
    const neither = await member.post(`/api/projects/${p.id}/tickets`, { type: 'Bug' });
    expect(neither.statusCode).toBe(400);
    expect(neither.json().details[0].path).toBe('title');
  });

  it('drops a deleted label from a template, and an assignee who left from new tickets', async () => {
    const p = await project();
    const keep = await label(p.id, 'keep');
    const drop = await label(p.id, 'drop');
    const tpl = await create(owner, p.id, {
      name: 'Labelled',
      title: 'T',
      labelIds: [keep.id, drop.id],
      assigneeId: member.userId,
    });
    expect(tpl.labels.map((l: { id: string }) => l.id)).toEqual([keep.id, drop.id]);
    expect((await owner.del(`/api/projects/${p.id}/labels/${drop.id}`)).statusCode).toBe(200);
    const [read] = (await member.get(path(p.id))).json();
    expect(read.labels).toEqual([keep]);
    const mem = (await owner.get(`/api/projects/${p.id}/members`)).json() as { id: string; userId: string }[];
    const m = mem.find((x) => x.userId === member.userId);
    expect((await owner.del(`/api/projects/${p.id}/members/${m?.id}`)).statusCode).toBe(200);
    const ticket = await admin.post(`/api/projects/${p.id}/tickets`, { templateId: tpl.id });
    expect(ticket.statusCode, ticket.body).toBe(201);
    expect(ticket.json().labels.map((l: { id: string }) => l.id)).toEqual([keep.id]);
    expect(ticket.json().assigneeId).toBeNull();
  });

  it('goes with its project, and comes back whole from a backup', async () => {
    const p = await project();
    const l = await label(p.id, 'backed-up');
    await create(owner, p.id, { name: 'Kept', title: 'K: ', labelIds: [l.id], isDefault: true });
    const before = await snapshot(t.app);
    expect(before.data.ticket_templates.length).toBeGreaterThan(0);
    const exported = await sysAdmin.post('/api/admin/database/export', { confirmPassword: PASSWORD });
    expect(exported.statusCode).toBe(200);
    expect(JSON.parse(exported.body).data.ticket_templates).toHaveLength(before.data.ticket_templates.length);

    const wipe = await sysAdmin.post('/api/admin/database/wipe', {
      confirmPassword: PASSWORD,
      confirmation: 'wipe all data',
    });
    expect(wipe.statusCode, wipe.body).toBe(200);
    const { temporaryPassword } = wipe.json().newAdminCredentials;
    expect((await snapshot(t.app)).data.ticket_templates).toHaveLength(0);
    const restorer = await signIn(t.app, 'admin', temporaryPassword);
    const res = await restorer.req({
      method: 'POST',
      url: '/api/admin/database/import',
      ...multipart({ confirmPassword: temporaryPassword }, { content: exported.body }),
    });
    expect(res.statusCode, res.body).toBe(200);
    expect((await snapshot(t.app)).data.ticket_templates).toEqual(before.data.ticket_templates);

    // Deleting the project deletes its templates.
    const again = await signIn(t.app, owner.username);
    expect((await again.req({ method: 'DELETE', url: `/api/projects/${p.id}` })).statusCode).toBe(200);
    const left = await t.app.services.db.kysely
      .selectFrom('ticket_templates')
      .select('id')
      .where('project_id', '=', p.id)
      .execute();
    expect(left).toEqual([]);
  });
});
