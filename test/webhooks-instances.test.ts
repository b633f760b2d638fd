import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, type Db } from '../src/db/connect.js';
import { dialect } from './helpers/app.js';
import { type SharedDatabase, sharedDatabase } from './helpers/databases.js';
import { PASSWORD, unique } from './helpers/factories.js';
import { type ServerProcess, startDocketFromSource } from './helpers/server.js';
import { eventually } from './helpers/wait.js';
import { type Receiver, startReceiver } from './helpers/webhook-receiver.js';

/**
 * Webhooks with several Docket server processes sharing one database (a fresh PostgreSQL
 * database, or one SQLite file), delivering to a real HTTP receiver started by the test: each
 * delivery is sent once, and a SIGKILL mid-delivery loses nothing and keeps each ticket's order.
 */

let dataDir: string;
let database: SharedDatabase;
let db: Db;
let rx: Receiver;
const servers: ServerProcess[] = [];

async function startInstance(): Promise<ServerProcess> {
  const s = await startDocketFromSource({
    DOCKET_DATA_DIR: dataDir,
    DATABASE_URL: database.url ?? '',
    DOCKET_LOG_LEVEL: 'error',
    DOCKET_REGISTER_LIMIT: '1000',
    DOCKET_LOGIN_LIMIT: '1000',
    DOCKET_ADMIN_USERNAME: '',
    DOCKET_ADMIN_PASSWORD: '',
    DOCKET_WEBHOOK_ALLOW_PRIVATE: 'true',
    // Well above the timeout: a loaded machine's pauses must not let a claim run out mid-delivery.
    DOCKET_WEBHOOK_LEASE_SECONDS: '10',
    DOCKET_WEBHOOK_TIMEOUT_SECONDS: '2',
    DOCKET_WEBHOOK_BACKOFF_SECONDS: '0.2',
  });
  servers.push(s);
  return s;
}

async function call(url: string, method: string, body?: unknown, cookie?: string) {
  const res = await fetch(url, {
    method,
    headers: { ...(body ? { 'content-type': 'application/json' } : {}), ...(cookie ? { cookie } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  return { status: res.status, json: (await res.json().catch(() => null)) as any };
}

async function person(base: string): Promise<string> {
  const username = unique('w');
  expect((await call(`${base}/api/auth/register`, 'POST', { username, password: PASSWORD })).status).toBe(
    201,
  );
  const res = await fetch(`${base}/api/auth/callback/credentials`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username, password: PASSWORD }),
  });
  const cookie = res.headers
    .getSetCookie()
    .map((c) => c.split(';')[0])
    .find((c) => c.startsWith('docket_session='));
  if (!cookie) throw new Error('no session');
  return cookie;
}

/** A project with a hook to the receiver under `hookPath`, and `tickets` tickets each changed `edits` times. */
async function busyProject(base: string, hookPath: string, tickets: number, edits: number) {
  const cookie = await person(base);
  const key = `W${randomBytes(3).toString('hex').toUpperCase()}`;
  const p = await call(`${base}/api/projects`, 'POST', { name: 'Hooks', key }, cookie);
  expect(p.status).toBe(201);
  const hook = await call(
    `${base}/api/projects/${p.json.id}/webhooks`,
    'POST',
    { url: `${rx.url}${hookPath}`, events: ['ticket.created', 'ticket.updated'] },
    cookie,
  );
  expect(hook.status).toBe(201);
  const made = await Promise.all(
    Array.from({ length: tickets }, async (_, i) => {
      const t = await call(
        `${base}/api/projects/${p.json.id}/tickets`,
        'POST',
        { title: `t${i} v0` },
        cookie,
      );
      expect(t.status).toBe(201);
      for (let v = 1; v <= edits; v++)
        expect(
          (
            await call(
              `${base}/api/projects/${p.json.id}/tickets/${t.json.id}`,
              'PATCH',
              { title: `t${i} v${v}` },
              cookie,
            )
          ).status,
        ).toBe(200);
      return t.json.id as string;
    }),
  );
  return { hookId: hook.json.id as string, tickets: made };
}

const deliveriesOf = (hookId: string) =>
  db.kysely.selectFrom('webhook_deliveries').selectAll().where('hook_id', '=', hookId).execute();

async function allDelivered(hookId: string, count: number, timeoutMs = 60_000) {
  await eventually(
    async () => {
      const rows = await deliveriesOf(hookId);
      return rows.length === count && rows.every((r) => r.status === 'delivered');
    },
    `${count} deliveries delivered`,
    { timeoutMs, everyMs: 100 },
  );
  return deliveriesOf(hookId);
}

/** Each ticket's changes, in the order the receiver first got them, are in event order. */
function expectOrderedPerTicket(hookPath: string) {
  const firsts = new Map<string, number>();
  const perTicket = new Map<string, number[]>();
  for (const r of rx.received.filter((x) => x.path === hookPath)) {
    const id = String(r.headers['x-docket-delivery']);
    if (firsts.has(id)) continue;
    firsts.set(id, r.json.eventId);
    const list = perTicket.get(r.json.data.id) ?? [];
    list.push(r.json.eventId);
    perTicket.set(r.json.data.id, list);
  }
  for (const [ticket, ids] of perTicket)
    expect(ids, `order of ${ticket}`).toEqual([...ids].sort((a, b) => a - b));
}

beforeAll(async () => {
  rx = await startReceiver();
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'docket-webhooks-'));
  database = await sharedDatabase('docket_hooks');
  await startInstance();
  await startInstance();
  db = await connect({ databaseUrl: database.url, dataDir });
}, 120_000);

afterAll(async () => {
  await Promise.all(servers.map((s) => s.stop()));
  await rx?.close();
  await db?.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
  await database?.drop();
}, 60_000);

describe(`webhooks with several instances (${dialect})`, () => {
  it('two instances sharing one outbox send each delivery once, in order per ticket', async () => {
    rx.answer = () => ({ status: 200, delayMs: 30 });
    const { hookId } = await busyProject(servers[0].url, '/two', 12, 3);
    const rows = await allDelivered(hookId, 48);
    const got = rx.received.filter((r) => r.path === '/two');
    expect(got.map((r) => r.headers['x-docket-delivery']).sort()).toEqual(rows.map((r) => r.id).sort());
    // Both instances took part (a delivered row keeps its sender's name).
    expect(new Set(rows.map((r) => r.claimed_by?.split(':')[1])).size).toBe(2);
    expectOrderedPerTicket('/two');
  }, 120_000);

  it('a SIGKILL mid-delivery loses nothing: the deliveries in flight are sent again after the lease, in order', async () => {
    // Each answer takes 400 ms, so the victim is killed while it holds deliveries in flight.
    rx.answer = () => ({ status: 200, delayMs: 400 });
    const { hookId } = await busyProject(servers[0].url, '/kill', 8, 2);
    const victim = servers.shift();
    if (!victim?.child.pid) throw new Error('no instance to kill');
    const mark = `:${victim.child.pid}:`;
    let inFlight: string[] = [];
    await eventually(
      async () => {
        const rows = await deliveriesOf(hookId);
        inFlight = rows
          .filter((r) => r.status === 'pending' && r.claimed_by?.includes(mark))
          .map((r) => r.id);
        return inFlight.length > 0;
      },
      'a delivery in flight at instance A',
      { timeoutMs: 30_000, everyMs: 5 },
    );
    victim.child.kill('SIGKILL');
    await new Promise<void>((r) =>
      victim.child.exitCode !== null ? r() : victim.child.once('exit', () => r()),
    );
    await startInstance();
    const rows = await allDelivered(hookId, 24, 90_000);
    // The killed claims were taken again after their lease.
    for (const id of inFlight) expect(rows.find((r) => r.id === id)?.attempts, id).toBeGreaterThanOrEqual(2);
    const got = rx.received.filter((r) => r.path === '/kill');
    const ids = new Set(got.map((r) => String(r.headers['x-docket-delivery'])));
    expect([...ids].sort()).toEqual(rows.map((r) => r.id).sort()); // none lost
    // Only deliveries in flight at the kill came twice, with the same id and body.
    const copies = got.length - ids.size;
    expect(copies).toBeLessThanOrEqual(4);
    for (const id of ids)
      expect(new Set(got.filter((r) => r.headers['x-docket-delivery'] === id).map((r) => r.body)).size).toBe(
        1,
      );
    expectOrderedPerTicket('/kill');
  }, 150_000);
});
