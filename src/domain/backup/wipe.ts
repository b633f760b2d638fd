import { removeStoredFiles } from '../../files/uploads.js';
import { type Services, transact } from '../context.js';
import { newId, nowIso } from '../ids.js';
import { hashPassword } from '../passwords.js';
import { ensureSettings } from '../settings.js';
import { temporaryPassword } from '../temporary-password.js';
import { deleteEverything, exclusively } from './restore.js';

export const WIPE_ADMIN_USERNAME = 'admin';

/**
 * Deletes all data and files and creates the administrator `admin` with a temporary password that
 * must be changed at the first sign-in. Every session ends; `database.wiped` is emitted.
 */
export async function wipeEverything(s: Services & { tabId?: string | null }) {
  return exclusively(async () => {
    const password = temporaryPassword();
    const hash = await hashPassword(password);
    const endedSessionsOf = await transact(s, async (tx, emit) => {
      const sessions = await tx.selectFrom('sessions').select('user_id').distinct().execute();
      await deleteEverything(tx, s.db.dialect);
      await ensureSettings(tx);
      const now = nowIso();
      await tx
        .insertInto('users')
        .values({
          id: newId(),
          username: WIPE_ADMIN_USERNAME,
          email: null,
          name: null,
          password_hash: hash,
          avatar: null,
          is_system_admin: 1,
          is_active: 1,
          must_change_password: 1,
          two_factor_enabled: 0,
          created_at: now,
          updated_at: now,
        })
        .execute();
      emit({ scope: 'all', type: 'database.wiped', data: {} });
      return sessions.map((r) => r.user_id);
    });
    // After the commit: a crash here leaves only unreferenced files behind.
    await s.files.clear();
    return { credentials: { username: WIPE_ADMIN_USERNAME, temporaryPassword: password }, endedSessionsOf };
  });
}

/**
 * Deletes every project with its columns, members, labels, sprints, tickets and their comments,
 * links, history and attachment files. Users, passwords, sessions, settings and files uploaded
 * outside tickets (avatars, POST /api/upload) stay. Emits `database.projects.wiped`.
 */
export async function wipeAllProjects(s: Services & { tabId?: string | null }) {
  return exclusively(async () => {
    const { counts, files } = await transact(s, async (tx, emit) => {
      const count = async (table: 'projects' | 'tickets' | 'sprints') =>
        Number(
          (
            await tx
              .selectFrom(table)
              .select((eb) => eb.fn.countAll<number>().as('n'))
              .executeTakeFirstOrThrow()
          ).n,
        );
      const counts = {
        projects: await count('projects'),
        tickets: await count('tickets'),
        sprints: await count('sprints'),
      };
      const files = [
        ...(await tx.selectFrom('attachments').select('stored_name').execute()),
        // The trash's files (decision 048); its rows go with their projects.
        ...(await tx.selectFrom('trashed_files').select('stored_name').execute()),
      ].map((r) => r.stored_name);
      // Tickets first: they refer to columns and sprints of the same project.
      await tx.deleteFrom('tickets').execute();
      await tx.deleteFrom('projects').execute();
      emit({ scope: 'all', type: 'database.projects.wiped', data: {} });
      return { counts, files };
    });
    await removeStoredFiles(s, 'attachments', files);
    return counts;
  });
}
