import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { composeDueDigests } from '../src/domain/notifications/digest.js';
import { createTestApp, type TestApp } from './helpers/app.js';
import { addMember, makeProject, makeTicket } from './helpers/board.js';
import { signUp, unique } from './helpers/factories.js';

/**
 * Settings and what they decide about e-mail. These apps have SMTP configured but no server
 * listening and the sender not running (DOCKET_MAIL_SENDER=off): the outbox rows are the result.
 */
let t: TestApp;
let off: TestApp;
beforeAll(async () => {
  t = await createTestApp({
    DOCKET_SMTP_URL: 'smtp://127.0.0.1:1',
    DOCKET_MAIL_FROM: 'Docket <docket@example.com>',
    DOCKET_PUBLIC_URL: 'https://docket.example.com/base',
    DOCKET_MAIL_SENDER: 'off',
  });
  off = await createTestApp();
  await signUp(t.app, { username: 'root_admin_s' });
  await signUp(off.app, { username: 'root_admin_o' });
});
afterAll(async () => {
  await t.close();
  await off.close();
});

const outbox = (app: TestApp, userId: string) =>
  app.app.services.db.kysely
    .selectFrom('mail_outbox')
    .selectAll()
    .where('user_id', '=', userId)
    .orderBy('created_at')
    .execute();

async function person(app: TestApp) {
  return signUp(app.app, { email: `${unique()}@example.com`, name: 'Person' });
}

describe('GET/PATCH /api/me/notification-settings', () => {
  it('starts from the defaults: digest, hourly, every type', async () => {
    const u = await person(t);
    const res = await u.get('/api/me/notification-settings');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      email: 'digest',
      digestMinutes: 60,
      emailAvailable: true,
      types: {
        mentioned: true,
        assigned: true,
        commented: true,
        updated: true,
        added_to_project: true,
        sprint_started: true,
        sprint_completed: true,
        webhook_disabled: true,
      },
    });
    expect((await (await person(off)).get('/api/me/notification-settings')).json().emailAvailable).toBe(
      false,
    );
  });

  it('changes parts and keeps the rest; refuses bad values with 400 and changes nothing', async () => {
    const u = await person(t);
    const res = await u.patch('/api/me/notification-settings', {
      email: 'instant',
      types: { commented: false },
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      email: 'instant',
      digestMinutes: 60,
      types: { commented: false, mentioned: true },
    });
    expect((await u.patch('/api/me/notification-settings', { digestMinutes: 15 })).json()).toMatchObject({
      email: 'instant',
      digestMinutes: 15,
      types: { commented: false },
    });
    for (const body of [
      { email: 'sometimes' },
      { digestMinutes: 1 },
      { digestMinutes: 'x' },
      { types: { nope: true } },
      { types: { mentioned: 'yes' } },
      { extra: 1 },
    ]) {
      const bad = await u.patch('/api/me/notification-settings', body);
      expect(bad.statusCode, JSON.stringify(body)).toBe(400);
    }
    expect((await u.get('/api/me/notification-settings')).json()).toMatchObject({
      email: 'instant',
      digestMinutes: 15,
    });
    expect((await t.app.inject({ method: 'GET', url: '/api/me/notification-settings' })).statusCode).toBe(
      401,
    );
  });
});

describe('e-mail follows the settings', () => {
  async function setup(app: TestApp) {
    const owner = await person(app);
    const ann = await person(app);
    const p = await makeProject(owner);
    await addMember(owner, p.id, ann);
    return { owner, ann, p };
  }

  it('by default e-mails assignments and mentions at once and keeps the rest for the digest', async () => {
    const { owner, ann, p } = await setup(t);
    // Being added: digest. Assigned: at once.
    const ticket = await makeTicket(owner, p.id, { title: 'Mail me', assigneeId: ann.userId });
    let rows = await outbox(t, ann.userId);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ kind: 'instant', status: 'pending' });
    expect(rows[0].subject).toBe(`[${ticket.key}] Person assigned you: Mail me`);
    expect(rows[0].text_body).toContain(`https://docket.example.com/base/projects/${p.key}/${ticket.key}`);
    expect(rows[0].html_body).toContain(
      `href="https://docket.example.com/base/projects/${p.key}/${ticket.key}"`,
    );
    expect(rows[0].unsubscribe_url).toMatch(
      /^https:\/\/docket\.example\.com\/base\/api\/notifications\/unsubscribe\?token=/,
    );
    expect(rows[0].text_body).toContain(rows[0].unsubscribe_url);
    // A comment: digest, not mailed now.
    await owner.post(`/api/projects/${p.id}/tickets/${ticket.id}/comments`, { content: 'A <b>comment</b>' });
    rows = await outbox(t, ann.userId);
    expect(rows).toHaveLength(1);

    // The digest comes when the oldest waiting notification is digestMinutes old.
    expect(await composeDueDigests(t.app.services, new Date())).toBe(0);
    expect(
      await composeDueDigests(t.app.services, new Date(Date.now() + 61 * 60_000)),
    ).toBeGreaterThanOrEqual(1);
    rows = await outbox(t, ann.userId);
    expect(rows).toHaveLength(2);
    expect(rows[1].kind).toBe('digest');
    // The comment folded into the assignment (one actor, one ticket); being added to the project waited.
    expect(rows[1].subject).toBe('Docket: 1 notification');
    expect(rows[1].text_body).toContain(`Person added you to ${p.key}`);
    // Nothing left to digest.
    expect(await composeDueDigests(t.app.services, new Date(Date.now() + 200 * 60_000))).toBe(0);
  });

  it('leaving a project drops its unsent e-mail and its waiting digest entries', async () => {
    const { owner, ann, p } = await setup(t);
    await makeTicket(owner, p.id, { assigneeId: ann.userId });
    expect(await outbox(t, ann.userId)).toHaveLength(1);
    expect((await ann.del(`/api/projects/${p.id}/members/${ann.userId}`)).statusCode).toBe(200);
    expect(await outbox(t, ann.userId)).toHaveLength(0);
    await composeDueDigests(t.app.services, new Date(Date.now() + 61 * 60_000));
    expect(await outbox(t, ann.userId)).toHaveLength(0); // being added to the project was waiting: gone too
  });

  it('two digest runs at the same moment queue one digest', async () => {
    const { owner, ann, p } = await setup(t);
    const ticket = await makeTicket(owner, p.id, { watcherIds: [ann.userId] });
    await owner.patch(`/api/projects/${p.id}/tickets/${ticket.id}`, { priority: 'High' });
    const later = new Date(Date.now() + 61 * 60_000);
    await Promise.all([
      composeDueDigests(t.app.services, later),
      composeDueDigests(t.app.services, later),
      composeDueDigests(t.app.services, later),
    ]);
    const digests = (await outbox(t, ann.userId)).filter((r) => r.kind === 'digest');
    expect(digests).toHaveLength(1);
    expect(digests[0].subject).toBe('Docket: 2 notifications');
  });

  it('instant mails every type, off and disabled types mail nothing, and without SMTP nothing is queued', async () => {
    const { owner, ann, p } = await setup(t);
    await ann.patch('/api/me/notification-settings', { email: 'instant', types: { commented: false } });
    const ticket = await makeTicket(owner, p.id, { watcherIds: [ann.userId] });
    await owner.patch(`/api/projects/${p.id}/tickets/${ticket.id}`, { priority: 'High' });
    expect((await outbox(t, ann.userId)).map((r) => r.subject)).toEqual([
      `[${ticket.key}] Person changed: A ticket`,
    ]);
    // Folded into the same notification: not mailed again.
    await owner.patch(`/api/projects/${p.id}/tickets/${ticket.id}`, { priority: 'Low' });
    expect(await outbox(t, ann.userId)).toHaveLength(1);
    const other = await makeTicket(owner, p.id, { watcherIds: [ann.userId] });
    await owner.post(`/api/projects/${p.id}/tickets/${other.id}/comments`, { content: 'quiet' });
    expect(await outbox(t, ann.userId)).toHaveLength(1);
    await ann.patch('/api/me/notification-settings', { email: 'off' });
    await makeTicket(owner, p.id, { assigneeId: ann.userId });
    expect(await outbox(t, ann.userId)).toHaveLength(1);
    expect((await ann.get('/api/me/notifications?type=assigned')).json().items).toHaveLength(1);

    const o = await setup(off);
    await makeTicket(o.owner, o.p.id, { assigneeId: o.ann.userId });
    expect(await outbox(off, o.ann.userId)).toHaveLength(0);
    expect((await o.ann.get('/api/me/notifications')).json().unreadCount).toBe(2);
  });

  it('one-click unsubscribe: a signed token, no sign-in; a forged token changes nothing', async () => {
    const { owner, ann, p } = await setup(t);
    await makeTicket(owner, p.id, { assigneeId: ann.userId });
    const [row] = await outbox(t, ann.userId);
    const url = new URL(row.unsubscribe_url);
    const path = `${url.pathname.replace(/^\/base/, '')}${url.search}`;
    const page = await t.app.inject({ method: 'GET', url: path });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toMatch(/text\/html/);
    expect(page.body).toContain('<form method="post"');
    // GET alone does not unsubscribe (mail scanners follow links).
    expect((await ann.get('/api/me/notification-settings')).json().email).toBe('digest');
    const token = url.searchParams.get('token') ?? '';
    const forged = `${owner.userId}.${token.split('.')[1]}`;
    const refused = await t.app.inject({
      method: 'POST',
      url: `/api/notifications/unsubscribe?token=${encodeURIComponent(forged)}`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'List-Unsubscribe=One-Click',
    });
    expect(refused.statusCode).toBe(400);
    expect((await owner.get('/api/me/notification-settings')).json().email).toBe('digest');
    const done = await t.app.inject({
      method: 'POST',
      url: path,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'List-Unsubscribe=One-Click',
    });
    expect(done.statusCode).toBe(200);
    expect(done.json()).toEqual({ success: true, email: 'off' });
    expect((await ann.get('/api/me/notification-settings')).json().email).toBe('off');
    // The page's own form (a browser asks for HTML): a page again, and still off.
    const form = await t.app.inject({
      method: 'POST',
      url: path,
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'text/html' },
      payload: 'List-Unsubscribe=One-Click',
    });
    expect(form.statusCode).toBe(200);
    expect(form.headers['content-type']).toMatch(/text\/html/);
    expect(form.body).toContain('Unsubscribed');
  });
});
