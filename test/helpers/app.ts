import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { Kysely } from 'kysely';
import pg from 'pg';
import { inject } from 'vitest';
import { type Config, loadConfig } from '../../src/config.js';
import { connect, type Db } from '../../src/db/connect.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import { buildApp } from '../../src/server/app.js';
import { type S3Server, s3ServerAt } from './s3-server.js';
import { TEMPLATE_SCHEMA } from './template-global.js';

/** Which database this test run uses: the vitest project sets DOCKET_TEST_DIALECT. */
export const dialect = (process.env.DOCKET_TEST_DIALECT ?? 'sqlite') as 'sqlite' | 'postgres';
export const pgUrl = process.env.DOCKET_TEST_DATABASE_URL;
/** Where test apps keep files: the `s3` vitest project sets DOCKET_TEST_FILE_STORE=s3 (a bucket each). */
export const fileStore = (process.env.DOCKET_TEST_FILE_STORE ?? 'disk') as 'disk' | 's3';

let projectS3: S3Server | undefined;
/** The S3 test server of the `s3` project (started by test/helpers/s3-global.ts). */
export function testS3(): S3Server {
  projectS3 ??= s3ServerAt(inject('s3Endpoint'));
  return projectS3;
}

export interface TestApp {
  app: FastifyInstance;
  config: Config;
  close(): Promise<void>;
}

const cleanups: (() => Promise<void>)[] = [];

/**
 * A fresh Docket on a fresh database: a temporary SQLite file, or a new schema in the test
 * PostgreSQL database. Nothing is mocked.
 */
export async function testConfig(env: Record<string, string> = {}): Promise<Config> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'docket-test-'));
  const s3 = fileStore === 's3' && !env.DOCKET_S3_BUCKET ? testS3().env(await testS3().createBucket()) : {};
  const config = loadConfig({
    DOCKET_DATA_DIR: dataDir,
    DOCKET_LOG_LEVEL: 'silent',
    DOCKET_REGISTER_LIMIT: '1000',
    DOCKET_LOGIN_LIMIT: '1000',
    DOCKET_LOGIN_ADDRESS_LIMIT: '1000',
    ...(dialect === 'postgres' ? { DATABASE_URL: requirePgUrl() } : {}),
    ...s3,
    ...env,
  });
  if (dialect === 'postgres') config.pgSchema = `t_${randomBytes(6).toString('hex')}`;
  config.passwordHashing = 'test';
  config.checkContracts = true;
  return config;
}

function requirePgUrl(): string {
  if (!pgUrl) throw new Error('DOCKET_TEST_DATABASE_URL is required for the postgres test project');
  return pgUrl;
}

/**
 * Starts `config`'s database from the run's migrated template (test/helpers/template-global.ts)
 * instead of an empty one: on SQLite a copy of the template file in the data directory, on
 * PostgreSQL a database cloned from the template database (`config.databaseUrl` and `pgSchema`
 * then name it, and `dropTestData` drops it). The app's start finds every migration applied.
 */
export async function fromTemplate(config: Config): Promise<void> {
  if (dialect === 'sqlite') {
    fs.copyFileSync(inject('sqliteTemplate'), path.join(config.dataDir, 'docket.db'));
    return;
  }
  const url = new URL(requirePgUrl());
  const name = `${url.pathname.slice(1)}_${randomBytes(6).toString('hex')}`.slice(0, 63);
  const client = new pg.Client({ connectionString: url.toString() });
  await client.connect();
  try {
    await client.query(`create database "${name}" template "${inject('pgTemplate')}"`);
  } finally {
    await client.end();
  }
  url.pathname = `/${name}`;
  config.databaseUrl = url.toString();
  config.pgSchema = TEMPLATE_SCHEMA;
  clonedDatabases.add(name);
}

/** Databases cloned from the template by `fromTemplate`: `dropTestData` drops them whole. */
const clonedDatabases = new Set<string>();

export async function createTestApp(
  env: Record<string, string> = {},
  opts: { webRoot?: string } = {},
): Promise<TestApp> {
  const config = await testConfig(env);
  if (!env.DATABASE_URL && !env.DOCKET_DATA_DIR) await fromTemplate(config);
  let app: FastifyInstance;
  try {
    app = await buildApp(config, {
      logger: false,
      webRoot: opts.webRoot ?? path.join(os.tmpdir(), 'docket-no-web'),
    });
  } catch (err) {
    await dropTestData(config);
    throw err;
  }
  const close = async () => {
    await app.close();
    await dropTestData(config);
  };
  cleanups.push(close);
  return { app, config, close };
}

/** Removes a test's data directory, PostgreSQL schema and the files in its bucket. */
export async function dropTestData(config: Config) {
  fs.rmSync(config.dataDir, { recursive: true, force: true });
  if (config.s3 && fileStore === 's3') await testS3().empty(config.s3.bucket);
  const cloned = config.databaseUrl ? new URL(config.databaseUrl).pathname.slice(1) : '';
  if (clonedDatabases.delete(cloned)) {
    const client = new pg.Client({ connectionString: requirePgUrl() });
    await client.connect();
    try {
      await client.query(`drop database if exists "${cloned}" with (force)`);
    } finally {
      await client.end();
    }
  } else if (config.pgSchema && config.databaseUrl) {
    const client = new pg.Client({ connectionString: config.databaseUrl });
    await client.connect();
    try {
      await client.query(`drop schema if exists "${config.pgSchema}" cascade`);
    } finally {
      await client.end();
    }
  }
}

/**
 * A database of its own (a temporary SQLite file, or a new PostgreSQL schema) migrated up to
 * `upTo`, for a test of a later migration on data written before it; `drop` closes and removes it.
 */
export async function databaseAt(upTo: NonNullable<Parameters<typeof migrateToLatest>[1]>) {
  const config = await testConfig();
  const db: Db = await connect({
    databaseUrl: config.databaseUrl,
    pgSchema: config.pgSchema,
    dataDir: config.dataDir,
  });
  const drop = async () => {
    await db.close();
    await dropTestData(config);
  };
  try {
    await migrateToLatest(db, upTo);
  } catch (err) {
    await drop();
    throw err;
  }
  return { db, kysely: db.kysely as unknown as Kysely<any>, drop };
}
