import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '..');
const tsx = pathToFileURL(path.join(root, 'node_modules', 'tsx', 'dist', 'loader.mjs')).href;
const envFile = pathToFileURL(path.join(root, 'src', 'env-file.ts')).href;
const dirs: string[] = [];

/** Runs src/env-file.ts in a fresh process in `dir` and answers the variables it then sees. */
function variablesAfterLoading(
  dir: string,
  env: Record<string, string>,
): Promise<Record<string, string | null>> {
  const script = `await import(${JSON.stringify(envFile)}); const pick = (k) => process.env[k] ?? null; console.log(JSON.stringify({ A: pick('DOCKET_T_A'), B: pick('DOCKET_T_B'), C: pick('DOCKET_T_C') }));`;
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      ['--import', tsx, '--input-type=module', '-e', script],
      { cwd: dir, env: { PATH: process.env.PATH ?? '', ...env } },
      (err, stdout, stderr) => (err ? reject(new Error(stderr || String(err))) : resolve(JSON.parse(stdout))),
    );
  });
}

function tempDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'docket-env-'));
  dirs.push(dir);
  return dir;
}

afterAll(() => {
  for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
});

describe('the .env file in the working directory', () => {
  it('fills the variables the environment leaves unset; the environment wins', async () => {
    const dir = tempDir();
    fs.writeFileSync(
      path.join(dir, '.env'),
      '# a comment\nDOCKET_T_A=from-file\nDOCKET_T_B="quoted # not a comment"\nDOCKET_T_C=file\n',
    );
    expect(await variablesAfterLoading(dir, { DOCKET_T_C: 'environment' })).toEqual({
      A: 'from-file',
      B: 'quoted # not a comment',
      C: 'environment',
    });
  });

  it('is optional: without it the environment is as it was', async () => {
    expect(await variablesAfterLoading(tempDir(), { DOCKET_T_A: 'only' })).toEqual({
      A: 'only',
      B: null,
      C: null,
    });
  });
});
