import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { expect } from 'vitest';
import { dialect, pgUrl } from './app.js';
import { PASSWORD, unique } from './factories.js';

/**
 * Helpers for the tests that run Docket as server processes (drain, several instances behind a
 * balancer): a fresh database for them, and users that speak HTTP.
 */

export interface ProcessDatabase {
  /** The environment every instance gets: its data directory and, on PostgreSQL, DATABASE_URL. */
  env: Record<string, string>;
  dataDir: string;
  drop(): Promise<void>;
}

/** A fresh PostgreSQL database (or, on SQLite, a fresh data directory) for server processes. */
export async function processDatabase(prefix: string): Promise<ProcessDatabase> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), `docket-${prefix}-`));
  let database: string | undefined;
  let databaseUrl = '';
  if (dialect === 'postgres') {
    if (!pgUrl) throw new Error('DOCKET_TEST_DATABASE_URL is required for the postgres test project');
    database = `docket_${prefix}_${randomBytes(6).toString('hex')}`;
    const admin = new pg.Client({ connectionString: pgUrl });
    await admin.connect();
    await admin.query(`create database "${database}"`);
    await admin.end();
    const u = new URL(pgUrl);
    u.pathname = `/${database}`;
    databaseUrl = u.toString();
  }
  return {
    env: { DOCKET_DATA_DIR: dataDir, DATABASE_URL: databaseUrl },
    dataDir,
    async drop() {
      fs.rmSync(dataDir, { recursive: true, force: true });
      if (database && pgUrl) {
        const admin = new pg.Client({ connectionString: pgUrl });
        await admin.connect();
        await admin.query(`drop database if exists "${database}" with (force)`);
        await admin.end();
      }
    },
  };
}

/**
 * A user of a real server over HTTP (fetch), for the tests that run Docket as processes: signs up,
 * signs in and sends JSON with the session cookie.
 */
export interface HttpUser {
  username: string;
  cookie: string;
  /** Sends JSON (or nothing) with the session cookie; `base` is the server (or balancer) URL. */
  send(base: string, method: string, path: string, body?: unknown): Promise<Response>;
}

export async function signInOver(base: string, username: string, password = PASSWORD): Promise<HttpUser> {
  const res = await fetch(`${base}/api/auth/callback/credentials`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username, password }),
  });
  expect(res.status, await res.clone().text()).toBe(200);
  const cookie = res.headers
    .getSetCookie()
    .map((c) => c.split(';')[0])
    .find((c) => c.startsWith('docket_session='));
  if (!cookie) throw new Error('no session cookie');
  return {
    username,
    cookie,
    send: (b, method, path, body) =>
      fetch(`${b}${path}`, {
        method,
        headers: { cookie, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      }),
  };
}

export async function signUpOver(base: string, prefix = 'u'): Promise<HttpUser> {
  const username = unique(prefix);
  const reg = await fetch(`${base}/api/auth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username, password: PASSWORD }),
  });
  expect(reg.status, await reg.clone().text()).toBe(201);
  return signInOver(base, username);
}
