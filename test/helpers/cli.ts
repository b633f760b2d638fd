/** The operator's command line in a child process, on a fresh instance (data directory, database). */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { inject } from 'vitest';
import { dialect, pgUrl } from './app.js';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const bin = path.join(root, 'bin', 'docket.js');
/**
 * What `docket` runs: the command line of the run's transpiled sources (what bin/docket.js runs once
 * built; test/helpers/compiled-global.ts), else bin/docket.js itself. test/cli-bin.test.ts runs the bin.
 */
export const cliEntry = () => {
  const compiled = process.env.DOCKET_TEST_COMPILED_SRC;
  return compiled ? path.join(compiled, 'docket.js') : bin;
};

export interface Instance {
  env: Record<string, string>;
  dataDir: string;
  drop(): Promise<void>;
}

/**
 * A fresh instance for the CLI: a data directory, and on PostgreSQL a fresh database. On SQLite it
 * starts migrated (a copy of the run's template, test/helpers/template-global.ts) unless `migrated`
 * is false; on PostgreSQL the command line migrates its empty database itself (it has no setting
 * for the template's schema).
 */
export async function instance({ migrated = true }: { migrated?: boolean } = {}): Promise<Instance> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'docket-cli-'));
  if (migrated && dialect === 'sqlite')
    fs.copyFileSync(inject('sqliteTemplate'), path.join(dataDir, 'docket.db'));
  const env: Record<string, string> = {
    DOCKET_DATA_DIR: dataDir,
    DOCKET_LOG_LEVEL: 'silent',
    DOCKET_LOGIN_LIMIT: '1000',
  };
  let dbName: string | null = null;
  if (dialect === 'postgres') {
    dbName = `docket_cli_${randomBytes(5).toString('hex')}`;
    const client = new pg.Client({ connectionString: pgUrl });
    await client.connect();
    await client.query(`create database ${dbName}`);
    await client.end();
    const url = new URL(pgUrl as string);
    url.pathname = `/${dbName}`;
    env.DATABASE_URL = url.toString();
  }
  return {
    env,
    dataDir,
    async drop() {
      fs.rmSync(dataDir, { recursive: true, force: true });
      if (dbName) {
        const client = new pg.Client({ connectionString: pgUrl });
        await client.connect();
        await client.query(`drop database if exists ${dbName} with (force)`);
        await client.end();
      }
    },
  };
}

export function docket(inst: Instance, args: string[], opts: { input?: string } = {}) {
  return new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    const env: Record<string, string> = { PATH: process.env.PATH ?? '', HOME: os.tmpdir(), ...inst.env };
    const child = execFile(
      process.execPath,
      [cliEntry(), ...args],
      { cwd: inst.dataDir, env, maxBuffer: 64 * 1024 * 1024 },
      (err, stdout, stderr) => {
        resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr });
      },
    );
    child.stdin?.end(opts.input ?? '');
  });
}
