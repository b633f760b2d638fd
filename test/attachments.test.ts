import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_SETTINGS } from '../src/shared/limits.js';
import { createTestApp, type TestApp } from './helpers/app.js';
import { addMember, makeProject, makeTicket, type ProjectOut } from './helpers/board.js';
import { type Client, PASSWORD, signUp } from './helpers/factories.js';
import {
  allUploadAreaFiles,
  makeHtml,
  makeMp4,
  makePdf,
  makePng,
  makeText,
  setSettings,
  storedFiles,
  upload,
} from './helpers/files.js';

let t: TestApp;
let sysAdmin: Client;
let owner: Client;
let member: Client;
let outsider: Client;
let project: ProjectOut;

const attachmentsUrl = (ticketRef: string, projectRef = project.id) =>
  `/api/projects/${projectRef}/tickets/${ticketRef}/attachments`;
const storedName = (url: string) => url.split('/').pop() as string;

async function attachmentRows(ticketId?: string) {
  let q = t.app.services.db.kysely.selectFrom('attachments').selectAll();
  if (ticketId) q = q.where('ticket_id', '=', ticketId);
  return q.execute();
}

async function eventsOf(type: string) {
  const rows = await t.app.services.db.kysely
    .selectFrom('events')
    .selectAll()
    .where('type', '=', type)
    .orderBy('id')
    .execute();
  return rows.map((r) => ({ scope: r.scope, projectId: r.project_id, data: JSON.parse(r.data) }));
}

beforeAll(async () => {
  t = await createTestApp();
  sysAdmin = await signUp(t.app);
  owner = await signUp(t.app, { name: 'Olivia Owner' });
  member = await signUp(t.app);
  outsider = await signUp(t.app);
  project = await makeProject(owner);
  await addMember(owner, project.id, member);
});
afterAll(async () => t.close());

describe('adding and listing attachments', () => {
  it('adds a file to a ticket: 201 with the attachment, stored under a generated name', async () => {
    const ticket = await makeTicket(owner, project.id);
    const data = await makePng();
    const res = await upload(member, attachmentsUrl(ticket.id), {
      filename: 'screen shot.png',
      contentType: 'image/png',
      data,
    });
    expect(res.statusCode, res.body).toBe(201);
    const a = res.json();
    expect(a).toEqual({
      id: expect.any(String),
      filename: 'screen shot.png',
      mimeType: 'image/png',
      size: data.length,
      url: expect.stringMatching(/^\/uploads\/attachments\/\d+-[0-9a-f]+\.png$/),
      createdAt: expect.any(String),
      uploader: { id: member.userId, name: member.username, avatar: null },
    });
    expect(await storedFiles(t.config, 'attachments')).toContain(storedName(a.url));
    const read = await owner.get(`/api/projects/${project.id}/tickets/${ticket.id}`);
    expect(read.json().attachmentCount).toBe(1);
  });

  it('lists attachments oldest first, with X-Total-Count, limit and offset, by ticket id or key', async () => {
    const ticket = await makeTicket(owner, project.id);
    const names = ['one.txt', 'two.pdf', 'three.png'];
    await upload(owner, attachmentsUrl(ticket.id), {
      filename: names[0],
      contentType: 'text/plain',
      data: makeText(),
    });
    await upload(owner, attachmentsUrl(ticket.id), {
      filename: names[1],
      contentType: 'application/pdf',
      data: makePdf(),
    });
    await upload(owner, attachmentsUrl(ticket.id), {
      filename: names[2],
      contentType: 'image/png',
      data: await makePng(),
    });
    const all = await member.get(attachmentsUrl(ticket.id));
    expect(all.statusCode).toBe(200);
    expect(all.headers['x-total-count']).toBe('3');
    expect(all.json().map((a: { filename: string }) => a.filename)).toEqual(names);
    expect(all.json()[0].uploader).toEqual({ id: owner.userId, name: 'Olivia Owner', avatar: null });
    const page = await member.get(`${attachmentsUrl(ticket.id)}?limit=1&offset=1`);
    expect(page.json().map((a: { filename: string }) => a.filename)).toEqual(['two.pdf']);
    expect(page.headers['x-total-count']).toBe('3');
    const byKey = await member.get(
      attachmentsUrl(`${project.key}-${ticket.number}`, project.key.toLowerCase()),
    );
    expect(byKey.statusCode).toBe(200);
    expect(byKey.json()).toHaveLength(3);
  });

  it('checks attachments like any upload and leaves nothing behind when refusing', async () => {
    const ticket = await makeTicket(owner, project.id);
    const before = await allUploadAreaFiles(t.config);
    const html = await upload(member, attachmentsUrl(ticket.id), {
      filename: 'x.png',
      contentType: 'image/png',
      data: makeHtml(),
    });
    expect(html.statusCode).toBe(400);
    expect(html.json().error).toBe('File type not allowed');
    const none = await member.post(attachmentsUrl(ticket.id), {});
    expect(none.statusCode).toBe(400);
    expect(none.json()).toEqual({ error: 'No file provided' });
    await setSettings(sysAdmin, { maxVideoSize: 1000 });
    try {
      const video = makeMp4(5000);
      const big = await upload(member, attachmentsUrl(ticket.id), {
        filename: 'v.mp4',
        contentType: 'video/mp4',
        data: video,
      });
      expect(big.statusCode).toBe(400);
      expect(big.json()).toEqual({ error: 'File too large', maxSize: 1000, actualSize: video.length });
    } finally {
      await setSettings(sysAdmin, { maxVideoSize: DEFAULT_SETTINGS.maxVideoSize });
    }
    expect(await allUploadAreaFiles(t.config)).toEqual(before);
    expect(await attachmentRows(ticket.id)).toEqual([]);
  });

  it('hides the project from non-members (404) and reports unknown tickets (404) without storing anything', async () => {
    const ticket = await makeTicket(owner, project.id);
    const before = await allUploadAreaFiles(t.config);
    const part = { filename: 'a.txt', contentType: 'text/plain', data: makeText() };
    const list = await outsider.get(attachmentsUrl(ticket.id));
    expect(list.statusCode).toBe(404);
    expect(list.json()).toEqual({ error: 'Project not found' });
    const add = await upload(outsider, attachmentsUrl(ticket.id), part);
    expect(add.statusCode).toBe(404);
    expect(add.json()).toEqual({ error: 'Project not found' });
    const missing = await upload(member, attachmentsUrl('0190a0a0-0000-7000-8000-000000000000'), part);
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toEqual({ error: 'Ticket not found' });
    const otherProject = await makeProject(outsider);
    const foreign = await upload(outsider, attachmentsUrl(ticket.id, otherProject.id), part);
    expect(foreign.statusCode).toBe(404);
    expect(foreign.json()).toEqual({ error: 'Ticket not found' });
    expect(await allUploadAreaFiles(t.config)).toEqual(before);
    expect((await t.app.inject({ method: 'GET', url: attachmentsUrl(ticket.id) })).statusCode).toBe(401);
  });

  it('emits attachment.added to the project stream', async () => {
    const ticket = await makeTicket(owner, project.id);
    const res = await upload(member, attachmentsUrl(ticket.id), {
      filename: 'e.txt',
      contentType: 'text/plain',
      data: makeText(),
    });
    const events = await eventsOf('attachment.added');
    expect(events.at(-1)).toEqual({
      scope: 'project',
      projectId: project.id,
      data: { ...res.json(), ticketId: ticket.id },
    });
  });
});

describe('the attachment limit per ticket', () => {
  it('refuses the attachment over maxAttachmentsPerTicket with 400 Attachment limit reached', async () => {
    const ticket = await makeTicket(owner, project.id);
    await setSettings(sysAdmin, { maxAttachmentsPerTicket: 2 });
    try {
      for (const n of [1, 2]) {
        const ok = await upload(member, attachmentsUrl(ticket.id), {
          filename: `${n}.txt`,
          contentType: 'text/plain',
          data: makeText(),
        });
        expect(ok.statusCode, ok.body).toBe(201);
      }
      const before = await allUploadAreaFiles(t.config);
      const third = await upload(member, attachmentsUrl(ticket.id), {
        filename: '3.txt',
        contentType: 'text/plain',
        data: makeText(),
      });
      expect(third.statusCode).toBe(400);
      expect(third.json()).toEqual({ error: 'Attachment limit reached' });
      expect(await allUploadAreaFiles(t.config)).toEqual(before);
      // Another ticket has its own count.
      const other = await makeTicket(owner, project.id);
      expect(
        (
          await upload(member, attachmentsUrl(other.id), {
            filename: 'x.txt',
            contentType: 'text/plain',
            data: makeText(),
          })
        ).statusCode,
      ).toBe(201);
    } finally {
      await setSettings(sysAdmin, { maxAttachmentsPerTicket: DEFAULT_SETTINGS.maxAttachmentsPerTicket });
    }
  });

  it('lets only as many concurrent uploads through as the limit leaves room for', async () => {
    const ticket = await makeTicket(owner, project.id);
    await setSettings(sysAdmin, { maxAttachmentsPerTicket: 3 });
    try {
      await upload(member, attachmentsUrl(ticket.id), {
        filename: 'first.txt',
        contentType: 'text/plain',
        data: makeText(),
      });
      const data = await makePng();
      const results = await Promise.all(
        Array.from({ length: 6 }, (_, i) =>
          upload(i % 2 ? member : owner, attachmentsUrl(ticket.id), {
            filename: `c${i}.png`,
            contentType: 'image/png',
            data,
          }),
        ),
      );
      const codes = results.map((r) => r.statusCode).sort();
      expect(codes).toEqual([201, 201, 400, 400, 400, 400]);
      const rows = await attachmentRows(ticket.id);
      expect(rows).toHaveLength(3);
      const onDisk = await storedFiles(t.config, 'attachments');
      for (const r of rows) expect(onDisk).toContain(r.stored_name);
      // No file of a refused upload stays behind.
      const all = (await attachmentRows()).map((r) => r.stored_name).sort();
      expect(onDisk).toEqual(all);
    } finally {
      await setSettings(sysAdmin, { maxAttachmentsPerTicket: DEFAULT_SETTINGS.maxAttachmentsPerTicket });
    }
  });
});

describe('serving attachments', () => {
  it('serves an attachment to members and system administrators only; others get 404', async () => {
    const ticket = await makeTicket(owner, project.id);
    const data = makePdf();
    const a = (
      await upload(member, attachmentsUrl(ticket.id), {
        filename: 'Plan.pdf',
        contentType: 'application/pdf',
        data,
      })
    ).json();
    const asMember = await member.get(a.url);
    expect(asMember.statusCode).toBe(200);
    expect(asMember.rawPayload.equals(data)).toBe(true);
    expect(asMember.headers['content-type']).toBe('application/pdf');
    expect(asMember.headers['content-disposition']).toBe(
      `attachment; filename="Plan.pdf"; filename*=UTF-8''Plan.pdf`,
    );
    expect(asMember.headers['x-content-type-options']).toBe('nosniff');
    expect((await sysAdmin.get(a.url)).statusCode).toBe(200);
    const denied = await outsider.get(a.url);
    expect(denied.statusCode).toBe(404);
    expect((await t.app.inject({ method: 'GET', url: a.url })).statusCode).toBe(401);
  });

  it('stops serving a member who left the project', async () => {
    const leaver = await signUp(t.app);
    const membership = await addMember(owner, project.id, leaver);
    const ticket = await makeTicket(owner, project.id);
    const a = (
      await upload(owner, attachmentsUrl(ticket.id), {
        filename: 'a.png',
        contentType: 'image/png',
        data: await makePng(),
      })
    ).json();
    expect((await leaver.get(a.url)).statusCode).toBe(200);
    expect((await leaver.del(`/api/projects/${project.id}/members/${membership.id}`)).statusCode).toBe(200);
    expect((await leaver.get(a.url)).statusCode).toBe(404);
  });
});

describe('deleting attachments', () => {
  it('lets the uploader delete: 200 {success: true}, the row, the file and the URL go, attachment.deleted is emitted', async () => {
    const ticket = await makeTicket(owner, project.id);
    const a = (
      await upload(member, attachmentsUrl(ticket.id), {
        filename: 'a.txt',
        contentType: 'text/plain',
        data: makeText(),
      })
    ).json();
    const res = await member.del(`${attachmentsUrl(ticket.id)}/${a.id}`);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ success: true });
    expect(await storedFiles(t.config, 'attachments')).not.toContain(storedName(a.url));
    expect(await attachmentRows(ticket.id)).toEqual([]);
    expect((await member.get(a.url)).statusCode).toBe(404);
    expect((await eventsOf('attachment.deleted')).at(-1)).toEqual({
      scope: 'project',
      projectId: project.id,
      data: { id: a.id, ticketId: ticket.id },
    });
    const again = await member.del(`${attachmentsUrl(ticket.id)}/${a.id}`);
    expect(again.statusCode).toBe(404);
    expect(again.json()).toEqual({ error: 'Attachment not found' });
  });

  it("refuses another member's attachment to a plain member (403) and allows it to the owner", async () => {
    const ticket = await makeTicket(owner, project.id);
    const other = await signUp(t.app);
    await addMember(owner, project.id, other);
    const a = (
      await upload(member, attachmentsUrl(ticket.id), {
        filename: 'a.txt',
        contentType: 'text/plain',
        data: makeText(),
      })
    ).json();
    const denied = await other.del(`${attachmentsUrl(ticket.id)}/${a.id}`);
    expect(denied.statusCode).toBe(403);
    expect(await storedFiles(t.config, 'attachments')).toContain(storedName(a.url));
    expect((await outsider.del(`${attachmentsUrl(ticket.id)}/${a.id}`)).statusCode).toBe(404);
    expect((await owner.del(`${attachmentsUrl(ticket.id)}/${a.id}`)).statusCode).toBe(200);
  });

  it('answers 404 for an attachment of another ticket', async () => {
    const t1 = await makeTicket(owner, project.id);
    const t2 = await makeTicket(owner, project.id);
    const a = (
      await upload(owner, attachmentsUrl(t1.id), {
        filename: 'a.txt',
        contentType: 'text/plain',
        data: makeText(),
      })
    ).json();
    const res = await owner.del(`${attachmentsUrl(t2.id)}/${a.id}`);
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ error: 'Attachment not found' });
  });
});

describe('files of deleted tickets, projects and users', () => {
  it('keeps the files of a deleted ticket while it is in the trash, and removes them when it is purged', async () => {
    const ticket = await makeTicket(owner, project.id);
    const a = (
      await upload(owner, attachmentsUrl(ticket.id), {
        filename: 'a.png',
        contentType: 'image/png',
        data: await makePng(),
      })
    ).json();
    const del = await owner.del(`/api/projects/${project.id}/tickets/${ticket.id}`);
    expect(del.statusCode).toBe(200);
    expect(await storedFiles(t.config, 'attachments')).toContain(storedName(a.url));
    expect((await owner.get(a.url)).statusCode).toBe(404);
    const purge = await owner.del(`/api/projects/${project.id}/trash/${del.json().trashId}`);
    expect(purge.statusCode).toBe(200);
    expect(await storedFiles(t.config, 'attachments')).not.toContain(storedName(a.url));
  });

  it('removes the files of a deleted project', async () => {
    const doomed = await makeProject(owner);
    const ticket = await makeTicket(owner, doomed.id);
    const a = (
      await upload(owner, attachmentsUrl(ticket.id, doomed.id), {
        filename: 'a.txt',
        contentType: 'text/plain',
        data: makeText(),
      })
    ).json();
    expect(await storedFiles(t.config, 'attachments')).toContain(storedName(a.url));
    expect((await owner.del(`/api/projects/${doomed.id}`)).statusCode).toBe(200);
    expect(await storedFiles(t.config, 'attachments')).not.toContain(storedName(a.url));
  });

  it("keeps a deleted user's attachments in shared projects, shown as by a deleted user, and removes those of their solo projects", async () => {
    const leaving = await signUp(t.app);
    await addMember(owner, project.id, leaving);
    const shared = await makeTicket(owner, project.id);
    const kept = (
      await upload(leaving, attachmentsUrl(shared.id), {
        filename: 'k.txt',
        contentType: 'text/plain',
        data: makeText(),
      })
    ).json();
    const solo = await makeProject(leaving);
    const soloTicket = await makeTicket(leaving, solo.id);
    const gone = (
      await upload(leaving, attachmentsUrl(soloTicket.id, solo.id), {
        filename: 'g.txt',
        contentType: 'text/plain',
        data: makeText(),
      })
    ).json();
    const del = await leaving.del('/api/me/account', {
      password: PASSWORD,
      confirmation: 'delete my account',
    });
    expect(del.statusCode, del.body).toBe(200);
    const files = await storedFiles(t.config, 'attachments');
    expect(files).toContain(storedName(kept.url));
    expect(files).not.toContain(storedName(gone.url));
    const list = await owner.get(attachmentsUrl(shared.id));
    expect(list.json()[0].uploader).toEqual({ id: null, name: 'Deleted user', avatar: null });
  });
});
