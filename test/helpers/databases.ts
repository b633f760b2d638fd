/**
 * A database for tests that start several server processes: on the PostgreSQL test project a fresh
 * database of its own (dropped again by `drop`), on SQLite none (the processes share the file in
 * their data directory).
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { dialect, pgUrl } from './app.js';

async function admin(sqlText: string) {
  const client = new pg.Client({ connectionString: pgUrl });
  await client.connect();
  try {
    await client.query(sqlText);
  } finally {
    await client.end();
  }
}

export interface SharedDatabase {
  /** DATABASE_URL for the processes; undefined on SQLite. */
  url: string | undefined;
  drop(): Promise<void>;
}

export async function sharedDatabase(prefix: string): Promise<SharedDatabase> {
  if (dialect !== 'postgres') return { url: undefined, drop: async () => {} };
  if (!pgUrl) throw new Error('DOCKET_TEST_DATABASE_URL is required for the postgres test project');
  const name = `${prefix}_${randomBytes(6).toString('hex')}`;
  await admin(`create database "${name}"`);
  const u = new URL(pgUrl);
  u.pathname = `/${name}`;
  return { url: u.toString(), drop: () => admin(`drop database if exists "${name}" with (force)`) };
}
