import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rankForIndex } from '../src/db/ranks.js';
import { dialect, pgUrl } from './helpers/app.js';
import { PASSWORD } from './helpers/factories.js';
import { makeBigPng, multipartBody } from './helpers/files.js';
import { startDocketFromSource } from './helpers/server.js';
import { eventually } from './helpers/wait.js';

/**
 * Crash tests against a real server process (`node --import tsx src/server/main.ts`), killed with
 * SIGKILL: in the middle of concurrent writes, half-way through a database import, and half-way
 * through an upload. After a restart, every acknowledged write is there, the database is intact,
 * nothing is half-imported, and no upload left a record without its file or a file without its record.
 */

const _root = path.resolve(import.meta.dirname, '..');
let dataDir: string;
let databaseUrl: string | undefined;
let pgAdminUrl: string | undefined;
let dbName: string | undefined;
let server: { proc: ChildProcess; url: string; port: number } | null = null;

async function start() {
  const started = await startDocketFromSource({
    DOCKET_DATA_DIR: dataDir,
    DOCKET_LOG_LEVEL: 'silent',
    DOCKET_REGISTER_LIMIT: '1000',
    DOCKET_LOGIN_LIMIT: '1000',
    DATABASE_URL: databaseUrl ?? '',
  });
  server = { proc: started.child, url: started.url, port: Number(new URL(started.url).port) };
  return server;
}

async function kill() {
  const s = server;
  if (!s) return;
  server = null;
  if (s.proc.exitCode !== null) return;
  const gone = new Promise((r) => s.proc.once('exit', r));
  s.proc.kill('SIGKILL');
  await gone;
}

let cookie = '';
async function api(method: string, url: string, body?: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(`${server?.url}${url}`, {
    method,
    headers: { cookie, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, text, json: () => JSON.parse(text), headers: res.headers };
}

async function signIn(username: string, password = PASSWORD) {
  const res = await api('POST', '/api/auth/callback/credentials', { username, password });
  expect(res.status, res.text).toBe(200);
  cookie = (res.headers.get('set-cookie') ?? '').split(';')[0];
}

/** Counts of every table that holds user data, and the stored files: what "nothing changed" compares. */
async function state() {
  const tables = [
    'users',
    'projects',
    'columns',
    'project_members',
    'labels',
    'sprints',
    'tickets',
    'comments',
    'attachments',
    'uploads',
  ];
  const counts: Record<string, number> = {};
  if (dialect === 'sqlite') {
    const db = new Database(path.join(dataDir, 'docket.db'), { readonly: true });
    try {
      for (const t of tables)
        counts[t] = (db.prepare(`select count(*) as n from "${t}"`).get() as { n: number }).n;
    } finally {
      db.close();
    }
  } else {
    const c = new pg.Client({ connectionString: databaseUrl });
    await c.connect();
    try {
      for (const t of tables)
        counts[t] = Number((await c.query(`select count(*) as n from "${t}"`)).rows[0].n);
    } finally {
      await c.end();
    }
  }
  const files: Record<string, string[]> = {};
  for (const kind of ['attachments', 'files', 'avatars']) {
    const dir = path.join(dataDir, 'uploads', kind);
    files[kind] = fs.existsSync(dir)
      ? fs
          .readdirSync(dir)
          .filter((f) => !f.startsWith('.'))
          .sort()
      : [];
  }
  return { counts, files };
}

/** Every attachment record has its file and every stored attachment file has its record. */
async function expectNoOrphans() {
  const names: string[] =
    dialect === 'sqlite'
      ? (() => {
          const db = new Database(path.join(dataDir, 'docket.db'), { readonly: true });
          try {
            return (db.prepare('select stored_name as n from attachments').all() as { n: string }[]).map(
              (r) => r.n,
            );
          } finally {
            db.close();
          }
        })()
      : await (async () => {
          const c = new pg.Client({ connectionString: databaseUrl });
          await c.connect();
          try {
            return (await c.query('select stored_name as n from attachments')).rows.map((r) => r.n as string);
          } finally {
            await c.end();
          }
        })();
  const dir = path.join(dataDir, 'uploads', 'attachments');
  const files = fs.existsSync(dir) ? fs.readdirSync(dir).filter((f) => !f.startsWith('.')) : [];
  expect([...names].sort()).toEqual([...files].sort());
}

function integrityCheck() {
  if (dialect !== 'sqlite') return;
  const db = new Database(path.join(dataDir, 'docket.db'), { readonly: true });
  try {
    expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
    expect(db.pragma('foreign_key_check')).toEqual([]);
  } finally {
    db.close();
  }
}

beforeAll(async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'docket-faults-'));
  if (dialect === 'postgres') {
    pgAdminUrl = pgUrl;
    dbName = `docket_faults_${randomBytes(5).toString('hex')}`;
    const c = new pg.Client({ connectionString: pgAdminUrl });
    await c.connect();
    await c.query(`create database ${dbName}`);
    await c.end();
    const u = new URL(pgAdminUrl as string);
    u.pathname = `/${dbName}`;
    databaseUrl = u.toString();
  }
  await start();
  const reg = await api('POST', '/api/auth/register', { username: 'crash', password: PASSWORD });
  expect(reg.status, reg.text).toBe(201);
  await signIn('crash');
}, 60_000);

afterAll(async () => {
  await kill();
  fs.rmSync(dataDir, { recursive: true, force: true });
  if (dbName && pgAdminUrl) {
    const c = new pg.Client({ connectionString: pgAdminUrl });
    await c.connect();
    await c.query(`drop database if exists ${dbName} with (force)`);
    await c.end();
  }
});

describe('a server killed with SIGKILL', () => {
  it('keeps every acknowledged write of concurrent writers, and the database stays intact', async () => {
    const project = (await api('POST', '/api/projects', { name: 'Crash', key: 'CRASH' })).json();
    const acked: { id: string; kind: 'ticket' | 'comment' | 'move'; ticketId?: string; content?: string }[] =
      [];
    let stop = false;
    const first = (await api('POST', `/api/projects/${project.id}/tickets`, { title: 'anchor' })).json();
    const writer = async (w: number) => {
      for (let i = 0; !stop; i++) {
        try {
          if (i % 3 === 2) {
            const content = `w${w}-${i}`;
            const r = await api('POST', `/api/projects/${project.id}/tickets/${first.id}/comments`, {
              content,
            });
            if (r.status === 201) acked.push({ id: r.json().id, kind: 'comment', content });
          } else {
            const r = await api('POST', `/api/projects/${project.id}/tickets`, { title: `w${w}-${i}` });
            if (r.status === 201) acked.push({ id: r.json().id, kind: 'ticket' });
          }
        } catch {
          return; // the connection died with the server: this write was never acknowledged
        }
      }
    };
    const writers = Array.from({ length: 6 }, (_, w) => writer(w));
    while (acked.length < 60) await new Promise((r) => setTimeout(r, 10));
    await kill();
    stop = true;
    await Promise.all(writers);
    integrityCheck();

    await start();
    const tickets = (await api('GET', `/api/projects/${project.id}/tickets`)).json() as {
      id: string;
      number: number;
      columnId: string;
      order: number;
    }[];
    const ids = new Set(tickets.map((t) => t.id));
    for (const a of acked.filter((x) => x.kind === 'ticket'))
      expect(ids.has(a.id), `ticket ${a.id}`).toBe(true);
    const comments = (
      await api('GET', `/api/projects/${project.id}/tickets/${first.id}/comments`)
    ).json() as {
      id: string;
      content: string;
    }[];
    const byId = new Map(comments.map((c) => [c.id, c.content]));
    for (const a of acked.filter((x) => x.kind === 'comment')) expect(byId.get(a.id)).toBe(a.content);
    expect(new Set(tickets.map((t) => t.number)).size).toBe(tickets.length);
    const orders = tickets.map((t) => t.order).sort((a, b) => a - b);
    expect(orders).toEqual(orders.map((_, i) => i));
    // The server still writes after the crash, with the next number.
    const next = await api('POST', `/api/projects/${project.id}/tickets`, { title: 'after' });
    expect(next.status).toBe(201);
    expect(next.json().number).toBeGreaterThan(Math.max(...tickets.map((t) => t.number)));
    integrityCheck();
  }, 120_000);

  it('changes nothing when it dies half-way through a database import', async () => {
    // A backup of the present state, made much larger with extra tickets so the import takes a while.
    const exp = await api('POST', '/api/admin/database/export', { confirmPassword: PASSWORD });
    expect(exp.status).toBe(200);
    const backup = exp.json();
    const tickets = backup.data.tickets as Record<string, unknown>[];
    const model = tickets[0];
    const projectRow = (backup.data.projects as Record<string, unknown>[]).find(
      (p) => p.id === model.project_id,
    ) as Record<string, unknown>;
    let number = Number(projectRow.ticket_counter);
    const base = tickets.filter((t) => t.column_id === model.column_id).length;
    for (let i = 0; i < 30_000; i++) {
      number++;
      tickets.push({
        ...model,
        id: `0190${randomBytes(14).toString('hex')}`.replace(
          /^(.{8})(.{4})(.{4})(.{4})(.{12}).*$/,
          '$1-$2-$3-$4-$5',
        ),
        number,
        rank: rankForIndex(base + i),
        title: `bulk ${i}`,
      });
    }
    projectRow.ticket_counter = number;
    const file = Buffer.from(JSON.stringify(backup));

    // The state the crash must leave: what exists now, plus a change made after the export.
    expect((await api('POST', '/api/projects', { name: 'After export', key: 'AFTER' })).status).toBe(201);
    const before = await state();

    const body = multipartBody([{ filename: 'backup.json', contentType: 'application/json', data: file }], {
      confirmPassword: PASSWORD,
    });
    const s = server as NonNullable<typeof server>;
    const req = http.request({
      host: '127.0.0.1',
      port: s.port,
      method: 'POST',
      path: '/api/admin/database/import',
      headers: { ...body.headers, cookie, 'content-length': String(body.payload.length) },
    });
    let answered = false;
    req.on('response', () => {
      answered = true;
    });
    req.on('error', () => {});
    req.end(body.payload);
    // Wait until the import writes (SQLite: its journal grows; PostgreSQL: an insert is running), then kill.
    const walSize = () =>
      fs.statSync(path.join(dataDir, 'docket.db-wal'), { throwIfNoEntry: false })?.size ?? 0;
    const startWal = walSize();
    const pgc = dialect === 'postgres' ? new pg.Client({ connectionString: databaseUrl }) : null;
    await pgc?.connect();
    for (;;) {
      expect(answered, 'the import finished before it could be interrupted').toBe(false);
      if (dialect === 'sqlite' && walSize() > startWal + 512 * 1024) break;
      if (pgc) {
        const { rows } = await pgc.query(
          `select count(*) as n from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid() and query ilike 'insert into "tickets"%'`,
        );
        if (Number(rows[0].n) > 0) break;
      }
      await new Promise((r) => setTimeout(r, 5));
    }
    await kill();
    await pgc?.end();
    integrityCheck();
    await start();
    expect(await state()).toEqual(before);
    // Sessions were not ended either: the same cookie still works.
    expect((await api('GET', '/api/me')).status).toBe(200);
    integrityCheck();
  }, 120_000);

  it('leaves no record without its file, nor a file without its record, when an upload dies half-way', async () => {
    const project = (await api('POST', '/api/projects', { name: 'Uploads', key: 'UPL' })).json();
    const ticket = (await api('POST', `/api/projects/${project.id}/tickets`, { title: 'with files' })).json();
    const png = await makeBigPng(3 * 1024 * 1024);
    const body = multipartBody([{ filename: 'big.png', contentType: 'image/png', data: png }]);
    const sendHalf = () => {
      const s = server as NonNullable<typeof server>;
      const req = http.request({
        host: '127.0.0.1',
        port: s.port,
        method: 'POST',
        path: `/api/projects/${project.id}/tickets/${ticket.id}/attachments`,
        headers: { ...body.headers, cookie, 'content-length': String(body.payload.length) },
      });
      req.on('error', () => {});
      req.write(body.payload.subarray(0, Math.floor(body.payload.length / 2)));
      return req;
    };
    const before = await state();

    // The client gives up half-way: the server is alive and must clean up by itself.
    const incoming = path.join(dataDir, 'uploads', '.incoming');
    const receiving = () => fs.existsSync(incoming) && fs.readdirSync(incoming).length > 0;
    const abandoned = sendHalf();
    await eventually(receiving, 'the server to start receiving the upload');
    abandoned.destroy();
    await eventually(() => !receiving(), 'the server to remove the half-received file');
    expect(await state()).toEqual(before);
    expect(fs.existsSync(incoming) ? fs.readdirSync(incoming) : []).toEqual([]);
    await expectNoOrphans();

    // The server dies half-way through receiving the file.
    sendHalf();
    await eventually(receiving, 'the server to start receiving the upload');
    await kill();
    await start();
    expect(await state()).toEqual(before);
    await expectNoOrphans();
    // A complete upload still works afterwards.
    const ok = await fetch(`${server?.url}/api/projects/${project.id}/tickets/${ticket.id}/attachments`, {
      method: 'POST',
      headers: { ...body.headers, cookie },
      body: new Blob([new Uint8Array(body.payload)]),
    });
    expect(ok.status).toBe(201);
    await expectNoOrphans();
    integrityCheck();
  }, 120_000);
});
