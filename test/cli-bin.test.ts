import { execFile } from 'node:child_process';
import os from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bin, type Instance, instance, root } from './helpers/cli.js';

/**
 * bin/docket.js itself, as an operator runs it: the other command-line tests run the command line
 * of the run's transpiled sources (test/helpers/cli.ts `cliEntry`), which is what this bin runs once
 * built; here it picks the build or, in a checkout without a fresh build, the sources through tsx.
 */
function runBin(inst: Instance, args: string[]) {
  return new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    const env = { PATH: process.env.PATH ?? '', HOME: os.tmpdir(), ...inst.env };
    execFile(process.execPath, [bin, ...args], { cwd: root, env }, (err, stdout, stderr) =>
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

describe('bin/docket.js', { timeout: 120_000 }, () => {
  let inst: Instance;
  beforeAll(async () => {
    inst = await instance({ migrated: false });
  });
  afterAll(async () => inst.drop());

  it('runs the command line: help with exit code 0, an unknown command with exit code 2, a migration', async () => {
    const help = await runBin(inst, ['--help']);
    expect(help.code, help.stderr).toBe(0);
    expect(help.stdout).toContain('admin reset-password <username>');
    const bad = await runBin(inst, ['frobnicate']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('Unknown command: frobnicate');
    const migrate = await runBin(inst, ['migrate']);
    expect(migrate.code, migrate.stderr).toBe(0);
    expect(migrate.stdout).toMatch(/Applied migrations: 001_initial/);
  });
});
