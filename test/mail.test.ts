import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, type Db } from '../src/db/connect.js';
import { dialect, pgUrl } from './helpers/app.js';
import { PASSWORD, unique } from './helpers/factories.js';
import { decodedMail } from './helpers/mailbox.js';
import { type ServerProcess, startDocketFromSource, startProcess } from './helpers/server.js';
import { eventually } from './helpers/wait.js';

/**
 * E-mail end to end: Docket server processes sharing one database (a fresh PostgreSQL database, or
 * one SQLite file) send through a real SMTP server process (test/helpers/smtp-sink.ts).
 */

interface Received {
  messageId: string | null;
  outboxId: string | null;
  to: string[];
  subject: string | null;
  raw: string;
}

let dataDir: string;
let databaseUrl: string | undefined;
let database: string | undefined;
let sinkFile: string;
let sink: ServerProcess;
let smtpUrl: string;
let db: Db;
const servers: ServerProcess[] = [];

async function startInstance(): Promise<ServerProcess> {
  const s = await startDocketFromSource({
    DOCKET_DATA_DIR: dataDir,
    DATABASE_URL: databaseUrl ?? '',
    DOCKET_LOG_LEVEL: 'warn',
    DOCKET_REGISTER_LIMIT: '1000',
    DOCKET_LOGIN_LIMIT: '1000',
    DOCKET_ADMIN_USERNAME: '',
    DOCKET_ADMIN_PASSWORD: '',
    DOCKET_SMTP_URL: smtpUrl,
    DOCKET_MAIL_FROM: 'Docket <docket@mail.example.com>',
    DOCKET_PUBLIC_URL: 'https://docket.example.com',
    // Long enough that a held message's claim outlives a slow poll on a loaded machine; short
    // enough that a killed instance's claim runs out within the test.
    DOCKET_MAIL_LEASE_SECONDS: '10',
  });
  servers.push(s);
  return s;
}

const received = (): Received[] =>
  fs.existsSync(sinkFile)
    ? fs
        .readFileSync(sinkFile, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as Received)
    : [];

interface Person {
  cookie: string;
  userId: string;
}

async function call(url: string, method: string, body?: unknown, cookie?: string) {
  const res = await fetch(url, {
    method,
    headers: { ...(body ? { 'content-type': 'application/json' } : {}), ...(cookie ? { cookie } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  return { status: res.status, json: (await res.json().catch(() => null)) as any };
}

async function person(base: string, email: string): Promise<Person> {
  const username = unique('m');
  expect(
    (await call(`${base}/api/auth/register`, 'POST', { username, password: PASSWORD, email })).status,
  ).toBe(201);
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
  return { cookie, userId: (await res.json()).user.id };
}

/** An owner, a project with `assignees` in it, and one assigned ticket per entry of `tickets`. */
async function assignTickets(base: string, addresses: string[]) {
  const owner = await person(base, `${unique('owner')}@example.com`);
  const key = `M${randomBytes(3).toString('hex').toUpperCase()}`;
  const p = await call(`${base}/api/projects`, 'POST', { name: 'Mail', key }, owner.cookie);
  expect(p.status).toBe(201);
  const people = new Map<string, Person>();
  const tickets: { id: string; key: string; to: string }[] = [];
  for (const address of addresses) {
    let who = people.get(address);
    if (!who) {
      who = await person(base, address);
      people.set(address, who);
      const m = await call(
        `${base}/api/projects/${p.json.id}/members`,
        'POST',
        { userId: who.userId },
        owner.cookie,
      );
      expect(m.status).toBe(201);
    }
    const t = await call(
      `${base}/api/projects/${p.json.id}/tickets`,
      'POST',
      { title: `For ${address}`, assigneeId: who.userId },
      owner.cookie,
    );
    expect(t.status).toBe(201);
    tickets.push({ id: t.json.id, key: t.json.key, to: address });
  }
  return { owner, project: p.json as { id: string; key: string }, people, tickets };
}

const outboxFor = (addresses: string[]) =>
  db.kysely
    .selectFrom('mail_outbox')
    .selectAll()
    .where('to_address', 'in', addresses)
    .orderBy('id')
    .execute();

async function allSettled(addresses: string[], timeoutMs = 30_000) {
  await eventually(
    async () => (await outboxFor(addresses)).every((r) => r.status !== 'pending'),
    'every message sent or failed',
    { timeoutMs, everyMs: 100 },
  );
  return outboxFor(addresses);
}

beforeAll(async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'docket-mail-'));
  sinkFile = path.join(dataDir, 'received.jsonl');
  sink = await startProcess({
    args: ['--import', 'tsx', 'test/helpers/smtp-sink.ts', sinkFile],
    ready: 'listening',
  });
  smtpUrl = `smtp://user:secret@127.0.0.1:${new URL(sink.url).port}`;
  if (dialect === 'postgres') {
    if (!pgUrl) throw new Error('DOCKET_TEST_DATABASE_URL is required for the postgres test project');
    database = `docket_mail_${randomBytes(6).toString('hex')}`;
    const admin = new pg.Client({ connectionString: pgUrl });
    await admin.connect();
    await admin.query(`create database "${database}"`);
    await admin.end();
    const u = new URL(pgUrl);
    u.pathname = `/${database}`;
    databaseUrl = u.toString();
  }
  await startInstance();
  db = await connect({ databaseUrl, dataDir });
}, 120_000);

afterAll(async () => {
  await Promise.all(servers.map((s) => s.stop()));
  await sink?.stop();
  await db?.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
  if (database && pgUrl) {
    const admin = new pg.Client({ connectionString: pgUrl });
    await admin.connect();
    await admin.query(`drop database if exists "${database}" with (force)`);
    await admin.end();
  }
}, 60_000);

describe(`e-mail through a real SMTP server (${dialect})`, () => {
  it('sends an assignment with text and HTML parts, the ticket link, List-Unsubscribe and the outbox id as Message-ID', async () => {
    const base = servers[0].url;
    const address = `${unique('ann')}@example.com`;
    const { tickets } = await assignTickets(base, [address]);
    const [row] = await allSettled([address]);
    expect(row).toMatchObject({ status: 'sent', attempts: 1 });
    const got = received().filter((m) => m.to.includes(address));
    expect(got).toHaveLength(1);
    const m = got[0];
    expect(m.messageId).toBe(`<${row.id}@mail.example.com>`);
    expect(m.subject).toContain(`[${tickets[0].key}]`);
    const raw = decodedMail(m.raw);
    expect(raw).toMatch(
      /^List-Unsubscribe: <https:\/\/docket\.example\.com\/api\/notifications\/unsubscribe\?token=[^>]+>/m,
    );
    expect(raw).toMatch(/^List-Unsubscribe-Post: List-Unsubscribe=One-Click/m);
    expect(raw).toMatch(/Content-Type: multipart\/alternative/);
    expect(raw).toMatch(/Content-Type: text\/plain/);
    expect(raw).toMatch(/Content-Type: text\/html/);
    expect(raw).toContain(`https://docket.example.com/projects/`);
    expect(raw).toContain(tickets[0].key);

    // The unsubscribe URL of the message works without signing in.
    const url = /^List-Unsubscribe: <([^>]+)>/m.exec(raw)?.[1] ?? '';
    const local = url.replace('https://docket.example.com', base);
    const res = await fetch(local, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'List-Unsubscribe=One-Click',
    });
    expect(res.status).toBe(200);
    const settings = await db.kysely
      .selectFrom('notification_settings')
      .select('email')
      .where('user_id', '=', row.user_id)
      .executeTakeFirst();
    expect(settings?.email).toBe('off');
  });

  it('retries a temporary failure with back-off and marks a permanent one failed', async () => {
    const base = servers[0].url;
    const temp = `${unique('tempfail')}@example.com`;
    const bounce = `${unique('bounce')}@example.com`;
    await assignTickets(base, [temp, bounce]);
    const rows = await allSettled([temp, bounce], 40_000);
    const byTo = new Map(rows.map((r) => [r.to_address, r]));
    expect(byTo.get(temp)).toMatchObject({ status: 'sent', attempts: 3 });
    expect(byTo.get(bounce)).toMatchObject({ status: 'failed', attempts: 1 });
    expect(byTo.get(bounce)?.last_error).toMatch(/550/);
    expect(received().filter((m) => m.to.includes(temp))).toHaveLength(1);
    expect(received().filter((m) => m.to.includes(bounce))).toHaveLength(0);
  }, 60_000);

  it('two instances sharing one outbox send each message once', async () => {
    if (servers.length < 2) await startInstance();
    const addresses = Array.from({ length: 24 }, (_, i) => `${unique(i % 2 ? 'p' : 'slowp')}@example.com`);
    await assignTickets(servers[0].url, addresses);
    const rows = await allSettled(addresses, 60_000);
    expect(rows.every((r) => r.status === 'sent')).toBe(true);
    const got = received().filter((m) => addresses.includes(m.to[0]));
    expect(got.map((m) => m.outboxId).sort()).toEqual(rows.map((r) => r.id).sort());
    // Both instances took part (the claim keeps the sender's name).
    expect(new Set(rows.map((r) => r.claimed_by)).size).toBe(2);
  }, 90_000);

  it('a SIGKILL during sending loses no message; the one in flight is resent with the same Message-ID', async () => {
    while (servers.length < 2) await startInstance();
    const addresses = Array.from({ length: 8 }, () => `${unique('gatek')}@example.com`);
    await assignTickets(servers[0].url, addresses);
    // The SMTP server holds the first of these messages unanswered (its id in <sink>.held) until it
    // is released: kill the instance that is sending it, while it is in flight there.
    const held = `${sinkFile}.held`;
    await eventually(() => fs.existsSync(held), 'a message held by the SMTP server', { timeoutMs: 30_000 });
    const inFlight = fs.readFileSync(held, 'utf8');
    const row = (await outboxFor(addresses)).find((r) => r.id === inFlight);
    // The instance whose claim it is. (On a machine so loaded that the sender's socket timeout, a
    // third of the lease, ran out first, it has already given the attempt up and will try again:
    // the message is then resent all the same, and the first instance is killed instead.)
    const victim = servers.find((s) => row?.claimed_by?.includes(`:${s.child.pid}:`)) ?? servers[0];
    if (!victim?.child.pid) throw new Error('no instance to kill');
    servers.splice(servers.indexOf(victim), 1);
    victim.child.kill('SIGKILL');
    await new Promise<void>((r) =>
      victim.child.exitCode !== null ? r() : victim.child.once('exit', () => r()),
    );
    fs.writeFileSync(`${sinkFile}.release`, '');
    // ... and restart it: it takes part again, and the lease of the killed claim runs out.
    await startInstance();
    const rows = await allSettled(addresses, 60_000);
    expect(rows.every((r) => r.status === 'sent')).toBe(true);
    // The killed claim was taken again after its lease.
    expect(rows.find((r) => r.id === inFlight)?.attempts).toBeGreaterThanOrEqual(2);
    const got = received().filter((m) => addresses.includes(m.to[0]));
    const ids = new Set(got.map((m) => m.outboxId));
    expect([...ids].sort()).toEqual(rows.map((r) => r.id).sort()); // none lost
    // At most the one message in flight at the kill came twice, and with the same Message-ID.
    expect(got.length - ids.size).toBeLessThanOrEqual(1);
    for (const m of got) expect(m.messageId).toBe(`<${m.outboxId}@mail.example.com>`);
  }, 120_000);
});
