import '../heap.js';
import { parseArgs as parseNodeArgs } from 'node:util';
import '../env-file.js';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { Readable, type Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { sql } from 'kysely';
import { type Config, ConfigError, loadConfig } from '../config.js';
import { connect, type Db } from '../db/connect.js';
import { migrateToLatest } from '../db/migrate.js';
import { endAllSessions } from '../domain/auth.js';
import { backupStream, type ExportStats } from '../domain/backup/export.js';
import { InvalidBackup, type RestorePhase, restoreBackup } from '../domain/backup/restore.js';
import type { Logger, Services } from '../domain/context.js';
import { requestCtx } from '../domain/context.js';
import { AppError } from '../domain/errors.js';
import { nowIso } from '../domain/ids.js';
import { importTickets } from '../domain/imports/run.js';
import { hashPassword } from '../domain/passwords.js';
import { ensureSettings } from '../domain/settings.js';
import { temporaryPassword } from '../domain/temporary-password.js';
import { createUserDirect } from '../domain/users.js';
import { moveFiles } from '../files/move-files.js';
import { diskStore, openFileStore, s3Store } from '../files/open-store.js';
import { passwordSchema, usernameSchema } from '../shared/accounts.js';
import { IMPORT_FORMATS, type ImportFormat, type ImportMapping, importMapping } from '../shared/imports.js';

const HELP = `Docket: the operator's command line.

Usage: docket <command> [options]

Commands:
  serve                          Start the server (what npm start runs)
  migrate                        Apply pending database migrations
  backup [file]                  Write a backup of all data and files (to stdout without a file)
  restore <file> [--yes]         Replace ALL data and files with a backup; signs everyone out
  files migrate --to s3|disk     Move every stored file into the S3 bucket (DOCKET_S3_*) or into
                                 the data directory; run it while Docket is stopped
  admin create <username>        Create a system administrator
        [--password <p>] [--email <e>] [--name <n>]
  admin reset-password <username> [--password <p>]
                                 Set a new password (and end that user's sessions)
  import <format> <file> --project <KEY> [--dry-run] [--mapping <file.json>]
                                 Import tickets from another tracker's export into a project
                                 (formats: jira-csv, github-json, linear-csv, trello-json, csv;
                                 acts as the project's owner; docs/import.md)

Without --password, a password is asked for on a terminal, or generated and printed.
Configuration comes from the environment and .env, as for the server (DOCKET_DATA_DIR,
DATABASE_URL, ...). Exit codes: 0 success, 1 failure, 2 wrong usage or configuration.

Options:
  -h, --help                     Show this help
`;

/** Wrong usage or input: exit code 2. */
class UsageError extends Error {}
/** The operation could not be done: exit code 1. */
class Failure extends Error {}

const OPTIONS = {
  help: { type: 'boolean', short: 'h' },
  yes: { type: 'boolean', short: 'y' },
  password: { type: 'string' },
  email: { type: 'string' },
  name: { type: 'string' },
  to: { type: 'string' },
  project: { type: 'string' },
  mapping: { type: 'string' },
  'dry-run': { type: 'boolean' },
} as const;

interface Parsed {
  args: string[];
  flags: {
    help?: boolean;
    yes?: boolean;
    password?: string;
    email?: string;
    name?: string;
    to?: string;
    project?: string;
    mapping?: string;
    'dry-run'?: boolean;
  };
}

/** The command line, by node's util.parseArgs; its errors become usage errors in our words. */
function parseArgs(argv: string[]): Parsed {
  try {
    const { values, positionals } = parseNodeArgs({
      args: argv,
      options: OPTIONS,
      allowPositionals: true,
      strict: true,
    });
    return { args: positionals, flags: values };
  } catch (err) {
    const { code, message } = err as { code?: string; message: string };
    const option = /'(--?[^' ]+)/.exec(message)?.[1] ?? '';
    if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') throw new UsageError(`Unknown option ${option}`);
    if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') throw new UsageError(`${option} needs a value`);
    throw new UsageError(message);
  }
}

const quietLog: Logger = { info() {}, warn() {}, error() {} };

function loadConfigOrExit(): Config {
  try {
    return loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\n`);
      process.exit(2);
    }
    throw err;
  }
}

async function withServices<T>(fn: (s: Services, db: Db) => Promise<T>): Promise<T> {
  const config = loadConfigOrExit();
  const db = await connect({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
  try {
    await migrateToLatest(db);
    await ensureSettings(db.kysely);
    const services: Services = {
      db,
      config,
      events: { published() {}, origin: null },
      files: await openFileStore(config),
      log: quietLog,
    };
    try {
      return await fn(services, db);
    } finally {
      services.files.close();
    }
  } finally {
    await db.close();
  }
}

const formatBytes = (n: number) =>
  n < 1024
    ? `${n} B`
    : n < 1024 ** 2
      ? `${(n / 1024).toFixed(1)} KB`
      : n < 1024 ** 3
        ? `${(n / 1024 ** 2).toFixed(1)} MB`
        : `${(n / 1024 ** 3).toFixed(2)} GB`;

/** A one-line progress bar on a terminal (stderr); silent otherwise. */
function progressBar() {
  const tty = process.stderr.isTTY;
  let lastDraw = 0;
  let lastPhase = '';
  const labels: Record<RestorePhase, string> = {
    reading: 'Reading   ',
    checking: 'Checking  ',
    files: 'Files     ',
    writing: 'Restoring ',
  };
  return {
    update(phase: RestorePhase, done: number, total: number) {
      if (!tty) return;
      const now = Date.now();
      if (phase === lastPhase && now - lastDraw < 100 && done < total) return;
      lastDraw = now;
      lastPhase = phase;
      const width = Math.max(10, Math.min(40, (process.stderr.columns ?? 80) - 40));
      const ratio = total > 0 ? Math.min(1, done / total) : 1;
      const filled = Math.round(ratio * width);
      const amount =
        phase === 'files' ? `${done}/${total} files` : `${formatBytes(done)}/${formatBytes(total)}`;
      process.stderr.write(
        `\r${labels[phase]}[${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${String(Math.round(ratio * 100)).padStart(3)}% ${amount}\u001b[K`,
      );
    },
    done() {
      if (tty && lastPhase) process.stderr.write('\r\u001b[K');
    },
  };
}

async function readHidden(prompt: string): Promise<string> {
  const stdin = process.stdin;
  process.stderr.write(prompt);
  return new Promise((resolve, reject) => {
    let value = '';
    stdin.setRawMode(true);
    stdin.resume();
    stdin.setEncoding('utf8');
    const onData = (chunk: string) => {
      for (const ch of chunk) {
        if (ch === '\r' || ch === '\n' || ch === '\u0004') {
          finish();
          resolve(value);
          return;
        }
        if (ch === '\u0003') {
          finish();
          reject(new UsageError('Cancelled'));
          return;
        }
        if (ch === '\u007f' || ch === '\b') value = value.slice(0, -1);
        else value += ch;
      }
    };
    const finish = () => {
      stdin.off('data', onData);
      stdin.setRawMode(false);
      stdin.pause();
      process.stderr.write('\n');
    };
    stdin.on('data', onData);
  });
}

async function readLine(prompt: string): Promise<string> {
  const readline = await import('node:readline/promises');
  const rl = readline.createInterface({ input: process.stdin, output: process.stderr });
  try {
    return await rl.question(prompt);
  } finally {
    rl.close();
  }
}

function checkPassword(p: string): string {
  const r = passwordSchema.safeParse(p);
  if (!r.success)
    throw new UsageError(
      `The password does not meet the rules:\n  ${r.error.issues.map((i) => i.message).join('\n  ')}`,
    );
  return p;
}

/** The password from --password, a prompt on a terminal, or a generated one (printed). */
async function choosePassword(flags: Parsed['flags']): Promise<{ password: string; generated: boolean }> {
  if (typeof flags.password === 'string')
    return { password: checkPassword(flags.password), generated: false };
  if (process.stdin.isTTY && process.stderr.isTTY) {
    const first = await readHidden('Password (empty to generate one): ');
    if (first === '') return { password: temporaryPassword(), generated: true };
    checkPassword(first);
    const again = await readHidden('Repeat the password: ');
    if (again !== first) throw new UsageError('The passwords do not match');
    return { password: first, generated: false };
  }
  return { password: temporaryPassword(), generated: true };
}

async function cmdMigrate() {
  const config = loadConfigOrExit();
  const db = await connect({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
  try {
    const applied = await migrateToLatest(db);
    process.stdout.write(
      applied.length ? `Applied migrations: ${applied.join(', ')}\n` : 'The database is up to date.\n',
    );
  } finally {
    await db.close();
  }
}

async function cmdBackup(file: string | undefined) {
  await withServices(async (s) => {
    const stats: ExportStats = { rows: {}, files: 0, fileBytes: 0 };
    const source = Readable.from(backupStream(s, stats));
    if (!file || file === '-') {
      await pipeline(source, process.stdout as unknown as Writable);
    } else {
      // Written beside the target and renamed when complete: a failed backup never looks finished.
      const target = path.resolve(file);
      const tmp = `${target}.partial-${randomBytes(4).toString('hex')}`;
      try {
        await pipeline(source, fs.createWriteStream(tmp, { flags: 'wx' }));
        await fsp.rename(tmp, target);
      } catch (err) {
        await fsp.rm(tmp, { force: true });
        throw err;
      }
    }
    const r = stats.rows;
    process.stderr.write(
      `Backup ${file && file !== '-' ? `written to ${file}` : 'written'}: ${r.users ?? 0} users, ${r.projects ?? 0} projects, ` +
        `${r.tickets ?? 0} tickets, ${r.sprints ?? 0} sprints, ${stats.files} files (${formatBytes(stats.fileBytes)}).\n`,
    );
  });
}

async function cmdRestore(file: string | undefined, flags: Parsed['flags']) {
  if (!file) throw new UsageError('restore needs a backup file: docket restore <file>');
  if (!fs.existsSync(file)) throw new Failure(`No such file: ${file}`);
  if (!flags.yes) {
    if (!process.stdin.isTTY)
      throw new UsageError('restore replaces all data; add --yes to confirm when not on a terminal');
    const answer = await readLine(
      `This replaces ALL data and files with ${file} and signs everyone out. Type "restore" to continue: `,
    );
    if (answer.trim() !== 'restore') throw new UsageError('Cancelled; nothing was changed');
  }
  await withServices(async (s) => {
    const bar = progressBar();
    try {
      const result = await restoreBackup(s, path.resolve(file), { onProgress: bar.update });
      bar.done();
      const i = result.imported;
      process.stdout.write(
        `Restored ${i.users} users, ${i.projects} projects, ${i.tickets} tickets, ${i.sprints} sprints and ${result.files} files. Everyone was signed out.\n`,
      );
    } catch (err) {
      bar.done();
      throw err;
    }
  });
}

async function cmdFilesMigrate(to: string | undefined) {
  if (to !== 's3' && to !== 'disk') throw new UsageError('files migrate needs --to s3 or --to disk');
  const config = loadConfigOrExit();
  if (!config.s3)
    throw new UsageError(
      'files migrate needs the bucket configured: set DOCKET_S3_BUCKET (and the other DOCKET_S3_*)',
    );
  const disk = diskStore(config);
  const bucket = await s3Store(config);
  const [from, target] = to === 's3' ? [disk, bucket] : [bucket, disk];
  const tty = process.stderr.isTTY;
  let lastLine = 0;
  try {
    const r = await moveFiles(from, target, ({ done, total, bytes }) => {
      const now = Date.now();
      if (done < total && now - lastLine < (tty ? 100 : 2000)) return;
      lastLine = now;
      const line = `Moving files to ${to}: ${done}/${total} (${formatBytes(bytes)})`;
      process.stderr.write(tty ? `\r${line}\u001b[K` : `${line}\n`);
    });
    if (tty) process.stderr.write('\n');
    process.stdout.write(
      `Moved ${r.moved} files (${formatBytes(r.bytes)}) from ${from.name} to ${target.name}` +
        (r.alreadyThere ? `; ${r.alreadyThere} were there already.\n` : '.\n') +
        (to === 's3'
          ? 'Docket keeps files in the bucket while DOCKET_S3_BUCKET is set; start it with that setting.\n'
          : 'Unset DOCKET_S3_BUCKET (and the other DOCKET_S3_*) before starting Docket, so that it uses the data directory.\n'),
    );
  } finally {
    bucket.close();
  }
}

async function findUser(s: Services, username: string) {
  return s.db.kysely
    .selectFrom('users')
    .selectAll()
    .where(sql`lower(username)`, '=', username.toLowerCase())
    .executeTakeFirst();
}

async function cmdAdminCreate(username: string | undefined, flags: Parsed['flags']) {
  if (!username) throw new UsageError('admin create needs a username: docket admin create <username>');
  const name = usernameSchema.safeParse(username);
  if (!name.success) throw new UsageError(`Invalid username: ${name.error.issues[0]?.message}`);
  await withServices(async (s) => {
    if (await findUser(s, name.data))
      throw new Failure(`A user named ${name.data} already exists (use admin reset-password)`);
    const { password, generated } = await choosePassword(flags);
    await createUserDirect(s, {
      username: name.data,
      password,
      email: typeof flags.email === 'string' ? flags.email : null,
      name: typeof flags.name === 'string' ? flags.name : null,
      isSystemAdmin: true,
      mustChangePassword: generated,
    });
    process.stdout.write(`Created the system administrator ${name.data}.\n`);
    if (generated)
      process.stdout.write(`Temporary password: ${password}\n(it must be changed at the first sign-in)\n`);
  });
}

async function cmdAdminResetPassword(username: string | undefined, flags: Parsed['flags']) {
  if (!username)
    throw new UsageError('admin reset-password needs a username: docket admin reset-password <username>');
  await withServices(async (s) => {
    const user = await findUser(s, username);
    if (!user) throw new Failure(`No user named ${username}`);
    const { password, generated } = await choosePassword(flags);
    const hash = await hashPassword(password);
    await s.db.kysely.transaction().execute(async (tx) => {
      await tx
        .updateTable('users')
        .set({ password_hash: hash, must_change_password: generated ? 1 : 0, updated_at: nowIso() })
        .where('id', '=', user.id)
        .execute();
      await endAllSessions(tx, user.id);
    });
    process.stdout.write(`Set a new password for ${user.username}; their sessions were ended.\n`);
    if (user.is_active !== 1)
      process.stdout.write('Note: this account is disabled; another administrator can enable it.\n');
    if (generated)
      process.stdout.write(`Temporary password: ${password}\n(it must be changed at the first sign-in)\n`);
  });
}

async function cmdImport(format: string, file: string, flags: Parsed['flags']) {
  if (!(IMPORT_FORMATS as readonly string[]).includes(format))
    throw new UsageError(`Unknown format ${format} (${IMPORT_FORMATS.join(', ')})`);
  if (!flags.project) throw new UsageError('import needs --project <KEY>');
  if (!fs.existsSync(file)) throw new Failure(`No such file: ${file}`);
  let mapping: ImportMapping | undefined;
  if (flags.mapping) {
    let raw: unknown;
    try {
      raw = JSON.parse(await fsp.readFile(flags.mapping, 'utf8'));
    } catch (err) {
      throw new UsageError(`--mapping: cannot read ${flags.mapping} as JSON (${(err as Error).message})`);
    }
    const parsed = importMapping.safeParse(raw);
    if (!parsed.success)
      throw new UsageError(
        `--mapping: ${parsed.error.issues.map((i) => `${i.path.join('.') || '(mapping)'}: ${i.message}`).join('; ')}`,
      );
    mapping = parsed.data;
  }
  const projectRef = flags.project;
  await withServices(async (s) => {
    // The operator acts as the project's owner: imported tickets without a known reporter are theirs.
    const owner = await s.db.kysely
      .selectFrom('projects')
      .innerJoin('project_members', 'project_members.project_id', 'projects.id')
      .select('project_members.user_id')
      .where('projects.key', '=', projectRef.toUpperCase())
      .where('project_members.role', '=', 'owner')
      .executeTakeFirst();
    if (!owner) throw new Failure(`No project with the key ${projectRef.toUpperCase()}`);
    const ctx = requestCtx(s, null);
    ctx.actor = { userId: owner.user_id, isSystemAdmin: true, via: 'session', sessionId: null };
    const tty = process.stderr.isTTY;
    let lastDraw = 0;
    const { size } = await fsp.stat(file);
    const result = await importTickets(ctx, projectRef, {
      format: format as ImportFormat,
      file: path.resolve(file),
      fileSize: size,
      mapping,
      dryRun: !!flags['dry-run'],
      onProgress(p) {
        if (!tty) return;
        const now = Date.now();
        if (p.phase === 'reading' && now - lastDraw < 100) return;
        lastDraw = now;
        const width = Math.max(10, Math.min(40, (process.stderr.columns ?? 80) - 50));
        const ratio = p.totalBytes > 0 ? Math.min(1, p.bytes / p.totalBytes) : 1;
        const filled = Math.round(ratio * width);
        const label = p.phase === 'linking' ? 'Linking   ' : 'Importing ';
        process.stderr.write(
          `\r${label}[${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${String(Math.round(ratio * 100)).padStart(3)}% ${p.records} records, ${formatBytes(p.bytes)}/${formatBytes(p.totalBytes)}\u001b[K`,
        );
        if (p.phase === 'done') process.stderr.write('\r\u001b[K');
      },
    });
    const c = result.counts;
    process.stdout.write(
      `${result.dryRun ? 'Dry run, nothing written: would create' : 'Created'} ${c.tickets} tickets, ${c.comments} comments, ` +
        `${c.labels} labels, ${c.columns} columns and ${c.links} links; ${result.skipped} records were imported before.\n`,
    );
    if (result.problems.length) {
      process.stdout.write(`${result.problems.length} problems:\n`);
      for (const p of result.problems) process.stdout.write(`  row ${p.row}: ${p.message}\n`);
    }
  });
}

export async function main(argv: string[]): Promise<number> {
  let parsed: Parsed;
  try {
    parsed = parseArgs(argv);
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n\n${HELP}`);
    return 2;
  }
  const { args, flags } = parsed;
  const [command, ...rest] = args;
  if (flags.help || !command || command === 'help') {
    process.stdout.write(HELP);
    return command || flags.help ? 0 : 2;
  }
  try {
    switch (command) {
      case 'serve': {
        const { serve } = await import('../server/serve.js');
        await serve();
        return -1; // keeps running
      }
      case 'migrate':
        await cmdMigrate();
        return 0;
      case 'backup':
        if (rest.length > 1) throw new UsageError('backup takes at most one file');
        await cmdBackup(rest[0]);
        return 0;
      case 'restore':
        if (rest.length > 1) throw new UsageError('restore takes one file');
        await cmdRestore(rest[0], flags);
        return 0;
      case 'files': {
        const [sub, extra] = rest;
        if (sub !== 'migrate')
          throw new UsageError(`Unknown files command${sub ? `: ${sub}` : ''} (migrate)`);
        if (extra !== undefined) throw new UsageError('Too many arguments');
        await cmdFilesMigrate(flags.to);
        return 0;
      }
      case 'import':
        if (rest.length !== 2)
          throw new UsageError(
            'import needs a format and a file: docket import <format> <file> --project KEY',
          );
        await cmdImport(rest[0], rest[1], flags);
        return 0;
      case 'admin': {
        const [sub, username, extra] = rest;
        if (extra !== undefined) throw new UsageError('Too many arguments');
        if (sub === 'create') await cmdAdminCreate(username, flags);
        else if (sub === 'reset-password') await cmdAdminResetPassword(username, flags);
        else throw new UsageError(`Unknown admin command${sub ? `: ${sub}` : ''} (create or reset-password)`);
        return 0;
      }
      default:
        throw new UsageError(`Unknown command: ${command}`);
    }
  } catch (err) {
    if (err instanceof UsageError) {
      process.stderr.write(`${err.message}\nRun docket --help for usage.\n`);
      return 2;
    }
    if (err instanceof InvalidBackup) {
      const lines = err.details.slice(0, 20).map((d) => `  ${d.path || '(file)'}: ${d.message}`);
      process.stderr.write(`Invalid backup file; nothing was changed.\n${lines.join('\n')}\n`);
      return 1;
    }
    if (err instanceof Failure) {
      process.stderr.write(`${err.message}\n`);
      return 1;
    }
    if (err instanceof AppError) {
      process.stderr.write(`${err.message}\n`);
      return 1;
    }
    process.stderr.write(`Failed: ${err instanceof Error ? err.message : String(err)}\n`);
    return 1;
  }
}
