import { sql } from 'kysely';
import type { ProjectsTable, TicketTemplatesTable } from '../db/types.js';
import { LIMITS } from '../shared/limits.js';
import {
  type CreateTemplateBody,
  TEMPLATE_ERR,
  type TemplateOut,
  type UpdateTemplateBody,
} from '../shared/templates.js';
import { projectAccess } from './access.js';
import { audit } from './audit.js';
import type { Ctx, Emit, Services, Tx } from './context.js';
import { conflict, invalidField, isUniqueViolation, notFound } from './errors.js';
import { newId, nowIso } from './ids.js';
import { presentTemplates } from './presenters/templates.js';
import { transactWrite } from './races.js';
import { memberUsers, unique } from './ticket-refs.js';
import { recordUploadRefs } from './upload-refs.js';

/**
 * Ticket templates (docs/decisions/050-ticket-templates.md): every member reads them; project
 * admins and owners (and system administrators) manage them. Writes lock the project row on
 * PostgreSQL (SQLite runs one writer at a time), so the count limit, the places and the one
 * default stay right under concurrent writes; unique indexes back the name and the default.
 */

const byPosition = (db: Tx, projectId: string) =>
  db
    .selectFrom('ticket_templates')
    .selectAll()
    .where('project_id', '=', projectId)
    .orderBy('position')
    .orderBy('id')
    .execute();

export async function listTemplates(ctx: Ctx, ref: string): Promise<TemplateOut[]> {
  const db = ctx.db.kysely;
  const { project } = await projectAccess(ctx, db, ref);
  return presentTemplates(db, project.id, await byPosition(db, project.id));
}

/** A template of the project for a new ticket, or 400 naming `templateId`. */
export async function templateForTicket(tx: Tx, project: ProjectsTable, templateId: string) {
  const row = await tx
    .selectFrom('ticket_templates')
    .selectAll()
    .where('project_id', '=', project.id)
    .where('id', '=', templateId.toLowerCase())
    .executeTakeFirst();
  if (!row) throw invalidField('templateId', 'Must be a template of this project');
  const [out] = await presentTemplates(tx, project.id, [row]);
  // An assignee who left the project since is not preset.
  if (out.assigneeId && (await memberUsers(tx, project.id, [out.assigneeId])).length === 0)
    return { ...out, assigneeId: null };
  return out;
}

async function lockProject(ctx: Pick<Services, 'db'>, tx: Tx, projectId: string) {
  if (ctx.db.dialect === 'postgres')
    await tx.selectFrom('projects').select('id').where('id', '=', projectId).forUpdate().execute();
}

async function templateIn(tx: Tx, projectId: string, templateId: string): Promise<TicketTemplatesTable> {
  const row = await tx
    .selectFrom('ticket_templates')
    .selectAll()
    .where('project_id', '=', projectId)
    .where('id', '=', templateId.toLowerCase())
    .executeTakeFirst();
  if (!row) throw notFound(TEMPLATE_ERR.notFound);
  return row;
}

async function assertNameFree(tx: Tx, projectId: string, name: string, exceptId?: string) {
  let q = tx
    .selectFrom('ticket_templates')
    .select('id')
    .where('project_id', '=', projectId)
    .where(sql`lower(name)`, '=', name.toLowerCase());
  if (exceptId) q = q.where('id', '<>', exceptId);
  if (await q.executeTakeFirst()) throw conflict(TEMPLATE_ERR.exists);
}

const uniqueToConflict = (err: unknown): never => {
  if (isUniqueViolation(err)) throw conflict(TEMPLATE_ERR.exists);
  throw err;
};

/** The preset columns of a body, its references checked against the project (a bad one is a 400). */
async function presetColumns(
  tx: Tx,
  projectId: string,
  body: CreateTemplateBody | UpdateTemplateBody,
): Promise<Partial<TicketTemplatesTable>> {
  const set: Partial<TicketTemplatesTable> = {};
  if (body.name !== undefined) set.name = body.name;
  if (body.about !== undefined) set.about = body.about || null;
  if (body.type !== undefined) set.type = body.type;
  if (body.title !== undefined) set.title = body.title;
  if (body.description !== undefined) set.description = body.description || null;
  if (body.priority !== undefined) set.priority = body.priority;
  if (body.storyPoints !== undefined) set.story_points = body.storyPoints;
  if (body.assigneeId !== undefined) {
    const id = body.assigneeId?.toLowerCase() ?? null;
    if (id && (await memberUsers(tx, projectId, [id])).length === 0)
      throw invalidField('assigneeId', TEMPLATE_ERR.assigneeNotMember);
    set.assignee_id = id;
  }
  if (body.labelIds !== undefined) {
    const ids = unique(body.labelIds);
    const found = ids.length
      ? await tx
          .selectFrom('labels')
          .select('id')
          .where('project_id', '=', projectId)
          .where('id', 'in', ids)
          .execute()
      : [];
    if (found.length !== ids.length)
      throw invalidField('labelIds', 'Every label must be a label of this project');
    set.label_ids = JSON.stringify(ids);
  }
  return set;
}

/**
 * Puts the templates in `order` (ids) at places 0..n-1 and makes `defaultId` the only default
 * (undefined: defaults unchanged). Returns the ids whose place or default changed.
 */
async function renumber(
  tx: Tx,
  rows: TicketTemplatesTable[],
  order: string[],
  defaultId: string | null | undefined,
): Promise<Set<string>> {
  const changed = new Set<string>();
  const byId = new Map(rows.map((r) => [r.id, r]));
  // Clear defaults first: the unique index allows one at a time.
  if (defaultId !== undefined) {
    for (const r of rows) {
      if (r.is_default === 1 && r.id !== defaultId) {
        await tx.updateTable('ticket_templates').set({ is_default: 0 }).where('id', '=', r.id).execute();
        changed.add(r.id);
      }
    }
  }
  for (const [i, id] of order.entries()) {
    const r = byId.get(id);
    if (r && r.position !== i) {
      await tx.updateTable('ticket_templates').set({ position: i }).where('id', '=', id).execute();
      changed.add(id);
    }
  }
  return changed;
}

async function emitChanged(tx: Tx, emit: Emit, projectId: string, ids: Iterable<string>) {
  const list = [...ids];
  if (list.length === 0) return;
  const rows = await tx.selectFrom('ticket_templates').selectAll().where('id', 'in', list).execute();
  for (const t of await presentTemplates(tx, projectId, rows))
    emit({ scope: 'project', type: 'template.updated', projectId, data: t });
}

const place = (ids: string[], id: string, at: number | undefined) => {
  const rest = ids.filter((x) => x !== id);
  rest.splice(Math.min(at ?? rest.length, rest.length), 0, id);
  return rest;
};

export async function createTemplate(ctx: Ctx, ref: string, body: CreateTemplateBody) {
  return transactWrite(ctx, async (tx, emit) => {
    const { project, actor } = await projectAccess(ctx, tx, ref, 'admin');
    await lockProject(ctx, tx, project.id);
    const rows = await byPosition(tx, project.id);
    if (rows.length >= LIMITS.templatesPerProject) throw conflict(TEMPLATE_ERR.limit);
    await assertNameFree(tx, project.id, body.name);
    const now = nowIso();
    const row: TicketTemplatesTable = {
      id: newId(),
      project_id: project.id,
      name: body.name,
      about: null,
      type: null,
      title: null,
      description: null,
      priority: null,
      label_ids: '[]',
      story_points: null,
      assignee_id: null,
      position: rows.length,
      is_default: 0,
      created_by: actor.userId,
      created_at: now,
      updated_at: now,
      version: 1,
      ...(await presetColumns(tx, project.id, body)),
    };
    const changed = await renumber(tx, rows, [], body.isDefault ? row.id : undefined);
    await tx
      .insertInto('ticket_templates')
      .values({ ...row, is_default: body.isDefault ? 1 : 0 })
      .execute()
      .catch(uniqueToConflict);
    const order = place([...rows.map((r) => r.id), row.id], row.id, body.position);
    for (const id of await renumber(tx, [...rows, row], order, undefined)) changed.add(id);
    changed.delete(row.id);
    await recordUploadRefs(ctx, tx, [
      { place: { projectId: project.id, templateId: row.id }, text: row.description, before: null },
    ]);
    await audit(tx, ctx, {
      action: 'template.created',
      target: { type: 'ticket_template', id: row.id },
      details: { project: project.key, name: row.name },
    });
    const [out] = await presentTemplates(tx, project.id, [await templateIn(tx, project.id, row.id)]);
    emit({ scope: 'project', type: 'template.created', projectId: project.id, data: out });
    await emitChanged(tx, emit, project.id, changed);
    return out;
  });
}

export async function updateTemplate(ctx: Ctx, ref: string, templateId: string, body: UpdateTemplateBody) {
  return transactWrite(ctx, async (tx, emit) => {
    const { project } = await projectAccess(ctx, tx, ref, 'admin');
    await lockProject(ctx, tx, project.id);
    const before = await templateIn(tx, project.id, templateId);
    if (body.version !== undefined && body.version !== before.version) throw conflict(TEMPLATE_ERR.stale);
    if (body.name !== undefined && body.name.toLowerCase() !== before.name.toLowerCase())
      await assertNameFree(tx, project.id, body.name, before.id);
    const set = await presetColumns(tx, project.id, body);
    const rows = await byPosition(tx, project.id);
    const makeDefault = body.isDefault === true && before.is_default !== 1;
    const changed = await renumber(
      tx,
      rows,
      body.position === undefined
        ? []
        : place(
            rows.map((r) => r.id),
            before.id,
            body.position,
          ),
      makeDefault ? before.id : undefined,
    );
    if (body.isDefault !== undefined) set.is_default = body.isDefault ? 1 : 0;
    changed.delete(before.id);
    const moved = body.position !== undefined && rows.findIndex((r) => r.id === before.id) !== body.position;
    const edited = Object.entries(set).some(([k, v]) => before[k as keyof TicketTemplatesTable] !== v);
    if (edited || moved) {
      await tx
        .updateTable('ticket_templates')
        .set({ ...set, updated_at: nowIso(), version: before.version + 1 })
        .where('id', '=', before.id)
        .execute()
        .catch(uniqueToConflict);
      if (set.description !== undefined)
        await recordUploadRefs(ctx, tx, [
          {
            place: { projectId: project.id, templateId: before.id },
            text: set.description,
            before: before.description,
          },
        ]);
      await audit(tx, ctx, {
        action: 'template.updated',
        target: { type: 'ticket_template', id: before.id },
        details: { project: project.key, name: set.name ?? before.name, fields: Object.keys(set) },
      });
    }
    const [out] = await presentTemplates(tx, project.id, [await templateIn(tx, project.id, before.id)]);
    if (edited || moved)
      emit({ scope: 'project', type: 'template.updated', projectId: project.id, data: out });
    await emitChanged(tx, emit, project.id, changed);
    return out;
  });
}

export async function deleteTemplate(ctx: Ctx, ref: string, templateId: string) {
  return transactWrite(ctx, async (tx, emit) => {
    const { project } = await projectAccess(ctx, tx, ref, 'admin');
    await lockProject(ctx, tx, project.id);
    const row = await templateIn(tx, project.id, templateId);
    await tx.deleteFrom('ticket_templates').where('id', '=', row.id).execute();
    const rest = await byPosition(tx, project.id);
    const changed = await renumber(
      tx,
      rest,
      rest.map((r) => r.id),
      undefined,
    );
    await audit(tx, ctx, {
      action: 'template.deleted',
      target: { type: 'ticket_template', id: row.id },
      details: { project: project.key, name: row.name },
    });
    emit({ scope: 'project', type: 'template.deleted', projectId: project.id, data: { id: row.id } });
    await emitChanged(tx, emit, project.id, changed);
    return { success: true as const };
  });
}
