/**
 * Who may read an uploaded file (issue 49, decision 058): the members of the projects whose ticket
 * descriptions, comments or ticket templates show it, its uploader and administrators by session;
 * not every signed-in user. Runs on both databases and against the S3 store (fileStoreTests).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrateToLatest } from '../src/db/migrate.js';
import { restoreBackup } from '../src/domain/backup/restore.js';
import { createTestApp, databaseAt, type TestApp } from './helpers/app.js';
import { addMember, makeProject, makeTicket } from './helpers/board.js';
import { type Client, clientFor, PASSWORD, signIn, signUp } from './helpers/factories.js';
import { makePng, upload } from './helpers/files.js';

let t: TestApp;
let admin: Client;
let owner: Client;
let mate: Client;
let stranger: Client;
let project: { id: string; key: string };

const status = async (c: Client, url: string) => (await c.get(url)).statusCode;
/** A fresh PNG uploaded by `c`: its URL. */
async function uploadPng(c: Client): Promise<string> {
  const res = await upload(c, '/api/upload', {
    filename: 'shot.png',
    contentType: 'image/png',
    data: await makePng(),
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().url;
}
const img = (url: string) => `Before\n\n![shot](${url})\n\nafter`;

beforeAll(async () => {
  t = await createTestApp();
  admin = await signUp(t.app); // the first account is the system administrator
  owner = await signUp(t.app);
  mate = await signUp(t.app);
  stranger = await signUp(t.app);
  project = await makeProject(owner);
  await addMember(owner, project.id, mate);
});
afterAll(async () => t.close());

describe('an uploaded file shown nowhere', () => {
  it('is readable by its uploader and administrators by session only, not by any signed-in user', async () => {
    const url = await uploadPng(owner);
    expect(await status(owner, url)).toBe(200);
    expect(await status(admin, url)).toBe(200);
    expect(await status(mate, url)).toBe(404);
    expect(await status(stranger, url)).toBe(404);
    // An administrator's API key has no administrator powers.
    const key = (await admin.post('/api/me/api-keys', { name: 'k', scope: 'read' })).json().key;
    expect((await clientFor(t.app, { apiKey: key }).get(url)).statusCode).toBe(404);
  });
});

describe('a file shown in a ticket description', () => {
  it('is readable by the project members while the description shows it', async () => {
    const url = await uploadPng(owner);
    const ticket = await makeTicket(owner, project.id, { description: img(url) });
    expect(await status(mate, url)).toBe(200);
    expect(await status(stranger, url)).toBe(404);
    // A member's API key reads what the member reads.
    const key = (await mate.post('/api/me/api-keys', { name: 'k', scope: 'read' })).json().key;
    expect((await clientFor(t.app, { apiKey: key }).get(url)).statusCode).toBe(200);

    // The description no longer shows it: back to its uploader alone.
    const edited = await owner.patch(`/api/projects/${project.id}/tickets/${ticket.id}`, {
      description: 'gone',
    });
    expect(edited.statusCode, edited.body).toBe(200);
    expect(await status(mate, url)).toBe(404);
    expect(await status(owner, url)).toBe(200);

    // Shown again by a bulk update; a member removed from the project loses it.
    const bulk = await owner.patch(`/api/projects/${project.id}/tickets`, {
      ticketIds: [ticket.id],
      updates: { description: `${img(url)}\nagain` },
    });
    expect(bulk.statusCode, bulk.body).toBe(200);
    expect(await status(mate, url)).toBe(200);
    const other = await signUp(t.app);
    const m = await addMember(owner, project.id, other);
    expect(await status(other, url)).toBe(200);
    expect((await owner.del(`/api/projects/${project.id}/members/${m.id}`)).statusCode).toBe(200);
    expect(await status(other, url)).toBe(404);
  });

  it('under a base path or as a whole URL, the text shows the file all the same', async () => {
    const url = await uploadPng(owner);
    expect(await status(mate, url)).toBe(404);
    await makeTicket(owner, project.id, { description: `![a](https://docket.example/docket${url})` });
    expect(await status(mate, url)).toBe(200);
    expect(await status(stranger, url)).toBe(404);
  });

  it('goes to the trash with its ticket and comes back with it', async () => {
    const url = await uploadPng(owner);
    const ticket = await makeTicket(owner, project.id, { description: img(url) });
    const del = await owner.del(`/api/projects/${project.id}/tickets/${ticket.id}`);
    expect(del.statusCode, del.body).toBe(200);
    expect(await status(mate, url)).toBe(404);
    const back = await owner.post(`/api/projects/${project.id}/trash/${del.json().trashId}/restore`);
    expect(back.statusCode, back.body).toBe(200);
    expect(await status(mate, url)).toBe(200);
  });
});

describe('a file shown in a comment', () => {
  it('is readable by the members while the comment shows it, and not after it is deleted', async () => {
    const url = await uploadPng(mate);
    const ticket = await makeTicket(owner, project.id);
    const base = `/api/projects/${project.id}/tickets/${ticket.id}/comments`;
    const comment = await mate.post(base, { content: img(url) });
    expect(comment.statusCode, comment.body).toBe(201);
    expect(await status(owner, url)).toBe(200);
    expect(await status(stranger, url)).toBe(404);
    expect((await mate.patch(`${base}/${comment.json().id}`, { content: 'text only' })).statusCode).toBe(200);
    expect(await status(owner, url)).toBe(404);
    expect((await mate.patch(`${base}/${comment.json().id}`, { content: img(url) })).statusCode).toBe(200);
    expect(await status(owner, url)).toBe(200);
    expect((await owner.del(`${base}/${comment.json().id}`)).statusCode).toBe(200);
    expect(await status(owner, url)).toBe(404);
    expect(await status(mate, url)).toBe(200);
  });
});

describe('a file shown in a ticket template', () => {
  it('is readable by the members, and a ticket made from the template shows it too', async () => {
    const url = await uploadPng(owner);
    const tpl = await owner.post(`/api/projects/${project.id}/templates`, {
      name: `Shot ${Date.now()}`,
      title: 'Shot',
      description: img(url),
    });
    expect(tpl.statusCode, tpl.body).toBe(201);
    expect(await status(mate, url)).toBe(200);
    // A member (not the uploader) makes a ticket from it; the template then stops showing the file.
    const made = await mate.post(`/api/projects/${project.id}/tickets`, { templateId: tpl.json().id });
    expect(made.statusCode, made.body).toBe(201);
    const edited = await owner.patch(`/api/projects/${project.id}/templates/${tpl.json().id}`, {
      description: 'plain',
    });
    expect(edited.statusCode, edited.body).toBe(200);
    expect(await status(mate, url)).toBe(200);
    expect((await owner.del(`/api/projects/${project.id}/tickets/${made.json().id}`)).statusCode).toBe(200);
    expect(await status(mate, url)).toBe(404);
  });
});

describe('showing a file in another project', () => {
  it('counts only when the writer may read the file: knowing its address is not enough', async () => {
    const url = await uploadPng(owner);
    // The stranger learnt the address, and writes it into a project of their own.
    const theirs = await makeProject(stranger);
    const accomplice = await signUp(t.app);
    await addMember(stranger, theirs.id, accomplice);
    const ticket = await makeTicket(stranger, theirs.id, { description: img(url) });
    await stranger.post(`/api/projects/${theirs.id}/tickets/${ticket.id}/comments`, { content: img(url) });
    expect(await status(stranger, url)).toBe(404);
    expect(await status(accomplice, url)).toBe(404);

    // Once shown in the owner's project, a member of both may show it in the other one.
    await makeTicket(owner, project.id, { description: img(url) });
    const both = await signUp(t.app);
    await addMember(owner, project.id, both);
    await addMember(stranger, theirs.id, both);
    await makeTicket(both, theirs.id, { description: img(url) });
    expect(await status(accomplice, url)).toBe(200);
  });
});

describe('files shown before the rows existed', () => {
  it('migration 115 records the files that existing descriptions, comments and templates show', async () => {
    const { db, kysely: k, drop } = await databaseAt('094_search_facets_postgres');
    try {
      const now = new Date().toISOString();
      const user = {
        username: 'old',
        email: null,
        name: null,
        password_hash: 'x',
        avatar: null,
        is_system_admin: 0,
        is_active: 1,
        must_change_password: 0,
        created_at: now,
        updated_at: now,
      };
      await k
        .insertInto('users')
        .values({ id: 'u1', ...user })
        .execute();
      await k
        .insertInto('projects')
        .values({
          id: 'p1',
          name: 'Old',
          key: 'OLD',
          description: null,
          color: '#123456',
          ticket_counter: 1,
          sprint_counter: 0,
          created_at: now,
          updated_at: now,
        })
        .execute();
      await k
        .insertInto('columns')
        .values({ id: 'c1', project_id: 'p1', name: 'To Do', rank: 'a0', created_at: now })
        .execute();
      const files = ['1700000000000-00aa.png', '1700000000001-00bb.png', '1700000000002-00cc.png'];
      await k
        .insertInto('uploads')
        .values(
          files.map((stored_name, i) => ({
            id: `f${i}`,
            uploader_id: 'u1',
            filename: 'x.png',
            mime_type: 'image/png',
            size: 1,
            stored_name,
            created_at: now,
          })),
        )
        .execute();
      await k
        .insertInto('tickets')
        .values({
          id: 't1',
          project_id: 'p1',
          number: 1,
          title: 'Old',
          description: `![a](/uploads/files/${files[0]}) and /uploads/files/1700000000009-0dead.png (no such file)`,
          type: 'Task',
          priority: 'Medium',
          column_id: 'c1',
          rank: 'a0',
          reporter_id: 'u1',
          is_carried_over: 0,
          carried_over_count: 0,
          created_at: now,
          updated_at: now,
        })
        .execute();
      await k
        .insertInto('comments')
        .values({
          id: 'k1',
          ticket_id: 't1',
          author_id: 'u1',
          content: `![b](/docket/uploads/files/${files[1]})`,
          created_at: now,
          updated_at: now,
        })
        .execute();
      await k
        .insertInto('ticket_templates')
        .values({
          id: 'm1',
          project_id: 'p1',
          name: 'T',
          description: `![c](/uploads/files/${files[2]})`,
          label_ids: '[]',
          position: 0,
          is_default: 0,
          created_at: now,
          updated_at: now,
        })
        .execute();
      await migrateToLatest(db);
      const rows = await (k as Kysely<any>)
        .selectFrom('upload_refs')
        .select(['upload_id', 'project_id', 'ticket_id', 'comment_id', 'template_id'])
        .orderBy('upload_id')
        .execute();
      expect(rows).toEqual([
        { upload_id: 'f0', project_id: 'p1', ticket_id: 't1', comment_id: null, template_id: null },
        { upload_id: 'f1', project_id: 'p1', ticket_id: 't1', comment_id: 'k1', template_id: null },
        { upload_id: 'f2', project_id: 'p1', ticket_id: null, comment_id: null, template_id: 'm1' },
      ]);
    } finally {
      await drop();
    }
  });

  it('a restore of a version-2 backup (before upload_refs) records them from its texts', async () => {
    const url = await uploadPng(owner);
    await makeTicket(owner, project.id, { description: img(url) });
    const exported = await admin.post('/api/admin/database/export', { confirmPassword: PASSWORD });
    expect(exported.statusCode).toBe(200);
    const doc = JSON.parse(exported.body);
    expect(doc.data.upload_refs.length).toBeGreaterThan(0);
    doc.version = 2;
    delete doc.data.upload_refs;
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'docket-v2-')), 'backup.json');
    fs.writeFileSync(file, JSON.stringify(doc));
    await restoreBackup(t.app.services, file);
    // The restore ended every session.
    expect(await status(await signIn(t.app, mate.username), url)).toBe(200);
    expect(await status(await signIn(t.app, stranger.username), url)).toBe(404);
  });
});
