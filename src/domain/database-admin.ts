import { ERR } from '../shared/errors.js';
import { type AuditAction, audit } from './audit.js';
import { requirePassword } from './auth.js';
import { backupStream } from './backup/export.js';
import { restoreBackup } from './backup/restore.js';
import { wipeAllProjects, wipeEverything } from './backup/wipe.js';
import { actorOf, type Ctx } from './context.js';

/**
 * The administrator's database operations (SPEC "Admin", database operations). Each one checks the
 * acting administrator's password and writes an audit line (who, what; the logger adds when).
 */
export type ConfirmedAdmin = { admin: string; adminUsername: string };

export async function confirm(ctx: Ctx, password: string, purpose: string): Promise<ConfirmedAdmin> {
  const actor = actorOf(ctx);
  const admin = await requirePassword(ctx, actor.userId, password, ERR.invalidPasswordConfirmation, purpose);
  return { admin: admin.id, adminUsername: admin.username };
}

/** The administrator's database operations are recorded when they complete (a wipe removes the administrator). */
function auditDatabase(
  ctx: Ctx,
  who: ConfirmedAdmin,
  action: AuditAction,
  details?: Record<string, unknown>,
) {
  return audit(ctx.db.kysely, ctx, { action, actor: { id: who.admin, name: who.adminUsername }, details });
}

export async function exportDatabase(ctx: Ctx, confirmPassword: string) {
  const who = await confirm(ctx, confirmPassword, 'database export');
  await auditDatabase(ctx, who, 'admin.database_exported');
  ctx.log.info({ ...who, action: 'database.export' }, 'administrator exported the database');
  // The first piece opens the snapshot: a failure there is still an ordinary error response, not a
  // download that breaks off.
  const stream = backupStream(ctx);
  const first = await stream.next();
  return (async function* () {
    if (!first.done) yield first.value;
    yield* stream;
  })();
}

/** Restores a backup file; `who` is the administrator whose password was confirmed before the upload was read. */
export async function importDatabase(ctx: Ctx, file: string, who: ConfirmedAdmin) {
  ctx.log.info({ ...who, action: 'database.import.start' }, 'administrator started an import');
  try {
    const result = await restoreBackup(ctx, file);
    await auditDatabase(ctx, who, 'admin.database_imported', { imported: result.imported });
    ctx.log.info(
      { ...who, action: 'database.import', imported: result.imported, files: result.files },
      'administrator imported a backup',
    );
    return result;
  } catch (err) {
    ctx.log.warn(
      { ...who, action: 'database.import.failed', error: (err as Error).message },
      'import failed; nothing changed',
    );
    throw err;
  }
}

export async function wipeDatabase(ctx: Ctx, confirmPassword: string) {
  const who = await confirm(ctx, confirmPassword, 'database wipe');
  const result = await wipeEverything(ctx);
  await auditDatabase(ctx, who, 'admin.database_wiped');
  ctx.log.info({ ...who, action: 'database.wipe' }, 'administrator wiped all data');
  return result;
}

export async function wipeProjects(ctx: Ctx, confirmPassword: string) {
  const who = await confirm(ctx, confirmPassword, 'projects wipe');
  const wiped = await wipeAllProjects(ctx);
  await auditDatabase(ctx, who, 'admin.projects_wiped', { wiped });
  ctx.log.info({ ...who, action: 'database.wipe-projects', wiped }, 'administrator wiped all projects');
  return wiped;
}
