import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './helpers/app.js';
import { multipart } from './helpers/backup.js';
import { addMember, makeProject, type ProjectOut } from './helpers/board.js';
import { type Client, PASSWORD, signIn, signUp } from './helpers/factories.js';

let t: TestApp;
let sysadmin: Client;
let owner: Client;
let admin: Client;
let member: Client;
let outsider: Client;
let p: ProjectOut;

beforeAll(async () => {
  t = await createTestApp();
  sysadmin = await signUp(t.app);
  owner = await signUp(t.app);
  admin = await signUp(t.app);
  member = await signUp(t.app);
  outsider = await signUp(t.app);
  p = await makeProject(owner, { name: 'Views' });
  await addMember(owner, p.id, admin, 'admin');
  await addMember(owner, p.id, member);
  await owner.post(`/api/projects/${p.id}/labels`, { name: 'ui' });
});
afterAll(async () => t?.close());

const names = async (c: Client) => {
  const res = await c.get('/api/views');
  expect(res.statusCode, res.body).toBe(200);
  return (res.json() as { name: string }[]).map((v) => v.name);
};

describe('saved views', () => {
  it('creates a private view with defaults, seen only by its author', async () => {
    const res = await member.post('/api/views', { name: 'My bugs', query: 'type:bug assignee:me' });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json()).toMatchObject({
      name: 'My bugs',
      query: 'type:bug assignee:me',
      projectId: null,
      projectKey: null,
      shared: false,
      layout: 'list',
      columns: ['key', 'title', 'status', 'assignee', 'priority', 'updated'],
      groupBy: null,
      authorId: member.userId,
      canEdit: true,
    });
    expect(await names(member)).toContain('My bugs');
    expect(await names(owner)).not.toContain('My bugs');
    expect(await names(sysadmin)).not.toContain('My bugs');
    const id = res.json().id;
    expect((await owner.patch(`/api/views/${id}`, { name: 'x' })).statusCode).toBe(404);
    expect((await owner.del(`/api/views/${id}`)).statusCode).toBe(404);
  });

  it('shares a view with the project members; admins may change it, members may not, outsiders never see it', async () => {
    const res = await member.post('/api/views', {
      name: 'Team UI',
      query: 'label:ui is:open',
      projectId: p.key,
      shared: true,
      layout: 'board',
      columns: ['key', 'title', 'labels'],
      groupBy: 'assignee',
    });
    expect(res.statusCode, res.body).toBe(201);
    const view = res.json();
    expect(view).toMatchObject({
      projectId: p.id,
      projectKey: p.key,
      shared: true,
      layout: 'board',
      groupBy: 'assignee',
    });
    expect(await names(owner)).toContain('Team UI');
    expect(await names(sysadmin)).toContain('Team UI');
    expect(await names(outsider)).not.toContain('Team UI');
    expect((await outsider.patch(`/api/views/${view.id}`, { name: 'x' })).statusCode).toBe(404);
    // A plain member who did not write it may read it, not change it.
    const other = await signUp(t.app);
    await addMember(owner, p.id, other);
    const seen = (await other.get('/api/views')).json().find((v: { id: string }) => v.id === view.id);
    expect(seen.canEdit).toBe(false);
    expect((await other.patch(`/api/views/${view.id}`, { name: 'x' })).statusCode).toBe(403);
    expect((await other.del(`/api/views/${view.id}`)).statusCode).toBe(403);
    // A project admin may.
    const renamed = await admin.patch(`/api/views/${view.id}`, { name: 'Team UI (open)', columns: ['key'] });
    expect(renamed.statusCode, renamed.body).toBe(200);
    expect(renamed.json()).toMatchObject({ name: 'Team UI (open)', columns: ['key'], canEdit: true });
    expect((await admin.del(`/api/views/${view.id}`)).statusCode).toBe(200);
    expect(await names(member)).not.toContain('Team UI (open)');
  });

  it('checks the query and the fields', async () => {
    const bad = await member.post('/api/views', { name: 'Bad', query: 'colour:red' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().details[0]).toMatchObject({ path: 'query', term: 'colour:red', position: 1 });
    const unknownLabel = await member.post('/api/views', {
      name: 'Bad',
      query: 'label:nope',
      projectId: p.id,
    });
    expect(unknownLabel.statusCode).toBe(400);
    expect(unknownLabel.json().details[0].message).toMatch(/Unknown label 'nope'/);
    expect((await member.post('/api/views', { name: 'S', query: '', shared: true })).statusCode).toBe(400);
    expect((await member.post('/api/views', { name: '', query: '' })).statusCode).toBe(400);
    expect((await member.post('/api/views', { name: 'C', query: '', columns: ['nope'] })).statusCode).toBe(
      400,
    );
    expect((await member.post('/api/views', { name: 'C', query: '', layout: 'grid' })).statusCode).toBe(400);
    expect((await outsider.post('/api/views', { name: 'X', query: '', projectId: p.id })).statusCode).toBe(
      404,
    );
    expect(await names(member)).not.toContain('Bad');
  });

  it('goes with its project', async () => {
    const q = await makeProject(owner, { name: 'Doomed' });
    const v = (
      await owner.post('/api/views', { name: 'Doomed view', query: '', projectId: q.id, shared: true })
    ).json();
    expect((await owner.del(`/api/projects/${q.id}`, { confirmation: q.key })).statusCode).toBeLessThan(300);
    expect((await owner.get('/api/views')).json().map((x: { id: string }) => x.id)).not.toContain(v.id);
  });

  it('are in backups; a version-1 backup (before views) still restores, and search works after a restore', async () => {
    await owner.post('/api/views', { name: 'Kept view', query: 'type:bug' });
    await owner.post(`/api/projects/${p.id}/tickets`, { title: 'Restorable narwhal' });
    const exported = await sysadmin.post('/api/admin/database/export', { confirmPassword: PASSWORD });
    expect(exported.statusCode).toBe(200);
    const doc = JSON.parse(exported.body);
    expect(doc.version).toBe(3);
    expect(doc.data.saved_views.map((v: { name: string }) => v.name)).toContain('Kept view');
    const importAs = async (c: Client, body: unknown) =>
      c.req({
        method: 'POST',
        url: '/api/admin/database/import',
        ...multipart({ confirmPassword: PASSWORD }, { content: JSON.stringify(body) }),
      });
    const res = await importAs(sysadmin, doc);
    expect(res.statusCode, res.body).toBe(200);
    const again = await signIn(t.app, sysadmin.username);
    const o = await signIn(t.app, owner.username);
    expect(await names(o)).toContain('Kept view');
    const found = (await o.get('/api/search?q=narwhal')).json();
    expect(found.total).toBe(1);
    // Version 1 had no saved views.
    const v1 = { ...doc, version: 1, data: { ...doc.data } };
    delete v1.data.saved_views;
    const old = await importAs(again, v1);
    expect(old.statusCode, old.body).toBe(200);
    const o2 = await signIn(t.app, owner.username);
    expect(await names(o2)).toEqual([]);
    expect((await o2.get('/api/search?q=narwhal')).json().total).toBe(1);
  });
});
