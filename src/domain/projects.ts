import { sql } from 'kysely';
import type { z } from 'zod';
import { rankForIndex } from '../db/ranks.js';
import type { ColumnsTable, ProjectsTable } from '../db/types.js';
import { removeStoredFiles } from '../files/uploads.js';
import { ERR } from '../shared/errors.js';
import { PALETTE } from '../shared/limits.js';
import {
  type CreateProjectBody,
  type listQuery,
  PROJECT_ERR,
  type UpdateProjectBody,
} from '../shared/projects.js';
import { projectAccess, visibleProjectIds } from './access.js';
import { audit } from './audit.js';
import { actorOf, type Ctx, transact } from './context.js';
import { conflict, invalidField, isUniqueViolation } from './errors.js';
import { newId, nowIso } from './ids.js';
import { NO_LIMIT } from './paging.js';
import { presentProject } from './presenters/projects.js';
import { removeProjects } from './project-removal.js';

/** The board every new project starts with (also used when a board is found empty). */
export const DEFAULT_COLUMNS = ['To Do', 'In Progress', 'Done'] as const;

/** The rows of a new board's default columns, ranked in order. */
export const defaultColumnRows = (projectId: string, now: string): ColumnsTable[] =>
  DEFAULT_COLUMNS.map((name, i) => ({
    id: newId(),
    project_id: projectId,
    name,
    rank: rankForIndex(i),
    created_at: now,
  }));

/**
 * Projects the caller can access (system administrators: all), by name, with their total in the
 * same statement (a second one only for a page past the end, to count what it skipped).
 */
export async function listProjects(ctx: Ctx, q: z.infer<typeof listQuery>) {
  const db = ctx.db.kysely;
  const base = db.selectFrom('projects').where('id', 'in', visibleProjectIds(ctx, db));
  const rows = await base
    .selectAll()
    .select(sql<number>`count(*) over ()`.as('total_count'))
    .orderBy(sql`lower(name)`)
    .orderBy('key')
    .limit(q.limit ?? NO_LIMIT)
    .offset(q.offset ?? 0)
    .execute();
  const total =
    rows.length > 0
      ? Number(rows[0].total_count)
      : (q.offset ?? 0) === 0
        ? 0
        : Number((await base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n);
  return { items: rows.map(({ total_count: _, ...p }) => presentProject(p)), total };
}

/** Creates a project: the caller becomes owner; default columns and sprint settings come with it. */
export async function createProject(ctx: Ctx, body: CreateProjectBody) {
  const actor = actorOf(ctx);
  try {
    return await transact(ctx, async (tx, emit) => {
      const taken = await tx
        .selectFrom('projects')
        .select('id')
        .where('key', '=', body.key)
        .executeTakeFirst();
      if (taken) throw conflict(ERR.projectKeyExists);
      const count = await tx
        .selectFrom('projects')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow();
      const now = nowIso();
      const project: ProjectsTable = {
        id: newId(),
        name: body.name,
        key: body.key,
        description: body.description ?? null,
        color: body.color ?? PALETTE[Number(count.n) % PALETTE.length],
        ticket_counter: 0,
        sprint_counter: 0,
        created_at: now,
        updated_at: now,
      };
      await tx.insertInto('projects').values(project).execute();
      await tx
        .insertInto('project_members')
        .values({
          id: newId(),
          project_id: project.id,
          user_id: actor.userId,
          role: 'owner',
          created_at: now,
        })
        .execute();
      await tx.insertInto('columns').values(defaultColumnRows(project.id, now)).execute();
      await tx
        .insertInto('sprint_settings')
        .values({
          project_id: project.id,
          default_sprint_duration: 2,
          auto_carry_over: 0,
          done_column_ids: '[]',
        })
        .execute();
      const out = presentProject(project);
      emit({ scope: 'projects', type: 'project.created', projectId: project.id, data: out });
      return out;
    });
  } catch (err) {
    if (isUniqueViolation(err)) throw conflict(ERR.projectKeyExists);
    throw err;
  }
}

export async function getProject(ctx: Ctx, ref: string) {
  const { project } = await projectAccess(ctx, ctx.db.kysely, ref);
  return presentProject(project);
}

/** Name, description and colour (admin or owner); the key is immutable. */
export async function updateProject(ctx: Ctx, ref: string, body: UpdateProjectBody) {
  return transact(ctx, async (tx, emit) => {
    const { project } = await projectAccess(ctx, tx, ref, 'admin');
    if (body.key !== undefined && body.key !== project.key)
      throw invalidField('key', PROJECT_ERR.keyImmutable);
    const changes: Partial<ProjectsTable> = {};
    if (body.name !== undefined) changes.name = body.name;
    if (body.description !== undefined) changes.description = body.description;
    if (body.color !== undefined) changes.color = body.color;
    if (body.membersMayDeleteTickets !== undefined)
      changes.members_may_delete = body.membersMayDeleteTickets ? 1 : 0;
    if (Object.keys(changes).length === 0) return presentProject(project);
    changes.updated_at = nowIso();
    await tx.updateTable('projects').set(changes).where('id', '=', project.id).execute();
    const out = presentProject({ ...project, ...changes });
    emit({ scope: 'projects', type: 'project.updated', projectId: project.id, data: out });
    return out;
  });
}

/** Deletes the project and everything in it (owner only), then its attachment files. */
export async function deleteProject(ctx: Ctx, ref: string) {
  const files = await transact(ctx, async (tx, emit) => {
    const { project } = await projectAccess(ctx, tx, ref, 'owner');
    const members = await tx
      .selectFrom('project_members')
      .select('user_id')
      .where('project_id', '=', project.id)
      .execute();
    const names = await removeProjects(tx, [project.id]);
    await audit(tx, ctx, {
      action: 'project.deleted',
      target: { type: 'project', id: project.id },
      details: { key: project.key, name: project.name },
    });
    emit({
      scope: 'projects',
      type: 'project.deleted',
      projectId: project.id,
      data: { id: project.id },
      audience: members.map((m) => m.user_id),
    });
    return names;
  });
  await removeStoredFiles(ctx, 'attachments', files);
  return { success: true as const };
}
