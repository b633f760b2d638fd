import { sql } from 'kysely';
import type { z } from 'zod';
import type { UsersTable } from '../db/types.js';
import { removeStoredFiles } from '../files/uploads.js';
import type {
  adminCreateUserBody,
  adminUpdateUserBody,
  adminUsersQuery,
  changeEmailBody,
  changePasswordBody,
  registerBody,
  usersQuery,
} from '../shared/accounts.js';
import { ERR } from '../shared/errors.js';
import { audit } from './audit.js';
import { createSession, endAllSessions, requirePassword } from './auth.js';
import { type Ctx, type Emit, type Services, type Tx, transact } from './context.js';
import { badRequest, isUniqueViolation, notFound } from './errors.js';
import { newId, nowIso } from './ids.js';
import { hashPassword } from './passwords.js';
import { presentAdminUser, presentMe, presentUserSummary } from './presenters/users.js';
import { removeProjects } from './project-removal.js';

async function getUserRow(tx: Tx, userId: string): Promise<UsersTable> {
  const user = await tx.selectFrom('users').selectAll().where('id', '=', userId).executeTakeFirst();
  if (!user) throw notFound(ERR.userNotFound);
  return user;
}

/** Refuses a username or e-mail that another account has, ignoring case. */
async function assertUnique(tx: Tx, fields: { username?: string; email?: string | null }, exceptId?: string) {
  if (fields.username) {
    let q = tx
      .selectFrom('users')
      .select('id')
      .where(sql`lower(username)`, '=', fields.username.toLowerCase());
    if (exceptId) q = q.where('id', '<>', exceptId);
    if (await q.executeTakeFirst()) throw badRequest(ERR.usernameTaken);
  }
  if (fields.email) {
    let q = tx.selectFrom('users').select('id').where(sql`lower(email)`, '=', fields.email.toLowerCase());
    if (exceptId) q = q.where('id', '<>', exceptId);
    if (await q.executeTakeFirst()) throw badRequest(ERR.emailTaken);
  }
}

/** Maps a unique violation that slipped past the check (a concurrent request) to the same texts. */
function uniqueToBadRequest(err: unknown): never {
  if (isUniqueViolation(err)) {
    const text =
      String((err as Error).message ?? '') + String((err as { constraint?: string }).constraint ?? '');
    throw badRequest(text.includes('email') ? ERR.emailTaken : ERR.usernameTaken);
  }
  throw err;
}

/** Serialises account creation on PostgreSQL, so that "the first account" is decided once. */
async function lockAccounts(s: Services, tx: Tx) {
  if (s.db.dialect === 'postgres') await sql`select pg_advisory_xact_lock(727070003)`.execute(tx);
}

interface NewUser {
  username: string;
  password: string;
  email?: string | null;
  name?: string | null;
  isSystemAdmin: boolean;
  mustChangePassword?: boolean;
}

async function insertUser(tx: Tx, u: NewUser): Promise<UsersTable> {
  const now = nowIso();
  const row: UsersTable = {
    id: newId(),
    username: u.username,
    email: u.email ?? null,
    name: u.name ?? null,
    password_hash: await hashPassword(u.password),
    avatar: null,
    is_system_admin: u.isSystemAdmin ? 1 : 0,
    is_active: 1,
    must_change_password: u.mustChangePassword ? 1 : 0,
    two_factor_enabled: 0,
    two_factor_secret: null,
    two_factor_last_step: null,
    two_factor_recovery: null,
    created_at: now,
    updated_at: now,
  };
  await tx.insertInto('users').values(row).execute();
  return row;
}

/** Creates a user outside registration (bootstrap admin, CLI, wipe); refuses taken names. */
export async function createUserDirect(
  s: Services,
  u: NewUser,
  also?: (tx: Tx, row: UsersTable) => Promise<void>,
): Promise<UsersTable> {
  return s.db.kysely
    .transaction()
    .execute(async (tx) => {
      await lockAccounts(s, tx);
      await assertUnique(tx, { username: u.username, email: u.email });
      const row = await insertUser(tx, u);
      await also?.(tx, row);
      return row;
    })
    .catch(uniqueToBadRequest);
}

/**
 * Registration. The first account of an empty instance becomes a system administrator, unless an
 * administrator is configured through DOCKET_ADMIN_USERNAME.
 */
export async function register(s: Services, input: z.infer<typeof registerBody>) {
  const user = await s.db.kysely
    .transaction()
    .execute(async (tx) => {
      await lockAccounts(s, tx);
      await assertUnique(tx, { username: input.username, email: input.email });
      const any = await tx.selectFrom('users').select('id').limit(1).executeTakeFirst();
      return insertUser(tx, { ...input, isSystemAdmin: !any && !s.config.adminUsername });
    })
    .catch(uniqueToBadRequest);
  return {
    id: user.id,
    username: user.username,
    email: user.email,
    name: user.name,
    isSystemAdmin: user.is_system_admin === 1,
  };
}

/** Creates the configured administrator at start when no user has that username. */
export async function ensureBootstrapAdmin(s: Services): Promise<void> {
  const { adminUsername, adminPassword } = s.config;
  if (!adminUsername || !adminPassword) return;
  const exists = await s.db.kysely
    .selectFrom('users')
    .select('id')
    .where(sql`lower(username)`, '=', adminUsername.toLowerCase())
    .executeTakeFirst();
  if (exists) return;
  await createUserDirect(s, { username: adminUsername, password: adminPassword, isSystemAdmin: true }).catch(
    (err) => {
      if (!(err instanceof Error && err.message === ERR.usernameTaken)) throw err;
    },
  );
  s.log.info({ username: adminUsername }, 'created the configured system administrator');
}

const userUpdated = (u: UsersTable) =>
  ({ scope: 'user', type: 'user.updated', userId: u.id, data: presentUserSummary(u) }) as const;

export async function getMe(ctx: Ctx, userId: string) {
  return presentMe(await getUserRow(ctx.db.kysely, userId));
}

export async function updateMe(ctx: Ctx, userId: string, name: string | null) {
  return transact(ctx, async (tx, emit) => {
    await getUserRow(tx, userId);
    await tx
      .updateTable('users')
      .set({ name: name || null, updated_at: nowIso() })
      .where('id', '=', userId)
      .execute();
    const user = await getUserRow(tx, userId);
    emit(userUpdated(user));
    return presentMe(user);
  });
}

export async function changeEmail(ctx: Ctx, userId: string, input: z.infer<typeof changeEmailBody>) {
  await requirePassword(ctx, userId, input.password, ERR.invalidPassword);
  return transact(ctx, async (tx, emit) => {
    await assertUnique(tx, { email: input.email }, userId);
    await tx
      .updateTable('users')
      .set({ email: input.email, updated_at: nowIso() })
      .where('id', '=', userId)
      .execute();
    await audit(tx, ctx, { action: 'account.email_changed', target: { type: 'user', id: userId } });
    const user = await getUserRow(tx, userId);
    emit(userUpdated(user));
    return presentMe(user);
  }).catch(uniqueToBadRequest);
}

/** Changes the password, ends every session of the user and returns a fresh one for this client. */
export async function changePassword(ctx: Ctx, userId: string, input: z.infer<typeof changePasswordBody>) {
  await requirePassword(ctx, userId, input.currentPassword, ERR.invalidPassword);
  const hash = await hashPassword(input.newPassword);
  const session = await ctx.db.kysely.transaction().execute(async (tx) => {
    await tx
      .updateTable('users')
      .set({ password_hash: hash, must_change_password: 0, updated_at: nowIso() })
      .where('id', '=', userId)
      .execute();
    await endAllSessions(tx, userId);
    await audit(tx, ctx, { action: 'account.password_changed', target: { type: 'user', id: userId } });
    return createSession(ctx, tx, userId);
  });
  return { session, userId };
}

/**
 * Deletes a user and applies the data rules: memberships, watches, sessions and key go; assigned
 * tickets become unassigned; written tickets and comments stay (shown as by a deleted user); owned
 * projects pass to the first admin, else the first member; a project with no other member is deleted.
 * Returns the files to remove after the commit.
 */
async function deleteUserData(tx: Tx, emit: Emit, user: UsersTable): Promise<{ attachments: string[] }> {
  const memberships = await tx
    .selectFrom('project_members')
    .select(['id', 'project_id', 'role'])
    .where('user_id', '=', user.id)
    .execute();
  const orphaned: string[] = [];
  for (const m of memberships) {
    if (m.role === 'owner') {
      const heir = await tx
        .selectFrom('project_members')
        .innerJoin('users', 'users.id', 'project_members.user_id')
        .select(['project_members.id', 'project_members.user_id'])
        .where('project_members.project_id', '=', m.project_id)
        .where('project_members.user_id', '<>', user.id)
        .orderBy(sql`case when project_members.role = 'admin' then 0 else 1 end`)
        .orderBy('project_members.created_at')
        .orderBy('users.username')
        .executeTakeFirst();
      if (!heir) {
        orphaned.push(m.project_id);
        continue;
      }
      await tx.deleteFrom('project_members').where('id', '=', m.id).execute();
      await tx.updateTable('project_members').set({ role: 'owner' }).where('id', '=', heir.id).execute();
      emit({
        scope: 'project',
        type: 'member.updated',
        projectId: m.project_id,
        data: { id: heir.id, userId: heir.user_id, projectId: m.project_id, role: 'owner' },
      });
    }
    if (!orphaned.includes(m.project_id)) {
      emit({
        scope: 'project',
        type: 'member.removed',
        projectId: m.project_id,
        data: { id: m.id, userId: user.id, projectId: m.project_id },
      });
    }
  }
  const unassigned = await tx
    .selectFrom('tickets')
    .select(['id', 'project_id'])
    .where('assignee_id', '=', user.id)
    .where('project_id', 'not in', orphaned.length ? orphaned : [''])
    .execute();
  const attachments = await removeProjects(tx, orphaned);
  for (const projectId of orphaned) {
    emit({
      scope: 'projects',
      type: 'project.deleted',
      projectId,
      audience: [user.id],
      data: { id: projectId },
    });
  }
  await tx.deleteFrom('users').where('id', '=', user.id).execute();
  for (const t of unassigned) {
    emit({
      scope: 'project',
      type: 'ticket.updated',
      projectId: t.project_id,
      data: { id: t.id, assigneeId: null, assignee: null },
    });
  }
  return { attachments };
}

async function assertNotLastAdmin(tx: Tx, user: UsersTable) {
  if (user.is_system_admin !== 1) return;
  const row = await tx
    .selectFrom('users')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('is_system_admin', '=', 1)
    .executeTakeFirstOrThrow();
  if (Number(row.n) <= 1) throw badRequest(ERR.lastAdmin);
}

async function deleteUserAndFiles(
  ctx: Ctx,
  userId: string,
  action: 'account.deleted' | 'admin.user_deleted',
) {
  const { user, files } = await transact(ctx, async (tx, emit) => {
    const user = await getUserRow(tx, userId);
    await assertNotLastAdmin(tx, user);
    // Written before the user row goes, so the entry names them.
    await audit(tx, ctx, {
      action,
      target: { type: 'user', id: userId },
      details: { username: user.username },
    });
    const files = await deleteUserData(tx, emit, user);
    return { user, files };
  });
  if (user.avatar) await removeStoredFiles(ctx, 'avatars', [user.avatar]);
  await removeStoredFiles(ctx, 'attachments', files.attachments);
}

export async function deleteOwnAccount(ctx: Ctx, userId: string, password: string) {
  await requirePassword(ctx, userId, password, ERR.invalidPassword);
  await deleteUserAndFiles(ctx, userId, 'account.deleted');
  return { success: true as const };
}

/** GET /api/users: active users for member and assignee pickers. */
export async function listActiveUsers(ctx: Ctx, q: z.infer<typeof usersQuery>) {
  let query = ctx.db.kysely.selectFrom('users').where('is_active', '=', 1);
  if (q.search) {
    const like = `%${q.search.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    query = query.where((eb) =>
      eb.or([
        eb(sql`lower(username)`, 'like', sql`${like} escape '\\'`),
        eb(sql`lower(coalesce(name, ''))`, 'like', sql`${like} escape '\\'`),
      ]),
    );
  }
  const total = await query.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  const rows = await query
    .select(['id', 'username', 'name', 'avatar'])
    .orderBy(sql`lower(username)`)
    .limit(q.limit ?? 50)
    .offset(q.offset ?? 0)
    .execute();
  return { items: rows.map(presentUserSummary), total: Number(total.n) };
}

// --- Administration ---------------------------------------------------------------------------

const likePattern = (s: string) => `%${s.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

export async function adminListUsers(ctx: Ctx, q: z.infer<typeof adminUsersQuery>) {
  let query = ctx.db.kysely.selectFrom('users');
  if (q.search) {
    const like = likePattern(q.search);
    query = query.where((eb) =>
      eb.or([
        eb(sql`lower(username)`, 'like', sql`${like} escape '\\'`),
        eb(sql`lower(coalesce(name, ''))`, 'like', sql`${like} escape '\\'`),
        eb(sql`lower(coalesce(email, ''))`, 'like', sql`${like} escape '\\'`),
      ]),
    );
  }
  if (q.status) query = query.where('is_active', '=', q.status === 'active' ? 1 : 0);
  if (q.role) query = query.where('is_system_admin', '=', q.role === 'admin' ? 1 : 0);
  const total = await query.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  const sortColumn = {
    username: sql`lower(username)`,
    name: sql`lower(coalesce(name, ''))`,
    email: sql`lower(coalesce(email, ''))`,
    createdAt: sql`created_at`,
  }[q.sortBy ?? 'createdAt'];
  const dir = q.sortOrder ?? (q.sortBy && q.sortBy !== 'createdAt' ? 'asc' : 'desc');
  let rows = query.selectAll().orderBy(sortColumn, dir).orderBy('id', dir);
  if (q.limit !== undefined) rows = rows.limit(q.limit);
  if (q.offset) rows = rows.offset(q.offset).limit(q.limit ?? 1_000_000);
  return { items: (await rows.execute()).map(presentAdminUser), total: Number(total.n) };
}

export async function adminGetUser(ctx: Ctx, userId: string) {
  return presentAdminUser(await getUserRow(ctx.db.kysely, userId));
}

export async function adminCreateUser(ctx: Ctx, adminId: string, input: z.infer<typeof adminCreateUserBody>) {
  await requirePassword(ctx, adminId, input.confirmPassword, ERR.invalidPasswordConfirmation);
  const user = await createUserDirect(
    ctx,
    {
      username: input.username,
      password: input.password,
      email: input.email,
      name: input.name,
      isSystemAdmin: input.isSystemAdmin ?? false,
    },
    (tx, row) =>
      audit(tx, ctx, {
        action: 'admin.user_created',
        target: { type: 'user', id: row.id },
        details: { username: row.username, isSystemAdmin: row.is_system_admin === 1 },
      }),
  );
  ctx.log.info({ admin: adminId, user: user.id, username: user.username }, 'admin created a user');
  return presentAdminUser(user);
}

export async function adminUpdateUser(
  ctx: Ctx,
  adminId: string,
  userId: string,
  input: z.infer<typeof adminUpdateUserBody>,
) {
  return transact(ctx, async (tx, emit) => {
    const user = await getUserRow(tx, userId);
    if (userId === adminId && input.isActive === false) throw badRequest(ERR.cannotDisableSelf);
    if (userId === adminId && input.isSystemAdmin === false && user.is_system_admin === 1) {
      const admins = await tx
        .selectFrom('users')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('is_system_admin', '=', 1)
        .where('is_active', '=', 1)
        .executeTakeFirstOrThrow();
      if (Number(admins.n) <= 1) throw badRequest(ERR.cannotDemoteSelf);
    }
    if (input.email) await assertUnique(tx, { email: input.email }, userId);
    const patch: Partial<UsersTable> = { updated_at: nowIso() };
    if (input.name !== undefined) patch.name = input.name || null;
    if (input.email !== undefined) patch.email = input.email || null;
    if (input.isSystemAdmin !== undefined) patch.is_system_admin = input.isSystemAdmin ? 1 : 0;
    if (input.isActive !== undefined) patch.is_active = input.isActive ? 1 : 0;
    await tx.updateTable('users').set(patch).where('id', '=', userId).execute();
    if (input.isActive === false) await endAllSessions(tx, userId);
    await audit(tx, ctx, {
      action: 'admin.user_updated',
      target: { type: 'user', id: userId },
      details: { username: user.username, ...input },
    });
    const updated = await getUserRow(tx, userId);
    if (input.name !== undefined) emit(userUpdated(updated));
    ctx.log.info({ admin: adminId, user: userId, changes: Object.keys(input) }, 'admin updated a user');
    return presentAdminUser(updated);
  }).catch(uniqueToBadRequest);
}

export async function adminDeleteUser(ctx: Ctx, adminId: string, userId: string, confirmPassword: string) {
  await requirePassword(ctx, adminId, confirmPassword, ERR.invalidPasswordConfirmation);
  if (userId === adminId) throw badRequest(ERR.cannotDeleteSelf);
  await deleteUserAndFiles(ctx, userId, 'admin.user_deleted');
  ctx.log.info({ admin: adminId, user: userId }, 'admin deleted a user');
  return { success: true as const };
}
