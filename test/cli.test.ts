import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Config, loadConfig } from '../src/config.js';
import { buildApp } from '../src/server/app.js';
import { populate, snapshot } from './helpers/backup.js';
import { bin, docket, type Instance, instance, root } from './helpers/cli.js';
import { PASSWORD, signIn } from './helpers/factories.js';

async function appFor(inst: Instance): Promise<{ app: FastifyInstance; config: Config }> {
  const config = loadConfig({ ...inst.env, DOCKET_REGISTER_LIMIT: '1000' });
  const app = await buildApp(config, { logger: false, webRoot: path.join(os.tmpdir(), 'docket-no-web') });
  return { app, config };
}

const login = (app: FastifyInstance, username: string, password: string) =>
  app.inject({ method: 'POST', url: '/api/auth/callback/credentials', payload: { username, password } });

describe('the docket command line', { timeout: 120_000 }, () => {
  let inst: Instance;
  beforeAll(async () => {
    inst = await instance();
  });
  afterAll(async () => inst.drop());

  it('prints help and refuses unknown commands with exit code 2', async () => {
    const help = await docket(inst, ['--help']);
    expect(help.code).toBe(0);
    for (const c of [
      'serve',
      'migrate',
      'backup [file]',
      'restore <file>',
      'admin create <username>',
      'admin reset-password <username>',
    ]) {
      expect(help.stdout).toContain(c);
    }
    const bad = await docket(inst, ['frobnicate']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('Unknown command: frobnicate');
    const unknownOption = await docket(inst, ['backup', '--frobnicate']);
    expect(unknownOption.code).toBe(2);
    expect(unknownOption.stderr).toContain('Unknown option --frobnicate');
    const noValue = await docket(inst, ['admin', 'create', 'someone', '--password']);
    expect(noValue.code).toBe(2);
    expect(noValue.stderr).toContain('--password needs a value');
    expect((await docket(inst, ['-h'])).code).toBe(0);
  });

  it('migrates a new database, then says it is up to date', async () => {
    const first = await docket(inst, ['migrate']);
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(/Applied migrations: 001_initial/);
    const again = await docket(inst, ['migrate']);
    expect(again.stdout).toContain('up to date');
  });

  it('creates an administrator with a given password, or a generated one that must be changed', async () => {
    const created = await docket(inst, [
      'admin',
      'create',
      'root',
      '--password',
      PASSWORD,
      '--email',
      'root@example.com',
    ]);
    expect(created.code, created.stderr).toBe(0);
    const generated = await docket(inst, ['admin', 'create', 'helper']);
    expect(generated.code).toBe(0);
    const temp = /Temporary password: (\S+)/.exec(generated.stdout)?.[1] as string;
    expect(temp).toMatch(/^(?=.*[A-Z])(?=.*[a-z])(?=.*[0-9]).{12,}$/);

    const taken = await docket(inst, ['admin', 'create', 'ROOT', '--password', PASSWORD]);
    expect(taken.code).toBe(1);
    expect(taken.stderr).toContain('already exists');
    const weak = await docket(inst, ['admin', 'create', 'weakling', '--password', 'short']);
    expect(weak.code).toBe(2);
    expect(weak.stderr).toContain('does not meet the rules');

    const { app } = await appFor(inst);
    try {
      const root = await signIn(app, 'root', PASSWORD);
      expect((await root.get('/api/me')).json()).toMatchObject({
        username: 'root',
        email: 'root@example.com',
        isSystemAdmin: true,
        mustChangePassword: false,
      });
      const helper = await signIn(app, 'helper', temp);
      expect((await helper.get('/api/me')).json()).toMatchObject({
        isSystemAdmin: true,
        mustChangePassword: true,
      });
    } finally {
      await app.close();
    }
  });

  it('resets a locked-out administrator password and ends their sessions', async () => {
    const { app } = await appFor(inst);
    try {
      const before = await signIn(app, 'root', PASSWORD);
      const reset = await docket(inst, ['admin', 'reset-password', 'Root', '--password', 'Brand-new-pass-7']);
      expect(reset.code, reset.stderr).toBe(0);
      expect((await before.get('/api/me')).statusCode).toBe(401);
      expect((await login(app, 'root', PASSWORD)).statusCode).toBe(401);
      expect((await login(app, 'root', 'Brand-new-pass-7')).statusCode).toBe(200);
      const missing = await docket(inst, [
        'admin',
        'reset-password',
        'nobody',
        '--password',
        'Brand-new-pass-7',
      ]);
      expect(missing.code).toBe(1);
      expect(missing.stderr).toContain('No user named nobody');
    } finally {
      await app.close();
    }
  });
});

describe('docket backup and restore', { timeout: 120_000 }, () => {
  let source: Instance;
  let target: Instance;
  beforeAll(async () => {
    source = await instance();
    target = await instance();
  });
  afterAll(async () => {
    await source.drop();
    await target.drop();
  });

  it('writes the same format as the HTTP export, to a file or to stdout, and restores it elsewhere losing nothing', async () => {
    const { app } = await appFor(source);
    let original: Awaited<ReturnType<typeof snapshot>>;
    let httpExport: { format: string; version: number; data: unknown; files: unknown };
    try {
      const seed = await populate(app);
      original = await snapshot(app);
      httpExport = JSON.parse(
        (await seed.admin.post('/api/admin/database/export', { confirmPassword: PASSWORD })).body,
      );
    } finally {
      await app.close();
    }
    const file = path.join(source.dataDir, 'backup.json');
    const written = await docket(source, ['backup', file]);
    expect(written.code, written.stderr).toBe(0);
    expect(written.stderr).toMatch(
      /Backup written to .*: 4 users, 2 projects, 4 tickets, 3 sprints, 7 files/,
    );
    const fromFile = JSON.parse(fs.readFileSync(file, 'utf8'));
    expect({ ...fromFile, exportedAt: null }).toEqual({ ...httpExport, exportedAt: null });
    const toStdout = await docket(source, ['backup']);
    expect(toStdout.code).toBe(0);
    expect({ ...JSON.parse(toStdout.stdout), exportedAt: null }).toEqual({ ...fromFile, exportedAt: null });
    expect(fs.readdirSync(source.dataDir).filter((n) => n.includes('partial'))).toEqual([]);

    const notConfirmed = await docket(target, ['restore', file]);
    expect(notConfirmed.code).toBe(2);
    expect(notConfirmed.stderr).toContain('--yes');

    const restored = await docket(target, ['restore', file, '--yes']);
    expect(restored.code, restored.stderr).toBe(0);
    expect(restored.stdout).toContain('Restored 4 users, 2 projects, 4 tickets, 3 sprints and 7 files');
    const { app: after } = await appFor(target);
    try {
      expect(await snapshot(after)).toEqual(original);
    } finally {
      await after.close();
    }
  });

  it.runIf(fs.existsSync('/usr/bin/script'))(
    'shows a progress bar on a terminal, and none when piped',
    async () => {
      const file = path.join(source.dataDir, 'backup.json');
      const piped = await docket(target, ['restore', file, '--yes']);
      expect(piped.code).toBe(0);
      expect(piped.stderr).not.toContain('%');
      // `script` runs the command on a pseudo-terminal.
      const command = [process.execPath, bin, 'restore', file, '--yes'].map((a) => `'${a}'`).join(' ');
      const onTty = await new Promise<string>((resolve) => {
        execFile(
          '/usr/bin/script',
          ['-qec', command, '/dev/null'],
          { cwd: target.dataDir, env: { PATH: process.env.PATH ?? '', HOME: os.tmpdir(), ...target.env } },
          (_e, stdout) => resolve(stdout),
        );
      });
      expect(onTty).toMatch(/Checking +\[#+\] 100%/);
      expect(onTty).toMatch(/Restoring +\[#+\] 100%/);
      expect(onTty).toContain('Restored 4 users');
    },
  );

  it('refuses a tampered or missing backup with exit code 1 and changes nothing', async () => {
    const { app } = await appFor(target);
    let before: Awaited<ReturnType<typeof snapshot>>;
    try {
      before = await snapshot(app);
    } finally {
      await app.close();
    }
    const doc = JSON.parse(fs.readFileSync(path.join(source.dataDir, 'backup.json'), 'utf8'));
    doc.data.comments[0].ticket_id = 'missing';
    const bad = path.join(target.dataDir, 'bad.json');
    fs.writeFileSync(bad, JSON.stringify(doc));
    const res = await docket(target, ['restore', bad, '--yes']);
    expect(res.code).toBe(1);
    expect(res.stderr).toContain('Invalid backup file; nothing was changed.');
    expect(res.stderr).toContain('data.comments[0].ticket_id');
    const missing = await docket(target, ['restore', path.join(target.dataDir, 'nope.json'), '--yes']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('No such file');
    const { app: again } = await appFor(target);
    try {
      expect(await snapshot(again)).toEqual(before);
    } finally {
      await again.close();
    }
  });
});

describe('docket import', { timeout: 180_000 }, () => {
  let inst: Instance;
  const jira = path.join(root, 'test', 'fixtures', 'imports', 'jira.csv');
  beforeAll(async () => {
    inst = await instance();
    expect((await docket(inst, ['migrate'])).code).toBe(0);
    const { app } = await appFor(inst);
    try {
      const reg = await app.inject({
        method: 'POST',
        url: '/api/auth/register',
        payload: { username: 'importer', password: PASSWORD },
      });
      expect(reg.statusCode, reg.body).toBe(201);
      const owner = await signIn(app, 'importer', PASSWORD);
      expect((await owner.post('/api/projects', { name: 'Shop', key: 'SHOP' })).statusCode).toBe(201);
    } finally {
      await app.close();
    }
  });
  afterAll(async () => inst.drop());

  it('checks with --dry-run, imports, and a second run skips what the first made', async () => {
    const dry = await docket(inst, ['import', 'jira-csv', jira, '--project', 'shop', '--dry-run']);
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toContain(
      'Dry run, nothing written: would create 4 tickets, 2 comments, 3 labels, 1 columns and 2 links',
    );
    expect(dry.stdout).toContain('row 4 (line 9): No Summary');
    const mapping = path.join(inst.dataDir, 'mapping.json');
    fs.writeFileSync(mapping, JSON.stringify({ statuses: { 'In Review': 'In Progress' } }));
    const run = await docket(inst, ['import', 'jira-csv', jira, '--project', 'SHOP', '--mapping', mapping]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('Created 4 tickets, 2 comments, 3 labels, 0 columns and 2 links; 0 records');
    const again = await docket(inst, ['import', 'jira-csv', jira, '--project', 'SHOP']);
    expect(again.stdout).toContain(
      'Created 0 tickets, 0 comments, 0 labels, 0 columns and 0 links; 4 records were imported before',
    );
    const { app } = await appFor(inst);
    try {
      const owner = await signIn(app, 'importer', PASSWORD);
      expect((await owner.get('/api/projects/SHOP/tickets')).json()).toHaveLength(4);
    } finally {
      await app.close();
    }
  });

  it('refuses a wrong format, a missing project and a bad mapping', async () => {
    expect((await docket(inst, ['import', 'asana', jira, '--project', 'SHOP'])).code).toBe(2);
    expect((await docket(inst, ['import', 'jira-csv', jira])).code).toBe(2);
    const missing = await docket(inst, ['import', 'jira-csv', jira, '--project', 'NOPE']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('No project with the key NOPE');
    const bad = path.join(inst.dataDir, 'bad.json');
    fs.writeFileSync(bad, '{"types": {"Bug": "Boog"}}');
    const refused = await docket(inst, ['import', 'jira-csv', jira, '--project', 'SHOP', '--mapping', bad]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('--mapping: types.Bug');
  });
});
