import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config.js';
import { ERR } from '../src/shared/errors.js';
import { createTestApp, dialect, type TestApp } from './helpers/app.js';
import { addMember, makeProject, makeTicket, type ProjectOut } from './helpers/board.js';
import { type Client, signUp } from './helpers/factories.js';
import { eventually } from './helpers/wait.js';
import { type Receiver, startReceiver } from './helpers/webhook-receiver.js';

/**
 * Webhooks through the API against a real HTTP receiver (test/helpers/webhook-receiver.ts): the
 * app's own sender delivers from the outbox written in each change's transaction.
 */

const SECRET = 'a-shared-secret-of-32-characters';
const sign = (body: string, secret = SECRET) =>
  `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;

let t: TestApp;
let rx: Receiver;
let owner: Client;
let member: Client;
let project: ProjectOut;

const hooksOf = (projectId: string) => `/api/projects/${projectId}/webhooks`;

async function addHook(c: Client, projectId: string, body: Record<string, unknown>) {
  const res = await c.post(hooksOf(projectId), { secret: SECRET, events: ['ticket.created'], ...body });
  expect(res.statusCode, res.body).toBe(201);
  return res.json() as { id: string; secret: string; url: string; active: boolean };
}

/** A fresh project with one hook to the receiver under `path` (the receiver tells hooks apart by path). */
async function projectWithHook(path: string, events: string[] = ['ticket.created', 'ticket.updated']) {
  const p = await makeProject(owner);
  const hook = await addHook(owner, p.id, { url: `${rx.url}${path}`, events });
  return { p, hook };
}

const at = (path: string) => rx.received.filter((r) => r.path === path);

async function deliveries(c: Client, projectId: string, hookId: string) {
  const res = await c.get(`${hooksOf(projectId)}/${hookId}/deliveries?limit=200`);
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as { items: any[]; total: number };
}

async function settled(projectId: string, hookId: string, count: number, timeoutMs = 20_000) {
  await eventually(
    async () => {
      const d = await deliveries(owner, projectId, hookId);
      return d.total >= count && d.items.every((i) => i.status !== 'pending');
    },
    `${count} settled deliveries`,
    { timeoutMs, everyMs: 50 },
  );
  return (await deliveries(owner, projectId, hookId)).items;
}

beforeAll(async () => {
  rx = await startReceiver();
  t = await createTestApp({
    DOCKET_WEBHOOK_ALLOW_PRIVATE: 'true',
    DOCKET_WEBHOOK_BACKOFF_SECONDS: '0.1',
    DOCKET_WEBHOOK_TIMEOUT_SECONDS: '1',
  });
  await t.app.ready();
  await signUp(t.app); // the first account is a system administrator
  owner = await signUp(t.app);
  member = await signUp(t.app);
  project = await makeProject(owner);
  await addMember(owner, project.id, member);
}, 60_000);

afterAll(async () => {
  await t?.close();
  await rx?.close();
});

describe(`webhooks: managing hooks (${dialect})`, () => {
  it('refuses a configuration whose lease is not longer than the timeout, or a bad switch', () => {
    const bad = { DOCKET_WEBHOOK_LEASE_SECONDS: '10', DOCKET_WEBHOOK_TIMEOUT_SECONDS: '10' };
    expect(() => loadConfig(bad)).toThrow(ConfigError);
    expect(() => loadConfig(bad)).toThrow(/DOCKET_WEBHOOK_LEASE_SECONDS/);
    expect(() => loadConfig({ DOCKET_WEBHOOK_ALLOW_PRIVATE: 'yes' })).toThrow(/DOCKET_WEBHOOK_ALLOW_PRIVATE/);
    expect(loadConfig({})).toMatchObject({
      webhookAllowPrivate: false,
      webhookRetrySeconds: 86_400,
      webhookTimeoutSeconds: 10,
    });
  });

  it('creates a hook with a made secret shown once, lists, changes and deletes it', async () => {
    const res = await owner.post(hooksOf(project.id), { url: `${rx.url}/crud`, events: ['ticket.created'] });
    expect(res.statusCode, res.body).toBe(201);
    const made = res.json();
    expect(made.secret.length).toBeGreaterThanOrEqual(32);
    expect(made).toMatchObject({ url: `${rx.url}/crud`, events: ['ticket.created'], active: true });

    const list = await owner.get(hooksOf(project.id));
    expect(list.statusCode).toBe(200);
    expect(list.json().map((h: { id: string }) => h.id)).toContain(made.id);
    expect(list.body).not.toContain(made.secret);

    const patched = await owner.patch(`${hooksOf(project.id)}/${made.id}`, {
      events: ['ticket.created', 'comment.created'],
      active: false,
    });
    expect(patched.statusCode, patched.body).toBe(200);
    expect(patched.json()).toMatchObject({ active: false, events: ['ticket.created', 'comment.created'] });
    expect(patched.body).not.toContain(made.secret);

    expect((await owner.del(`${hooksOf(project.id)}/${made.id}`)).statusCode).toBe(200);
    expect((await owner.get(`${hooksOf(project.id)}/${made.id}`)).json()).toEqual({
      error: ERR.webhookNotFound,
    });
  });

  it('refuses bad input with 400 and writes nothing', async () => {
    const before = (await owner.get(hooksOf(project.id))).json().length;
    for (const body of [
      { url: 'ftp://example.com/hook', events: ['ticket.created'] },
      { url: 'https://user:pw@example.com/hook', events: ['ticket.created'] },
      { url: 'not a url', events: ['ticket.created'] },
      { url: `${rx.url}/x`, events: [] },
      { url: `${rx.url}/x`, events: ['ticket.exploded'] },
      { url: `${rx.url}/x`, events: ['ticket.created', 'ticket.created'] },
      { url: `${rx.url}/x`, events: ['ticket.created'], secret: 'short' },
      { url: `${rx.url}/x`, events: ['ticket.created'], extra: true },
    ]) {
      const res = await owner.post(hooksOf(project.id), body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json().error).toBe(ERR.validation);
    }
    const hook = await addHook(owner, project.id, { url: `${rx.url}/bad` });
    expect((await owner.patch(`${hooksOf(project.id)}/${hook.id}`, {})).statusCode).toBe(400);
    expect((await owner.patch(`${hooksOf(project.id)}/${hook.id}`, { url: 'gopher://x' })).statusCode).toBe(
      400,
    );
    expect((await owner.get(hooksOf(project.id))).json().length).toBe(before + 1);
    expect((await owner.get(`${hooksOf(project.id)}/00000000-0000-7000-8000-000000000000`)).statusCode).toBe(
      404,
    );
    const unknown = await owner.post(
      `${hooksOf(project.id)}/${hook.id}/deliveries/00000000-0000-7000-8000-000000000000/redeliver`,
    );
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json().error).toBe(ERR.deliveryNotFound);
  });

  it('lets only admins and owners manage hooks: a member gets 403, a stranger 404', async () => {
    const stranger = await signUp(t.app);
    expect((await member.get(hooksOf(project.id))).statusCode).toBe(403);
    expect(
      (await member.post(hooksOf(project.id), { url: `${rx.url}/m`, events: ['ticket.created'] })).statusCode,
    ).toBe(403);
    const res = await stranger.get(hooksOf(project.id));
    expect(res.statusCode).toBe(404);
    expect(res.json().error).toBe(ERR.projectNotFound);
  });

  it('refuses loopback, link-local and private targets unless allowed, and writes nothing', async () => {
    const strict = await createTestApp();
    try {
      const admin = await signUp(strict.app);
      const p = await makeProject(admin);
      for (const url of [
        'http://127.0.0.1:9/hook',
        'http://localhost/hook',
        'http://10.1.2.3/hook',
        'http://192.168.1.1/hook',
        'http://169.254.169.254/latest/meta-data',
        'http://[::1]/hook',
        'http://[::ffff:127.0.0.1]/hook',
        'http://[fd00::1]/hook',
        'http://0.0.0.0/hook',
      ]) {
        const res = await admin.post(hooksOf(p.id), { url, events: ['ticket.created'] });
        expect(res.statusCode, url).toBe(400);
        expect(res.json().details).toEqual([{ path: 'url', message: ERR.webhookTargetRefused }]);
      }
      expect((await admin.get(hooksOf(p.id))).json()).toEqual([]);
      // A public name is accepted (it is checked again at every delivery).
      const ok = await admin.post(hooksOf(p.id), {
        url: 'https://hooks.example.com/docket',
        events: ['ticket.created'],
      });
      expect(ok.statusCode, ok.body).toBe(201);
      const moved = await admin.patch(`${hooksOf(p.id)}/${ok.json().id}`, { url: 'http://127.0.0.1/x' });
      expect(moved.statusCode).toBe(400);
    } finally {
      await strict.close();
    }
  });
});

describe(`webhooks: delivery to a real receiver (${dialect})`, () => {
  it('POSTs the event with the ticket as the API presents it, signed with the secret', async () => {
    const { p, hook } = await projectWithHook('/signed');
    const ticket = await makeTicket(owner, p.id, { title: 'Signed delivery' });
    const [d] = await settled(p.id, hook.id, 1);
    expect(d).toMatchObject({
      status: 'delivered',
      attempts: 1,
      responseStatus: 200,
      event: 'ticket.created',
    });
    expect(d.durationMs).toBeGreaterThanOrEqual(0);
    const [r] = at('/signed');
    expect(r.headers['content-type']).toBe('application/json');
    expect(r.headers['x-docket-event']).toBe('ticket.created');
    expect(r.headers['x-docket-delivery']).toBe(d.id);
    expect(r.headers['x-docket-signature']).toBe(sign(r.body));
    expect(r.headers['x-docket-signature']).not.toBe(sign(r.body, 'another-secret-of-enough-length'));
    expect(r.json).toMatchObject({
      deliveryId: d.id,
      event: 'ticket.created',
      project: { id: p.id, key: p.key },
    });
    const read = await owner.get(`/api/projects/${p.id}/tickets/${ticket.id}`);
    expect(r.json.data).toEqual(read.json());
    expect(d.payload).toEqual(r.json);
  });

  it('sends only the subscribed events of active hooks, and nothing for a change that failed', async () => {
    const { p, hook } = await projectWithHook('/subscribed', ['ticket.updated']);
    const ticket = await makeTicket(owner, p.id);
    const bad = await owner.patch(`/api/projects/${p.id}/tickets/${ticket.id}`, { columnId: 'nope' });
    expect(bad.statusCode).toBeGreaterThanOrEqual(400);
    expect(
      (await owner.patch(`/api/projects/${p.id}/tickets/${ticket.id}`, { title: 'Renamed' })).statusCode,
    ).toBe(200);
    const items = await settled(p.id, hook.id, 1);
    expect(items.map((i) => i.event)).toEqual(['ticket.updated']);
    expect(at('/subscribed').map((r) => r.json.data.title)).toEqual(['Renamed']);
    // Off: nothing is queued.
    await owner.patch(`${hooksOf(p.id)}/${hook.id}`, { active: false });
    await owner.patch(`/api/projects/${p.id}/tickets/${ticket.id}`, { title: 'Unheard' });
    expect((await deliveries(owner, p.id, hook.id)).total).toBe(1);
  });

  it('retries a failing receiver with back-off, sending the same delivery id and body', async () => {
    const { p, hook } = await projectWithHook('/retry');
    rx.answer = (r, n) => (r.path === '/retry' && n < 2 ? { status: 503 } : { status: 200 });
    try {
      await makeTicket(owner, p.id);
      const [d] = await settled(p.id, hook.id, 1);
      expect(d).toMatchObject({ status: 'delivered', attempts: 3, responseStatus: 200, error: null });
      const got = at('/retry');
      expect(got).toHaveLength(3);
      expect(new Set(got.map((r) => r.headers['x-docket-delivery']))).toEqual(new Set([d.id]));
      expect(new Set(got.map((r) => r.body)).size).toBe(1);
      // Back-off: the second retry waited longer than the first (0.1 s, then 0.2 s, ±20 %).
      expect(got[1].at - got[0].at).toBeGreaterThanOrEqual(70);
      expect(got[2].at - got[1].at).toBeGreaterThanOrEqual(150);
    } finally {
      rx.answer = () => ({ status: 200 });
    }
  });

  it('delivers the changes of one ticket in order, while another ticket is not held up', async () => {
    const { p, hook } = await projectWithHook('/order');
    const first = await makeTicket(owner, p.id, { title: 'v0' });
    let failures = 0;
    // The first ticket's first delivery fails four times: its later changes must wait for it.
    rx.answer = (r, n) => {
      const fail =
        r.path === '/order' && r.json?.data?.id === first.id && r.json.event === 'ticket.created' && n < 4;
      if (fail) failures++;
      return { status: fail ? 500 : 200 };
    };
    try {
      for (let i = 1; i <= 5; i++)
        await owner.patch(`/api/projects/${p.id}/tickets/${first.id}`, { title: `v${i}` });
      const other = await makeTicket(owner, p.id, { title: 'other' });
      await settled(p.id, hook.id, 7);
      expect(failures).toBe(4);
      const ofFirst = at('/order').filter((r) => r.json.data.id === first.id);
      expect(ofFirst.map((r) => r.json.data.title)).toEqual([
        'v0',
        'v0',
        'v0',
        'v0',
        'v0',
        'v1',
        'v2',
        'v3',
        'v4',
        'v5',
      ]);
      const ids = ofFirst.map((r) => r.json.eventId);
      expect(ids).toEqual([...ids].sort((a, b) => a - b));
      // The other ticket went out while the first was still being retried.
      const otherAt = at('/order').find((r) => r.json.data.id === other.id)?.at ?? 0;
      expect(otherAt).toBeLessThan(ofFirst[4].at);
    } finally {
      rx.answer = () => ({ status: 200 });
    }
  });

  it('does not follow redirects and gives up on a slow receiver at the timeout', async () => {
    const { p, hook } = await projectWithHook('/redirect');
    rx.answer = (r) =>
      r.path === '/redirect'
        ? { status: 302, headers: { location: `${rx.url}/redirected` } }
        : r.path === '/slow'
          ? { status: 200, delayMs: 3000 }
          : { status: 200 };
    try {
      await makeTicket(owner, p.id);
      await eventually(
        async () => (await deliveries(owner, p.id, hook.id)).items[0]?.attempts >= 2,
        'two attempts',
      );
      const [d] = (await deliveries(owner, p.id, hook.id)).items;
      expect(d.responseStatus).toBe(302);
      expect(d.error).toMatch(/Redirects are not followed/);
      expect(at('/redirected')).toHaveLength(0);
      await owner.patch(`${hooksOf(p.id)}/${hook.id}`, { active: false });

      const slow = await projectWithHook('/slow');
      await makeTicket(owner, slow.p.id);
      await eventually(
        async () => (await deliveries(owner, slow.p.id, slow.hook.id)).items[0]?.error != null,
        'a timed-out attempt',
        { timeoutMs: 10_000 },
      );
      const [s] = (await deliveries(owner, slow.p.id, slow.hook.id)).items;
      expect(s.error).toMatch(/Timed out after 1000 ms/);
      // Given up on: the receiver's late answer is not what the attempt recorded.
      expect(s.responseStatus).toBeNull();
      await owner.patch(`${hooksOf(slow.p.id)}/${slow.hook.id}`, { active: false });
    } finally {
      rx.answer = () => ({ status: 200 });
    }
  });

  it('redelivers a delivery as a new one with the same event', async () => {
    const { p, hook } = await projectWithHook('/again');
    await makeTicket(owner, p.id);
    const [d] = await settled(p.id, hook.id, 1);
    const res = await owner.post(`${hooksOf(p.id)}/${hook.id}/deliveries/${d.id}/redeliver`);
    expect(res.statusCode, res.body).toBe(201);
    const again = res.json();
    expect(again).toMatchObject({ redeliveryOf: d.id, status: 'pending', attempts: 0 });
    expect(again.id).not.toBe(d.id);
    await settled(p.id, hook.id, 2);
    const got = at('/again');
    expect(got.map((r) => r.headers['x-docket-delivery'])).toEqual([d.id, again.id]);
    expect(got[1].json).toEqual({ ...got[0].json, deliveryId: again.id });
    expect(got[1].headers['x-docket-signature']).toBe(sign(got[1].body));
  });

  it('refuses a private address at delivery time (a name that now resolves to loopback)', async () => {
    const strict = await createTestApp({ DOCKET_WEBHOOK_BACKOFF_SECONDS: '30' });
    try {
      await strict.app.ready();
      const admin = await signUp(strict.app);
      const p = await makeProject(admin);
      const port = new URL(rx.url).port;
      // Saved while the name resolved to a public address (DNS rebinding): written as such.
      const now = new Date().toISOString();
      for (const [id, url] of [
        ['00000000-0000-7000-8000-0000000000a1', `http://localhost:${port}/rebound`],
        ['00000000-0000-7000-8000-0000000000a2', `http://127.0.0.1:${port}/rebound`],
      ])
        await strict.app.services.db.kysely
          .insertInto('webhooks')
          .values({
            id,
            project_id: p.id,
            url,
            secret: SECRET,
            events: '["ticket.created"]',
            active: 1,
            created_by: admin.userId,
            failing_since: null,
            disabled_reason: null,
            created_at: now,
            updated_at: now,
          })
          .execute();
      await makeTicket(admin, p.id);
      for (const id of ['00000000-0000-7000-8000-0000000000a1', '00000000-0000-7000-8000-0000000000a2'])
        await eventually(
          async () => (await deliveries(admin, p.id, id)).items[0]?.error != null,
          'a refused attempt',
        );
      const a = (await deliveries(admin, p.id, '00000000-0000-7000-8000-0000000000a1')).items[0];
      const b = (await deliveries(admin, p.id, '00000000-0000-7000-8000-0000000000a2')).items[0];
      expect(a.error).toMatch(/^Refused: localhost resolves to (127\.0\.0\.1|::1) is not a public address/);
      expect(b.error).toBe('Refused: 127.0.0.1 is not a public address');
      expect(at('/rebound')).toHaveLength(0);
    } finally {
      await strict.close();
    }
  });
});

describe(`webhooks: a hook that fails for the retry window (${dialect})`, () => {
  it('is turned off, its maker notified, and turned on again by its admin', async () => {
    const short = await createTestApp({
      DOCKET_WEBHOOK_ALLOW_PRIVATE: 'true',
      DOCKET_WEBHOOK_BACKOFF_SECONDS: '0.2',
      DOCKET_WEBHOOK_RETRY_SECONDS: '2',
    });
    try {
      await short.app.ready();
      await signUp(short.app);
      const maker = await signUp(short.app);
      const p = await makeProject(maker);
      rx.answer = (r) => (r.path === '/dead' ? { status: 500 } : { status: 200 });
      const hook = (
        await maker.post(hooksOf(p.id), { url: `${rx.url}/dead`, events: ['ticket.created'], secret: SECRET })
      ).json();
      await makeTicket(maker, p.id);
      await eventually(
        async () => (await maker.get(`${hooksOf(p.id)}/${hook.id}`)).json().active === false,
        'the hook turned off',
        { timeoutMs: 15_000, everyMs: 100 },
      );
      const off = (await maker.get(`${hooksOf(p.id)}/${hook.id}`)).json();
      expect(off.disabledReason).toMatch(/Every delivery failed for .* The receiver answered 500/);
      const [d] = (await deliveries(maker, p.id, hook.id)).items;
      expect(d.status).toBe('failed');
      expect(d.attempts).toBeGreaterThanOrEqual(3);
      const inbox = (await maker.get('/api/me/notifications')).json();
      const notes = inbox.items.filter((n: { type: string }) => n.type === 'webhook_disabled');
      expect(notes).toHaveLength(1);
      expect(notes[0].excerpt).toContain(`${rx.url}/dead`);
      expect(notes[0].project.id).toBe(p.id);

      // Off: changes queue nothing; on again: its failure is cleared and it delivers.
      await makeTicket(maker, p.id);
      expect((await deliveries(maker, p.id, hook.id)).total).toBe(1);
      rx.answer = () => ({ status: 200 });
      const on = await maker.patch(`${hooksOf(p.id)}/${hook.id}`, { active: true });
      expect(on.json()).toMatchObject({ active: true, disabledReason: null, failingSince: null });
      await makeTicket(maker, p.id);
      await eventually(
        async () => (await deliveries(maker, p.id, hook.id)).items.some((i) => i.status === 'delivered'),
        'a delivery after turning it on',
      );
    } finally {
      rx.answer = () => ({ status: 200 });
      await short.close();
    }
  }, 30_000);
});
