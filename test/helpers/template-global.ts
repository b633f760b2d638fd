/**
 * Global setup of the `sqlite`, `postgres` and `s3` test projects (vitest.config.ts): the migrations
 * run once per project and run, into a template that every test app starts from
 * (docs/decisions/061-test-speed.md). SQLite: a migrated database file, copied into each app's data
 * directory. PostgreSQL: a migrated database, cloned for each app with `create database … template`.
 * A test of the migrations themselves builds its own database (`databaseAt` in ./app.ts).
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { connect } from '../../src/db/connect.js';
import { migrateToLatest } from '../../src/db/migrate.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** SQLite: the migrated database file to copy. */
    sqliteTemplate: string;
    /** PostgreSQL: the migrated template database's name, in DOCKET_TEST_DATABASE_URL's cluster. */
    pgTemplate: string;
  }
}

/** The schema the template's tables live in, and so every clone's (an app's `config.pgSchema`). */
export const TEMPLATE_SCHEMA = 'docket_test';

async function admin(url: string, sqlText: string) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(sqlText);
  } finally {
    await client.end();
  }
}

export default async function setup(project: TestProject) {
  const dialect = project.config.env?.DOCKET_TEST_DIALECT ?? 'sqlite';
  if (dialect === 'postgres') {
    const url = process.env.DOCKET_TEST_DATABASE_URL;
    if (!url) throw new Error('DOCKET_TEST_DATABASE_URL is required for the postgres test project');
    const name = `${new URL(url).pathname.slice(1)}_tpl_${randomBytes(4).toString('hex')}`.slice(0, 63);
    await admin(url, `create database "${name}"`);
    const u = new URL(url);
    u.pathname = `/${name}`;
    try {
      const db = await connect({
        databaseUrl: u.toString(),
        pgSchema: TEMPLATE_SCHEMA,
        dataDir: os.tmpdir(),
      });
      try {
        await migrateToLatest(db);
      } finally {
        await db.close();
      }
    } catch (err) {
      await admin(url, `drop database if exists "${name}" with (force)`);
      throw err;
    }
    project.provide('pgTemplate', name);
    return () => admin(url, `drop database if exists "${name}" with (force)`);
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'docket-template-'));
  const db = await connect({ dataDir: dir });
  try {
    await migrateToLatest(db);
  } finally {
    // Closing the last connection checkpoints the write-ahead log into the file and removes it.
    await db.close();
  }
  const file = path.join(dir, 'docket.db');
  if (fs.existsSync(`${file}-wal`)) throw new Error('the SQLite template kept its write-ahead log');
  project.provide('sqliteTemplate', file);
  return () => fs.rmSync(dir, { recursive: true, force: true });
}
