import { sql } from 'kysely';
import type { z } from 'zod';
import { ERR } from '../shared/errors.js';
import { type addMemberBody, PROJECT_ERR, type ProjectRole } from '../shared/projects.js';
import { type ProjectAccess, projectAccess } from './access.js';
import { audit } from './audit.js';
import { lockBoard } from './board-ranks.js';
import { type Ctx, type Emit, type Tx, transact } from './context.js';
import { badRequest, conflict, forbidden, invalidField, isUniqueViolation, notFound } from './errors.js';
import { newId, nowIso } from './ids.js';
import { forgetProjectNotifications, notifyMemberAdded } from './notifications/index.js';
import { type MemberRow, presentMember } from './presenters/projects.js';
import { presentTicketsFull } from './presenters/tickets.js';
import { transactWrite } from './races.js';

/**
 * Members: the owner first, then admins, then members, each by username. Rules (DECISIONS 5):
 * admins and the owner manage members; the owner alone touches the owner or grants ownership,
 * which turns the previous owner into an admin; anyone but the owner may leave.
 */
const ROLE_RANK = sql<number>`case role when 'owner' then 0 when 'admin' then 1 else 2 end`;

function membersQuery(tx: Tx, projectId: string) {
  return tx
    .selectFrom('project_members as m')
    .innerJoin('users as u', 'u.id', 'm.user_id')
    .selectAll('m')
    .select(['u.username', 'u.name', 'u.avatar'])
    .where('m.project_id', '=', projectId);
}

export async function listMembers(ctx: Ctx, ref: string, page: { limit?: number; offset?: number }) {
  const db = ctx.db.kysely;
  const { project } = await projectAccess(ctx, db, ref);
  const all = await membersQuery(db, project.id).orderBy(ROLE_RANK).orderBy(sql`lower(u.username)`).execute();
  const offset = page.offset ?? 0;
  const items = all.slice(offset, page.limit === undefined ? undefined : offset + page.limit);
  return { items: items.map(presentMember), total: all.length };
}

/** A membership by its id, or by the member's user id. */
async function memberInProject(tx: Tx, projectId: string, ref: string): Promise<MemberRow> {
  const id = ref.toLowerCase();
  const row = await membersQuery(tx, projectId)
    .where((eb) => eb.or([eb('m.id', '=', id), eb('m.user_id', '=', id)]))
    .executeTakeFirst();
  if (!row) throw notFound(ERR.memberNotFound);
  return row;
}

/**
 * The caller's access, read again after taking the project row's lock (PostgreSQL; SQLite has one
 * writer): membership changes of a project run one at a time, so a transfer, a role change and a
 * removal racing each other never see stale roles, and the project always keeps exactly one owner.
 */
async function lockedAccess(ctx: Ctx, tx: Tx, ref: string, need: 'member' | 'admin') {
  const first = await projectAccess(ctx, tx, ref, need);
  await lockBoard(ctx, tx, first.project.id);
  return projectAccess(ctx, tx, first.project.id, need);
}

/** Makes `target` the owner; the previous owner becomes an admin. Owner (or system admin) only. */
async function transferOwnership(tx: Tx, access: ProjectAccess, target: MemberRow, emit: Emit) {
  if (access.role !== 'owner') throw forbidden(PROJECT_ERR.onlyOwnerTouchesOwner);
  const previous = await tx
    .selectFrom('project_members')
    .selectAll()
    .where('project_id', '=', target.project_id)
    .where('role', '=', 'owner')
    .executeTakeFirst();
  if (previous && previous.id !== target.id) {
    await tx.updateTable('project_members').set({ role: 'admin' }).where('id', '=', previous.id).execute();
    const prev = await memberInProject(tx, target.project_id, previous.id);
    emit({
      scope: 'project',
      type: 'member.updated',
      projectId: target.project_id,
      data: presentMember(prev),
    });
  }
  const promoted = await tx
    .updateTable('project_members')
    .set({ role: 'owner' })
    .where('id', '=', target.id)
    .executeTakeFirst();
  // Removed by a concurrent request: roll back rather than leave the project without an owner.
  if (Number(promoted.numUpdatedRows) !== 1) throw notFound(ERR.memberNotFound);
}

export async function addMember(ctx: Ctx, ref: string, body: z.infer<typeof addMemberBody>) {
  try {
    return await transactWrite(ctx, async (tx, emit) => {
      const access = await lockedAccess(ctx, tx, ref, 'admin');
      const { project } = access;
      let q = tx.selectFrom('users').select(['id', 'is_active']);
      q = body.userId
        ? q.where('id', '=', body.userId.toLowerCase())
        : q.where(sql`lower(username)`, '=', (body.username ?? '').toLowerCase());
      const user = await q.executeTakeFirst();
      const field = body.userId ? 'userId' : 'username';
      if (user?.is_active !== 1) throw invalidField(field, ERR.userNotFound);
      const existing = await tx
        .selectFrom('project_members')
        .select('id')
        .where('project_id', '=', project.id)
        .where('user_id', '=', user.id)
        .executeTakeFirst();
      if (existing) throw conflict(PROJECT_ERR.alreadyMember);
      const role: ProjectRole = body.role ?? 'member';
      if (role === 'owner' && access.role !== 'owner') throw forbidden(PROJECT_ERR.onlyOwnerTouchesOwner);
      const id = newId();
      await tx
        .insertInto('project_members')
        .values({
          id,
          project_id: project.id,
          user_id: user.id,
          role: role === 'owner' ? 'member' : role,
          created_at: nowIso(),
        })
        .execute();
      if (role === 'owner')
        await transferOwnership(tx, access, await memberInProject(tx, project.id, id), emit);
      await notifyMemberAdded(ctx, tx, emit, project, user.id);
      const out = presentMember(await memberInProject(tx, project.id, id));
      emit({ scope: 'project', type: 'member.added', projectId: project.id, data: out });
      await audit(tx, ctx, {
        action: 'member.added',
        target: { type: 'project', id: project.id },
        details: { project: project.key, userId: user.id, role },
      });
      return out;
    });
  } catch (err) {
    if (isUniqueViolation(err)) throw conflict(PROJECT_ERR.alreadyMember);
    throw err;
  }
}

export async function changeMemberRole(ctx: Ctx, ref: string, memberRef: string, role: ProjectRole) {
  return transact(ctx, async (tx, emit) => {
    const access = await lockedAccess(ctx, tx, ref, 'admin');
    const target = await memberInProject(tx, access.project.id, memberRef);
    if (target.role === role) return presentMember(target);
    if (target.role === 'owner') {
      if (access.role !== 'owner') throw forbidden(PROJECT_ERR.onlyOwnerTouchesOwner);
      throw badRequest(PROJECT_ERR.ownerNeeded);
    }
    if (role === 'owner') {
      await transferOwnership(tx, access, target, emit);
    } else {
      await tx.updateTable('project_members').set({ role }).where('id', '=', target.id).execute();
    }
    const out = presentMember(await memberInProject(tx, access.project.id, target.id));
    emit({ scope: 'project', type: 'member.updated', projectId: access.project.id, data: out });
    await audit(tx, ctx, {
      action: 'member.role_changed',
      target: { type: 'project', id: access.project.id },
      details: { project: access.project.key, userId: target.user_id, from: target.role, to: role },
    });
    return out;
  });
}

/**
 * Removes a member (admin or owner), or lets a member leave. The owner cannot leave (400) and only
 * the owner could touch the owner. The removed user's tickets in the project become unassigned and
 * their watches there end.
 */
export async function removeMember(ctx: Ctx, ref: string, memberRef: string) {
  return transact(ctx, async (tx, emit) => {
    const access = await lockedAccess(ctx, tx, ref, 'member');
    const { project } = access;
    const target = await memberInProject(tx, project.id, memberRef);
    const self = target.user_id === access.actor.userId;
    if (target.role === 'owner') {
      if (self) throw badRequest(ERR.transferOwnership);
      if (access.role !== 'owner') throw forbidden(PROJECT_ERR.onlyOwnerTouchesOwner);
      throw badRequest(ERR.transferOwnership);
    }
    if (!self && access.role === 'member') throw forbidden();
    const now = nowIso();
    const assigned = await tx
      .selectFrom('tickets')
      .select('id')
      .where('project_id', '=', project.id)
      .where('assignee_id', '=', target.user_id)
      .execute();
    if (assigned.length > 0) {
      const name = target.name ?? target.username;
      await tx
        .updateTable('tickets')
        .set({ assignee_id: null, updated_at: now })
        .where('project_id', '=', project.id)
        .where('assignee_id', '=', target.user_id)
        .execute();
      await tx
        .insertInto('ticket_history')
        .values(
          assigned.map((t) => ({
            id: newId(),
            ticket_id: t.id,
            field: 'assignee',
            old_value: name,
            new_value: null,
            changed_by: access.actor.userId,
            changed_at: now,
          })),
        )
        .execute();
    }
    await tx
      .deleteFrom('ticket_watchers')
      .where('user_id', '=', target.user_id)
      .where('ticket_id', 'in', tx.selectFrom('tickets').select('id').where('project_id', '=', project.id))
      .execute();
    await tx.deleteFrom('project_members').where('id', '=', target.id).execute();
    await forgetProjectNotifications(tx, project.id, target.user_id);
    const views = await presentTicketsFull(
      tx,
      project.key,
      assigned.map((t) => t.id),
    );
    for (const v of views) emit({ scope: 'project', type: 'ticket.updated', projectId: project.id, data: v });
    emit({ scope: 'project', type: 'member.removed', projectId: project.id, data: presentMember(target) });
    await audit(tx, ctx, {
      action: 'member.removed',
      target: { type: 'project', id: project.id },
      details: { project: project.key, userId: target.user_id, role: target.role },
    });
    return { success: true as const };
  });
}
