import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';
import { backupStream } from '../src/domain/backup/export.js';
import { BACKUP_TABLES, BACKUP_VERSION, UPGRADES } from '../src/domain/backup/format.js';
import { restoreBackup } from '../src/domain/backup/restore.js';
import { newId } from '../src/domain/ids.js';
import { buildApp } from '../src/server/app.js';
import { PASSWORD_RULES } from '../src/shared/accounts.js';
import { createTestApp, dialect, dropTestData, pgUrl, type TestApp, testConfig } from './helpers/app.js';
import { multipart, type Populated, populate, putFile, snapshot } from './helpers/backup.js';
import { expectDerivedKept } from './helpers/board.js';
import { type Client, clientFor, PASSWORD, signIn, signUp } from './helpers/factories.js';

const EXPORT = '/api/admin/database/export';
const IMPORT = '/api/admin/database/import';
const WIPE = '/api/admin/database/wipe';
const WIPE_PROJECTS = '/api/admin/database/wipe-projects';

async function exportAs(client: Client, password = PASSWORD) {
  const res = await client.post(EXPORT, { confirmPassword: password });
  expect(res.statusCode).toBe(200);
  return res.body;
}

async function importAs(client: Client, backup: string | Buffer, password = PASSWORD) {
  return client.req({
    method: 'POST',
    url: IMPORT,
    ...multipart({ confirmPassword: password }, { content: backup }),
  });
}

async function eventTypes(app: FastifyInstance) {
  return (await app.services.db.kysely.selectFrom('events').select('type').orderBy('id').execute()).map(
    (e) => e.type,
  );
}

describe('database export, wipe and import', () => {
  let t: TestApp;
  let seed: Populated;
  beforeAll(async () => {
    t = await createTestApp();
    seed = await populate(t.app);
  });
  afterAll(async () => t.close());

  it('exports a streamed JSON attachment with every table, password hashes and base64 files', async () => {
    const res = await seed.admin.post(EXPORT, { confirmPassword: PASSWORD });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.headers['content-disposition']).toMatch(/^attachment; filename="docket-backup-.*\.json"$/);
    const doc = JSON.parse(res.body);
    expect(doc).toMatchObject({ format: 'docket-backup', version: BACKUP_VERSION });
    expect(new Date(doc.exportedAt).toISOString()).toBe(doc.exportedAt);
    expect(Object.keys(doc.data)).toEqual([...BACKUP_TABLES]);
    expect(doc.data.users[0].password_hash).toMatch(/^\$argon2id\$/);
    expect(doc.data.sessions).toBeUndefined();
    expect(doc.data.events).toBeUndefined();
    const before = await snapshot(t.app);
    expect(doc.files).toEqual(before.files);
    for (const table of BACKUP_TABLES) expect(doc.data[table]).toHaveLength(before.data[table].length);
  });

  it('round-trips: export, wipe, import gives back every record and every file', async () => {
    const before = await snapshot(t.app);
    const backup = await exportAs(seed.admin);

    const wipe = await seed.admin.post(WIPE, { confirmPassword: PASSWORD, confirmation: 'wipe all data' });
    expect(wipe.statusCode).toBe(200);
    const { temporaryPassword } = wipe.json().newAdminCredentials;
    const wiped = await snapshot(t.app);
    expect(wiped.data.tickets).toHaveLength(0);
    expect(wiped.files).toEqual({ avatars: {}, attachments: {}, files: {} });

    const admin = await signIn(t.app, 'admin', temporaryPassword);
    const res = await importAs(admin, backup, temporaryPassword);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ success: true, imported: seed.counts });

    const after = await snapshot(t.app);
    for (const table of BACKUP_TABLES)
      expect({ table, rows: after.data[table] }).toEqual({ table, rows: before.data[table] });
    expect(after.files).toEqual(before.files);
    // The derived tables (column totals, blocks, label columns; not in the backup) are rebuilt by the restore's inserts.
    await expectDerivedKept(t.app.services.db);
    // The restored accounts sign in with their own passwords; the wipe's admin is gone.
    await signIn(t.app, seed.alice.username);
    expect(
      (
        await t.app.inject({
          method: 'POST',
          url: '/api/auth/callback/credentials',
          payload: { username: 'admin', password: temporaryPassword },
        })
      ).statusCode,
    ).toBe(401);
  });

  it('ends every session on import, the importing administrator included, and emits database.wiped', async () => {
    const admin = await signIn(t.app, seed.admin.username);
    const alice = await signIn(t.app, seed.alice.username);
    const backup = await exportAs(admin);
    const res = await importAs(admin, backup);
    expect(res.statusCode).toBe(200);
    expect(res.cookies.find((c) => c.name === 'docket_session')?.value).toBe('');
    expect((await alice.get('/api/me')).statusCode).toBe(401);
    expect((await admin.get('/api/me')).statusCode).toBe(401);
    const sessions = await t.app.services.db.kysely.selectFrom('sessions').select('id').execute();
    expect(sessions).toHaveLength(0);
    expect(await eventTypes(t.app)).toEqual(['database.wiped']);
    // API keys are data, not sessions: the restored key still works.
    const keyRow = await t.app.services.db.kysely
      .selectFrom('api_keys')
      .select('user_id')
      .executeTakeFirstOrThrow();
    expect(keyRow.user_id).toBe(seed.alice.userId);
  });

  it('exports one consistent moment: changes made while the export runs are not in it', async () => {
    const before = await snapshot(t.app);
    const stream = backupStream(t.app.services);
    const pieces: string[] = [];
    const first = await stream.next();
    pieces.push(first.value as string);
    // Written after the export began: a ticket with a comment.
    const db = t.app.services.db.kysely;
    const ticket = before.data.tickets[0] as Record<string, unknown>;
    const id = newId();
    await db
      .insertInto('tickets')
      .values({ ...ticket, id, number: 999, rank: `${ticket.rank}V`, parent_id: null } as never)
      .execute();
    await db
      .insertInto('comments')
      .values({
        id: newId(),
        ticket_id: id,
        author_id: null,
        content: 'late',
        created_at: 'x',
        updated_at: 'x',
      })
      .execute();
    for await (const piece of stream) pieces.push(piece);
    const doc = JSON.parse(pieces.join(''));
    expect(doc.data.tickets).toHaveLength(before.data.tickets.length);
    expect(doc.data.comments).toHaveLength(before.data.comments.length);
    await db.deleteFrom('tickets').where('id', '=', id).execute();
    expect(await snapshot(t.app)).toEqual(before);
  });

  it('restores a backup whose tables come in another order (children first)', async () => {
    const admin = await signIn(t.app, seed.admin.username);
    const before = await snapshot(t.app);
    const doc = JSON.parse(await exportAs(admin));
    const reversed = Object.fromEntries(Object.entries(doc.data).reverse());
    const res = await importAs(
      admin,
      JSON.stringify(
        {
          files: doc.files,
          data: reversed,
          version: doc.version,
          format: doc.format,
          exportedAt: doc.exportedAt,
        },
        null,
        2,
      ),
    );
    expect(res.statusCode, res.body).toBe(200);
    expect(await snapshot(t.app)).toEqual(before);
  });

  describe('a bad backup changes nothing', () => {
    let admin: Client;
    let good: string;
    let before: Awaited<ReturnType<typeof snapshot>>;
    beforeAll(async () => {
      admin = await signIn(t.app, seed.admin.username);
      good = await exportAs(admin);
      before = await snapshot(t.app);
    });

    const tamper = (fn: (doc: any) => void) => () => {
      const doc = JSON.parse(good);
      fn(doc);
      return JSON.stringify(doc);
    };
    const cases: [string, () => string | Buffer, string][] = [
      ['truncated in the middle', () => good.slice(0, Math.floor(good.length / 2)), 'Not valid JSON'],
      ['cut one character short', () => good.trimEnd().slice(0, -1), 'truncated'],
      ['empty', () => '', 'Not valid JSON'],
      ['not JSON at all', () => Buffer.from([0xff, 0xfe, 0x00]), 'Not valid'],
      ['an array', () => '[]', 'A backup is a JSON object'],
      ['of another format', tamper((d) => (d.format = 'other')), 'format'],
      ['of a newer version', tamper((d) => (d.version = 99)), 'newer'],
      [
        'with a record of the wrong type',
        tamper((d) => (d.data.tickets[0].rank = 42)),
        'data.tickets[0].rank',
      ],
      ['with an unknown column', tamper((d) => (d.data.users[0].is_root = 1)), 'data.users[0]'],
      ['with an unknown table', tamper((d) => (d.data.widgets = [])), 'data.widgets'],
      ['without a table', tamper((d) => delete d.data.comments), 'data.comments'],
      [
        'with a dangling reference',
        tamper((d) => (d.data.comments[0].ticket_id = 'nope')),
        'data.comments[0].ticket_id',
      ],
      [
        'with a dangling parent',
        tamper((d) => (d.data.tickets[0].parent_id = 'nope')),
        'data.tickets[0].parent_id',
      ],
      [
        'with a duplicate id',
        tamper((d) => d.data.labels.push({ ...d.data.labels[0], name: 'other' })),
        'Duplicate id',
      ],
      [
        'with a duplicate username',
        tamper((d) => (d.data.users[1].username = d.data.users[0].username.toUpperCase())),
        'Duplicate username',
      ],
      [
        'with two active sprints',
        tamper((d) => {
          for (const sprint of d.data.sprints) sprint.status = 'active';
        }),
        'active sprint',
      ],
      [
        'with two sprints of one name in other letter case (issue 20)',
        tamper((d) => {
          const [a, b] = d.data.sprints;
          b.project_id = a.project_id;
          b.name = a.name.toUpperCase();
        }),
        'Duplicate name in its project in sprints',
      ],
      [
        'with a file that is not base64',
        tamper((d) => (d.files.files[Object.keys(d.files.files)[0]] = 'not base64!')),
        'base64',
      ],
      [
        'with a file cut short',
        tamper((d) => {
          const name = Object.keys(d.files.attachments).find(
            (n) => d.files.attachments[n].length > 100,
          ) as string;
          d.files.attachments[name] = d.files.attachments[name].slice(0, -1);
        }),
        'base64',
      ],
      ['with a referenced file missing', tamper((d) => (d.files.avatars = {})), 'avatars/'],
      [
        'with an unsafe file name',
        tamper((d) => (d.files.files['../../etc/passwd'] = '')),
        'stored file name',
      ],
      [
        'without an active administrator',
        tamper((d) => {
          for (const user of d.data.users) user.is_system_admin = 0;
        }),
        'administrator',
      ],
    ];
    it.each(cases)(
      'refuses a backup %s with 400 Invalid backup file and details',
      async (_name, make, detail) => {
        const res = await importAs(admin, make());
        expect(res.statusCode).toBe(400);
        expect(res.json().error).toBe('Invalid backup file');
        expect(JSON.stringify(res.json().details)).toContain(detail);
        expect(await snapshot(t.app)).toEqual(before);
        expect((await admin.get('/api/me')).statusCode).toBe(200);
      },
    );

    it('leaves no temporary files behind, and sweeps those a crash left a day ago', async () => {
      const tmp = path.join(t.config.dataDir, 'tmp');
      expect(fs.readdirSync(tmp)).toEqual([]);
      const stale = path.join(tmp, 'restore-crashed');
      fs.mkdirSync(path.join(stale, 'attachments'), { recursive: true });
      const old = new Date(Date.now() - 2 * 86_400_000);
      fs.utimesSync(stale, old, old);
      expect((await importAs(admin, '{}')).statusCode).toBe(400);
      expect(fs.readdirSync(tmp)).toEqual([]);
    });

    it('asks for the file and the password', async () => {
      const noFile = await admin.req({
        method: 'POST',
        url: IMPORT,
        ...multipart({ confirmPassword: PASSWORD }),
      });
      expect(noFile.statusCode).toBe(400);
      expect(noFile.json().error).toBe('No file provided');
      const json = await admin.post(IMPORT, { confirmPassword: PASSWORD });
      expect(json.statusCode).toBe(400);
      expect(json.json().error).toBe('No file provided');
      const noPassword = await admin.req({
        method: 'POST',
        url: IMPORT,
        ...multipart({}, { content: good }),
      });
      expect(noPassword.statusCode).toBe(400);
      expect(noPassword.json().details[0].path).toBe('confirmPassword');
      expect(await snapshot(t.app)).toEqual(before);
    });
  });

  describe('permissions and confirmations', () => {
    const operations = [
      ['export', EXPORT, { confirmPassword: PASSWORD }],
      ['wipe', WIPE, { confirmPassword: PASSWORD, confirmation: 'wipe all data' }],
      ['wipe-projects', WIPE_PROJECTS, { confirmPassword: PASSWORD }],
    ] as const;

    it.each(operations)(
      '%s: 401 without a session, 403 for a non-admin and with an API key',
      async (_n, url, body) => {
        expect((await t.app.inject({ method: 'POST', url, payload: body })).statusCode).toBe(401);
        const nonAdmin = await signIn(t.app, seed.bob.username);
        const res = await nonAdmin.post(url, body);
        expect(res.statusCode).toBe(403);
        expect(res.json().error).toBe('System admin access required');
        const admin = await signIn(t.app, seed.admin.username);
        const key = (await admin.post('/api/me/mcp-key')).json().apiKey;
        const viaKey = await clientFor(t.app, { apiKey: key }).post(url, body);
        expect(viaKey.statusCode).toBe(403);
      },
    );

    it('import: 401 without a session, 403 for a non-admin', async () => {
      const body = multipart({ confirmPassword: PASSWORD }, { content: '{}' });
      expect((await t.app.inject({ method: 'POST', url: IMPORT, ...body })).statusCode).toBe(401);
      const nonAdmin = await signIn(t.app, seed.bob.username);
      const res = await nonAdmin.req({ method: 'POST', url: IMPORT, ...body });
      expect(res.statusCode).toBe(403);
    });

    it.each([...operations, ['import', IMPORT, null] as const])(
      '%s: a wrong password is 400 Invalid password confirmation and changes nothing',
      async (_n, url, body) => {
        const admin = await signIn(t.app, seed.admin.username);
        const before = await snapshot(t.app);
        const res =
          body === null
            ? await importAs(admin, await exportAs(admin), 'Wrong-password-1')
            : await admin.post(url, { ...body, confirmPassword: 'Wrong-password-1' });
        expect(res.statusCode).toBe(400);
        expect(res.json()).toEqual({ error: 'Invalid password confirmation' });
        expect(await snapshot(t.app)).toEqual(before);
      },
    );

    it('wipe: the confirmation text must be exactly "wipe all data"', async () => {
      const admin = await signIn(t.app, seed.admin.username);
      for (const confirmation of ['wipe all', 'WIPE ALL DATA', undefined]) {
        const res = await admin.post(WIPE, { confirmPassword: PASSWORD, confirmation });
        expect(res.statusCode).toBe(400);
        expect(res.json().error).toBe('Validation failed');
        expect(res.json().details[0].path).toBe('confirmation');
      }
      expect((await snapshot(t.app)).data.tickets.length).toBe(seed.counts.tickets);
    });
  });
});

describe('wipe', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => t.close());

  it('deletes all data and files and creates admin with a temporary password that must be changed', async () => {
    const seed = await populate(t.app);
    const res = await seed.admin.post(WIPE, { confirmPassword: PASSWORD, confirmation: 'wipe all data' });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.success).toBe(true);
    expect(body.newAdminCredentials.username).toBe('admin');
    const temp = body.newAdminCredentials.temporaryPassword;
    for (const rule of PASSWORD_RULES) expect(rule.test(temp)).toBe(true);

    const after = await snapshot(t.app);
    for (const table of BACKUP_TABLES) {
      if (table !== 'users' && table !== 'system_settings')
        expect({ table, rows: after.data[table] }).toEqual({ table, rows: [] });
    }
    expect(after.data.users).toHaveLength(1);
    expect(after.data.users[0]).toMatchObject({
      username: 'admin',
      is_system_admin: 1,
      is_active: 1,
      must_change_password: 1,
    });
    // Settings are back to their defaults.
    expect((after.data.system_settings[0] as { max_image_size: number }).max_image_size).toBe(5_242_880);
    expect(after.files).toEqual({ avatars: {}, attachments: {}, files: {} });
    expect(await eventTypes(t.app)).toEqual(['database.wiped']);

    expect((await seed.alice.get('/api/me')).statusCode).toBe(401);
    expect((await seed.admin.get('/api/me')).statusCode).toBe(401);
    const admin = await signIn(t.app, 'admin', temp);
    const me = await admin.get('/api/me');
    expect(me.json()).toMatchObject({ username: 'admin', isSystemAdmin: true, mustChangePassword: true });
    const changed = await admin.patch('/api/me/password', {
      currentPassword: temp,
      newPassword: 'A-new-password-9',
    });
    expect(changed.statusCode).toBe(200);
    expect(
      (await signIn(t.app, 'admin', 'A-new-password-9').then((c) => c.get('/api/me'))).json()
        .mustChangePassword,
    ).toBe(false);
  });
});

describe('wipe-projects', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => t.close());

  it('deletes projects, tickets, sprints and their files but keeps users, passwords, sessions and settings', async () => {
    const seed = await populate(t.app);
    const before = await snapshot(t.app);
    const res = await seed.admin.post(WIPE_PROJECTS, { confirmPassword: PASSWORD });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ success: true, wiped: { projects: 2, tickets: 4, sprints: 3 } });
    const after = await snapshot(t.app);
    for (const table of ['users', 'api_keys', 'system_settings', 'uploads'] as const)
      expect(after.data[table]).toEqual(before.data[table]);
    for (const table of BACKUP_TABLES) {
      if (!['users', 'api_keys', 'system_settings', 'uploads', 'saved_views'].includes(table))
        expect({ table, rows: after.data[table] }).toEqual({ table, rows: [] });
    }
    // Saved views go with their project; a view of no project stays with its author.
    expect(after.data.saved_views).toEqual(
      before.data.saved_views.filter((v) => (v as { project_id: string | null }).project_id === null),
    );
    expect(after.data.saved_views).toHaveLength(1);
    expect(after.files.attachments).toEqual({});
    expect(after.files.avatars).toEqual(before.files.avatars);
    expect(after.files.files).toEqual(before.files.files);
    expect(await eventTypes(t.app)).toContain('database.projects.wiped');
    // Still signed in, and passwords still work.
    expect((await seed.alice.get('/api/me')).statusCode).toBe(200);
    await signIn(t.app, seed.bob.username);
  });
});

describe('audit log', () => {
  const lines: Record<string, unknown>[] = [];
  let app: FastifyInstance;
  let config: Awaited<ReturnType<typeof testConfig>>;
  beforeAll(async () => {
    config = await testConfig();
    const stream = new Writable({
      write(chunk, _enc, done) {
        for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line));
        done();
      },
    });
    app = await buildApp(config, {
      logger: { level: 'info', stream },
      webRoot: path.join(os.tmpdir(), 'docket-no-web'),
    });
  });
  afterAll(async () => {
    await app.close();
    await dropTestData(config);
  });

  it('records who ran each database operation, what it was and when', async () => {
    const admin = await signUp(app);
    const backup = await exportAs(admin);
    await admin.post(WIPE_PROJECTS, { confirmPassword: PASSWORD });
    await importAs(admin, backup);
    const again = await signIn(app, admin.username);
    const wiped = await again.post(WIPE, { confirmPassword: PASSWORD, confirmation: 'wipe all data' });
    expect(JSON.stringify(lines)).not.toContain(PASSWORD);
    expect(JSON.stringify(lines)).not.toContain(wiped.json().newAdminCredentials.temporaryPassword);
    const audit = lines.filter(
      (l) => typeof l.action === 'string' && String(l.action).startsWith('database.'),
    );
    expect(audit.map((l) => l.action)).toEqual([
      'database.export',
      'database.wipe-projects',
      'database.import.start',
      'database.import',
      'database.wipe',
    ]);
    for (const l of audit) {
      expect(l).toMatchObject({ admin: admin.userId, adminUsername: admin.username });
      expect(typeof l.time).toBe('number');
    }
  });
});

describe('the import size limit', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ DOCKET_BACKUP_MAX_BYTES: '4096' });
  });
  afterAll(async () => t.close());

  it('answers 413 for a backup above DOCKET_BACKUP_MAX_BYTES and changes nothing', async () => {
    const admin = await signUp(t.app);
    const before = await snapshot(t.app);
    const res = await importAs(admin, `{"format":"docket-backup","pad":"${'x'.repeat(10_000)}"}`);
    expect(res.statusCode).toBe(413);
    expect(res.json().error).toBe('Request body too large');
    expect(await snapshot(t.app)).toEqual(before);
    expect(fs.readdirSync(path.join(t.config.dataDir, 'tmp'))).toEqual([]);
  });
});

describe('older backup versions are upgraded through the chain', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => t.close());

  it('restores a synthetic version-0 backup whose users were called people with a "login" column', async () => {
    const admin = await signUp(t.app);
    const doc = JSON.parse(await exportAs(admin));
    doc.version = 0;
    doc.data.people = doc.data.users.map(({ username, ...rest }: Record<string, unknown>) => ({
      ...rest,
      login: username,
    }));
    delete doc.data.users;
    const file = path.join(t.config.dataDir, 'v0.json');
    fs.writeFileSync(file, JSON.stringify(doc));
    const upgrades = {
      ...UPGRADES,
      0: (table: string, row: Record<string, unknown>) => {
        if (table !== 'people') return [{ table, row }];
        const { login, ...rest } = row;
        return [{ table: 'users', row: { ...rest, username: login } }];
      },
    };
    const before = await snapshot(t.app);
    const result = await restoreBackup(t.app.services, file, { upgrades, oldestVersion: 0 });
    expect(result.imported.users).toBe(1);
    expect(await snapshot(t.app)).toEqual(before);
    // Without the chain (today's real configuration) version 0 is refused.
    await expect(restoreBackup(t.app.services, file)).rejects.toMatchObject({
      status: 400,
      message: 'Invalid backup file',
    });
  });
});

describe('a backup moves between SQLite and PostgreSQL', () => {
  const apps: { app: FastifyInstance; close(): Promise<void> }[] = [];
  afterAll(async () => {
    for (const a of apps) await a.close();
  });

  async function appOn(kind: 'sqlite' | 'postgres') {
    const config = loadConfig({
      DOCKET_DATA_DIR: fs.mkdtempSync(path.join(os.tmpdir(), 'docket-xdb-')),
      DOCKET_LOG_LEVEL: 'silent',
      DOCKET_REGISTER_LIMIT: '1000',
      DOCKET_LOGIN_LIMIT: '1000',
      ...(kind === 'postgres' ? { DATABASE_URL: pgUrl as string } : {}),
    });
    if (kind === 'postgres') config.pgSchema = `x_${randomBytes(6).toString('hex')}`;
    const app = await buildApp(config, { logger: false, webRoot: path.join(os.tmpdir(), 'docket-no-web') });
    const entry = {
      app,
      close: async () => {
        await app.close();
        await dropTestData(config);
      },
    };
    apps.push(entry);
    return app;
  }

  it.runIf(pgUrl && dialect === 'sqlite')(
    'restores a SQLite backup on PostgreSQL and that backup back on SQLite, losing nothing',
    async () => {
      const sqliteApp = await appOn('sqlite');
      const seed = await populate(sqliteApp);
      const original = await snapshot(sqliteApp);
      const fromSqlite = await exportAs(seed.admin);

      const pgApp = await appOn('postgres');
      const pgAdmin = await signUp(pgApp);
      await putFile(pgApp, 'attachments', Buffer.from('left over'), 'txt');
      const res = await importAs(pgAdmin, fromSqlite);
      expect(res.statusCode).toBe(200);
      expect(await snapshot(pgApp)).toEqual(original);

      const pgClient = await signIn(pgApp, seed.admin.username);
      const fromPg = await exportAs(pgClient);
      const sqliteAgain = await appOn('sqlite');
      const other = await signUp(sqliteAgain);
      expect((await importAs(other, fromPg)).statusCode).toBe(200);
      expect(await snapshot(sqliteAgain)).toEqual(original);
    },
  );
});
