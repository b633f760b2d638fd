import { sql } from 'kysely';
import { nameProjects } from '../db/changes.js';
import { jsonRows, parseJsonRows } from '../db/json.js';
import type { ColumnsTable, ProjectsTable, TicketsTable } from '../db/types.js';
import { ERR } from '../shared/errors.js';
import { mayDeleteTicket } from '../shared/rules.js';
import { parseTicketKey } from '../shared/tickets.js';
import type { Actor, Ctx, Services, Tx } from './context.js';
import { actorOf } from './context.js';
import { AppError, forbidden, notFound } from './errors.js';
import { arg, runPrepared } from './prepared.js';
import { readCache } from './read-cache.js';
import { knowHooks } from './webhooks/queue.js';

/**
 * Named policies, checked before data access. A project the caller is not a member of reads as
 * missing (404), so its existence is never revealed; a member without the needed role gets 403.
 * System administrators act as the owner of every project.
 */
export type Role = 'owner' | 'admin' | 'member';
const RANK: Record<Role, number> = { member: 1, admin: 2, owner: 3 };

export const roleAtLeast = (role: Role, need: Role) => RANK[role] >= RANK[need];

export interface ProjectAccess {
  project: ProjectsTable;
  /** The caller's effective role (system administrators: owner). */
  role: Role;
  /** The caller's membership role, or null for a system administrator who is not a member. */
  memberRole: Role | null;
  actor: Actor;
}

/** Finds a project by id or key (any letter case). */
export async function findProject(db: Tx, ref: string): Promise<ProjectsTable | undefined> {
  return db
    .selectFrom('projects')
    .selectAll()
    .where((eb) => eb.or([eb('id', '=', ref.toLowerCase()), eb('key', '=', ref.toUpperCase())]))
    .executeTakeFirst();
}

/** The project named by `ref` if the caller may act on it with at least role `need`. */
export async function projectAccess(
  ctx: Ctx,
  db: Tx,
  ref: string,
  need: Role = 'member',
): Promise<ProjectAccess> {
  const actor = actorOf(ctx);
  // One query, compiled once (it runs on nearly every request): the project and the caller's
  // membership in it.
  const accessQuery = (q: Tx) =>
    q
      .selectFrom('projects')
      .leftJoin('project_members', (join) =>
        join
          .onRef('project_members.project_id', '=', 'projects.id')
          .on('project_members.user_id', '=', arg(0)),
      )
      .selectAll('projects')
      .select('project_members.role as member_role')
      .where((eb) => eb.or([eb('projects.id', '=', arg(1)), eb('projects.key', '=', arg(2))]));
  const args = [actor.userId, ref.toLowerCase(), ref.toUpperCase()];
  const lookup = async () => {
    const [found] = await runPrepared(db, 'project-access', accessQuery, args);
    if (!found) return null;
    const { member_role, ...project } = found;
    return { project, memberRole: (member_role as Role | null) ?? null };
  };
  // In a write transaction the same statement also reads the project's active webhooks, which the
  // transaction's events may need at its end (src/domain/webhooks/queue.ts `hooksFor`).
  const lookupForWrite = async () => {
    const [found] = await runPrepared(
      db,
      'project-access-write',
      (q) =>
        accessQuery(q).select(
          jsonRows(
            q,
            [sql`w.id`, sql`w.events`],
            sql`from webhooks w where w.project_id = projects.id and w.active = 1`,
            sql`w.id`,
          ).as('hooks_json'),
        ),
      args,
    );
    if (!found) return null;
    const { member_role, hooks_json, ...project } = found;
    knowHooks(db, project, parseJsonRows<[string, string]>(hooks_json));
    return { project, memberRole: (member_role as Role | null) ?? null };
  };
  // Outside transactions the answer is kept while the database is unchanged (a transaction may see
  // its own uncommitted rows).
  const found =
    db === ctx.db.kysely
      ? await readCache(ctx.db).get(ctx, `access:${actor.userId}:${ref}`, lookup, (v) =>
          // Who may read the project (its row, its members), the user's powers; a project not
          // found yet may be created.
          v ? [`access:${v.project.id}`, 'users'] : ['projects', 'users'],
        )
      : await lookupForWrite();
  if (!found) throw notFound(ERR.projectNotFound);
  const { project, memberRole } = found;
  // In a write transaction: its writes to this project's tables change this project's cached
  // reads only (src/db/changes.ts), not the whole cache.
  if (db !== ctx.db.kysely) await nameProjects(db, [project.id]);
  const role: Role | null = actor.isSystemAdmin ? 'owner' : memberRole;
  if (!role) throw notFound(ERR.projectNotFound);
  if (!roleAtLeast(role, need)) throw forbidden();
  return { project, role, memberRole, actor };
}

/**
 * The caller's access to a project, read outside any transaction: for a front door that checks it
 * before work of its own (an event stream opening, a file being received).
 */
export const requireProjectAccess = (ctx: Ctx, ref: string, need: Role = 'member'): Promise<ProjectAccess> =>
  projectAccess(ctx, ctx.db.kysely, ref, need);

export { parseTicketKey };

/** A ticket of the project by id or key; 404 `Ticket not found` otherwise. */
export async function ticketInProject(
  db: Tx,
  project: ProjectsTable,
  ref: string,
  /** Given for a write: on PostgreSQL the row stays locked until the transaction ends. */
  lockFor?: Pick<Services, 'db'>,
): Promise<TicketsTable> {
  const parsed = parseTicketKey(ref);
  let q = db.selectFrom('tickets').selectAll().where('project_id', '=', project.id);
  // `for update`: a move rewrites the rank, a unique key, which needs the strongest row lock anyway.
  if (lockFor?.db.dialect === 'postgres') q = q.forUpdate();
  if (parsed) {
    if (parsed.projectKey !== project.key) throw notFound(ERR.ticketNotFound);
    q = q.where('number', '=', parsed.number);
  } else {
    q = q.where('id', '=', ref.toLowerCase());
  }
  const ticket = await q.executeTakeFirst();
  if (!ticket) throw notFound(ERR.ticketNotFound);
  return ticket;
}

/**
 * PostgreSQL, a single ticket's move: ticketInProject's row lock and the target column's lock
 * (lockColumn: `columnId`, or the ticket's own column for a move within it) taken by one statement,
 * which also reads the column's row: two round trips fewer than the ticket, the column and its lock
 * one by one. The ticket is locked first, as ticketInProject then lockColumn did. Null when the
 * ticket or the named column is not one of the project's: the caller then takes the usual path,
 * which answers 404 or 400.
 */
export async function ticketAndColumnLocked(
  db: Tx,
  project: ProjectsTable,
  ref: string,
  columnId: string | undefined,
): Promise<{ ticket: TicketsTable; column: ColumnsTable } | null> {
  const parsed = parseTicketKey(ref);
  if (parsed && parsed.projectKey !== project.key) return null;
  let q = db
    .selectFrom('tickets as t')
    .innerJoin('columns as c', (j) =>
      j
        .on('c.project_id', '=', project.id)
        .on('c.id', '=', columnId === undefined ? sql.ref<string>('t.column_id') : columnId.toLowerCase()),
    )
    .selectAll('t')
    .select(sql<ColumnsTable>`row_to_json(c.*)`.as('locked_column'))
    .where('t.project_id', '=', project.id);
  q = parsed ? q.where('t.number', '=', parsed.number) : q.where('t.id', '=', ref.toLowerCase());
  const row = await q.forUpdate(['t']).forNoKeyUpdate(['c']).executeTakeFirst();
  if (!row) return null;
  const { locked_column: column, ...ticket } = row;
  return { ticket, column };
}

/** `mayDeleteTicket` of src/shared/rules.ts for a ticket row and the caller's access. */
function mayDelete(access: ProjectAccess, ticket: Pick<TicketsTable, 'reporter_id'>) {
  return mayDeleteTicket({
    role: access.role,
    membersMayDeleteTickets: access.project.members_may_delete === 1,
    isReporter: ticket.reporter_id === access.actor.userId,
  });
}

/**
 * Checks the rule for every ticket of a (bulk) deletion: one ticket the caller may not delete
 * refuses the whole request with 403, naming the tickets, and nothing is deleted.
 */
export function assertMayDeleteTickets(
  access: ProjectAccess,
  tickets: Pick<TicketsTable, 'reporter_id' | 'number'>[],
) {
  const refused = tickets.filter((t) => !mayDelete(access, t));
  if (refused.length)
    throw new AppError(403, ERR.ticketDeleteForbidden, {
      tickets: refused.map((t) => `${access.project.key}-${t.number}`),
    });
}

/** Project ids the caller can see: their memberships, or every project for a system administrator. */
export function visibleProjectIds(ctx: Ctx, db: Tx) {
  const actor = actorOf(ctx);
  if (actor.isSystemAdmin) return db.selectFrom('projects').select('id');
  return db.selectFrom('project_members').select('project_id as id').where('user_id', '=', actor.userId);
}

/** True when the user is a member of the project (for assignees and watchers). */
export async function isMember(db: Tx, projectId: string, userId: string): Promise<boolean> {
  const row = await db
    .selectFrom('project_members')
    .select(sql<number>`1`.as('one'))
    .where('project_id', '=', projectId)
    .where('user_id', '=', userId)
    .executeTakeFirst();
  return !!row;
}
