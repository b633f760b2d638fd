/**
 * Saved views: a named query with its layout. Private to the author, or shared with the members of
 * its project; the author, or an admin or owner of the project for a shared view, may change it.
 * A view the caller cannot see reads as missing.
 */
import type { SavedViewsTable } from '../../db/types.js';
import { ERR } from '../../shared/errors.js';
import {
  type CreateViewBody,
  DEFAULT_VIEW_COLUMNS,
  type UpdateViewBody,
  type ViewOut,
} from '../../shared/search.js';
import { projectAccess, type Role, roleAtLeast } from '../access.js';
import { actorOf, type Ctx } from '../context.js';
import { forbidden, invalidField, notFound } from '../errors.js';
import { newId } from '../ids.js';
import { presentView } from '../presenters/views.js';
import { compileQuery } from './compile.js';
import { parseOrThrow, searchScope } from './search.js';

const VIEW_NOT_FOUND = ERR.viewNotFound;

type Row = SavedViewsTable & { project_key: string | null; member_role: Role | null };

/**
 * Whether the caller may change the view: its author, or for a shared view an admin or owner of its
 * project (a system administrator counts as an owner).
 */
function mayEdit(ctx: Ctx, r: Row): boolean {
  const actor = actorOf(ctx);
  const role: Role | null = actor.isSystemAdmin ? 'owner' : r.member_role;
  return r.author_id === actor.userId || (r.shared === 1 && role !== null && roleAtLeast(role, 'admin'));
}

const viewOf = (ctx: Ctx, r: Row): ViewOut => presentView(r, mayEdit(ctx, r));

/** Views with their project key and the caller's role in their project. */
function viewsQuery(ctx: Ctx) {
  const actor = actorOf(ctx);
  return ctx.db.kysely
    .selectFrom('saved_views as v')
    .leftJoin('projects as p', 'p.id', 'v.project_id')
    .leftJoin('project_members as m', (j) =>
      j.onRef('m.project_id', '=', 'v.project_id').on('m.user_id', '=', actor.userId),
    )
    .selectAll('v')
    .select(['p.key as project_key', 'm.role as member_role']);
}

/** Mine, and the shared views of the projects I can see; by name. */
export async function listViews(ctx: Ctx): Promise<ViewOut[]> {
  const actor = actorOf(ctx);
  const rows = await viewsQuery(ctx)
    .where((eb) =>
      eb.or([
        eb('v.author_id', '=', actor.userId),
        eb.and([
          eb('v.shared', '=', 1),
          actor.isSystemAdmin ? eb('v.project_id', 'is not', null) : eb('m.user_id', 'is not', null),
        ]),
      ]),
    )
    .orderBy('v.name')
    .orderBy('v.id')
    .execute();
  return rows.map((r) => viewOf(ctx, r as Row));
}

async function visibleView(ctx: Ctx, id: string): Promise<ViewOut> {
  const row = await viewsQuery(ctx).where('v.id', '=', id.toLowerCase()).executeTakeFirst();
  if (!row) throw notFound(VIEW_NOT_FOUND);
  const actor = actorOf(ctx);
  const visible =
    row.author_id === actor.userId ||
    (row.shared === 1 && row.project_id !== null && (actor.isSystemAdmin || row.member_role !== null));
  if (!visible) throw notFound(VIEW_NOT_FOUND);
  return viewOf(ctx, row as Row);
}

/** Checks the query: it parses, and the names in it exist where the view looks. */
async function checkQuery(ctx: Ctx, query: string, projectId: string | null) {
  const parsed = parseOrThrow(query, 'query');
  const scope = projectId ? { projectIds: [projectId], userId: actorOf(ctx).userId } : await searchScope(ctx);
  await compileQuery(ctx.db.kysely, ctx.db.dialect, parsed, scope, new Date(), 'query');
}

async function projectIdOf(ctx: Ctx, ref: string | null | undefined): Promise<string | null> {
  if (!ref) return null;
  return (await projectAccess(ctx, ctx.db.kysely, ref)).project.id;
}

export async function createView(ctx: Ctx, body: CreateViewBody): Promise<ViewOut> {
  const actor = actorOf(ctx);
  const projectId = await projectIdOf(ctx, body.projectId);
  if (body.shared && !projectId) throw invalidField('shared', 'A shared view needs a project');
  await checkQuery(ctx, body.query, projectId);
  const now = new Date().toISOString();
  const id = newId();
  await ctx.db.kysely
    .insertInto('saved_views')
    .values({
      id,
      author_id: actor.userId,
      project_id: projectId,
      name: body.name,
      query: body.query,
      shared: body.shared ? 1 : 0,
      layout: body.layout ?? 'list',
      columns: JSON.stringify(body.columns ?? DEFAULT_VIEW_COLUMNS),
      group_by: body.groupBy ?? null,
      created_at: now,
      updated_at: now,
    })
    .execute();
  return visibleView(ctx, id);
}

export async function updateView(ctx: Ctx, id: string, body: UpdateViewBody): Promise<ViewOut> {
  const view = await visibleView(ctx, id);
  if (!view.canEdit) throw forbidden();
  const projectId = body.projectId === undefined ? view.projectId : await projectIdOf(ctx, body.projectId);
  const shared = body.shared ?? view.shared;
  if (shared && !projectId) throw invalidField('shared', 'A shared view needs a project');
  // Sharing into a project, or moving a shared view, takes the same right as editing it there.
  if (shared && projectId !== view.projectId && view.authorId !== actorOf(ctx).userId) throw forbidden();
  if (body.query !== undefined || projectId !== view.projectId)
    await checkQuery(ctx, body.query ?? view.query, projectId);
  await ctx.db.kysely
    .updateTable('saved_views')
    .set({
      ...(body.name !== undefined ? { name: body.name } : {}),
      ...(body.query !== undefined ? { query: body.query } : {}),
      project_id: projectId,
      shared: shared ? 1 : 0,
      ...(body.layout !== undefined ? { layout: body.layout } : {}),
      ...(body.columns !== undefined ? { columns: JSON.stringify(body.columns) } : {}),
      ...(body.groupBy !== undefined ? { group_by: body.groupBy } : {}),
      updated_at: new Date().toISOString(),
    })
    .where('id', '=', view.id)
    .execute();
  return visibleView(ctx, view.id);
}

export async function deleteView(ctx: Ctx, id: string): Promise<{ success: true }> {
  const view = await visibleView(ctx, id);
  if (!view.canEdit) throw forbidden();
  await ctx.db.kysely.deleteFrom('saved_views').where('id', '=', view.id).execute();
  return { success: true };
}
