import { sql } from 'kysely';
import type { z } from 'zod';
import type { LabelsTable } from '../db/types.js';
import { ERR } from '../shared/errors.js';
import { PALETTE } from '../shared/limits.js';
import type { createLabelBody, updateLabelBody } from '../shared/projects.js';
import { projectAccess } from './access.js';
import { type Ctx, type Tx, transact } from './context.js';
import { conflict, isUniqueViolation, notFound } from './errors.js';
import { newId, nowIso } from './ids.js';
import { pageOf } from './paging.js';
import { presentLabel } from './presenters/projects.js';

/** Labels: any member manages them; names are unique in a project ignoring case. */
export async function listLabels(ctx: Ctx, ref: string, page: { limit?: number; offset?: number }) {
  const db = ctx.db.kysely;
  const { project } = await projectAccess(ctx, db, ref);
  const base = db.selectFrom('labels').where('project_id', '=', project.id);
  const total = await base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  const { limit, offset } = pageOf(page);
  const rows = await base
    .selectAll()
    .orderBy(sql`lower(name)`)
    .orderBy('id')
    .limit(limit)
    .offset(offset)
    .execute();
  return { items: rows.map(presentLabel), total: Number(total.n) };
}

async function labelInProject(tx: Tx, projectId: string, labelId: string): Promise<LabelsTable> {
  const row = await tx
    .selectFrom('labels')
    .selectAll()
    .where('project_id', '=', projectId)
    .where('id', '=', labelId.toLowerCase())
    .executeTakeFirst();
  if (!row) throw notFound(ERR.labelNotFound);
  return row;
}

async function assertNameFree(tx: Tx, projectId: string, name: string, exceptId?: string) {
  let q = tx
    .selectFrom('labels')
    .select('id')
    .where('project_id', '=', projectId)
    .where(sql`lower(name)`, '=', name.toLowerCase());
  if (exceptId) q = q.where('id', '<>', exceptId);
  if (await q.executeTakeFirst()) throw conflict(ERR.labelExists);
}

const uniqueToConflict = (err: unknown): never => {
  if (isUniqueViolation(err)) throw conflict(ERR.labelExists);
  throw err;
};

export async function createLabel(ctx: Ctx, ref: string, body: z.infer<typeof createLabelBody>) {
  return transact(ctx, async (tx, emit) => {
    const { project } = await projectAccess(ctx, tx, ref);
    await assertNameFree(tx, project.id, body.name);
    const count = await tx
      .selectFrom('labels')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('project_id', '=', project.id)
      .executeTakeFirstOrThrow();
    const row: LabelsTable = {
      id: newId(),
      project_id: project.id,
      name: body.name,
      color: body.color ?? PALETTE[Number(count.n) % PALETTE.length],
      created_at: nowIso(),
    };
    await tx.insertInto('labels').values(row).execute().catch(uniqueToConflict);
    const out = presentLabel(row);
    emit({ scope: 'project', type: 'label.created', projectId: project.id, data: out });
    return out;
  });
}

export async function updateLabel(
  ctx: Ctx,
  ref: string,
  labelId: string,
  body: z.infer<typeof updateLabelBody>,
) {
  return transact(ctx, async (tx, emit) => {
    const { project } = await projectAccess(ctx, tx, ref);
    const label = await labelInProject(tx, project.id, labelId);
    const next = { ...label, name: body.name ?? label.name, color: body.color ?? label.color };
    if (next.name === label.name && next.color === label.color) return presentLabel(label);
    if (next.name.toLowerCase() !== label.name.toLowerCase())
      await assertNameFree(tx, project.id, next.name, label.id);
    await tx
      .updateTable('labels')
      .set({ name: next.name, color: next.color })
      .where('id', '=', label.id)
      .execute()
      .catch(uniqueToConflict);
    const out = presentLabel(next);
    emit({ scope: 'project', type: 'label.updated', projectId: project.id, data: out });
    return out;
  });
}

/** Deletes a label; it disappears from every ticket that had it. */
export async function deleteLabel(ctx: Ctx, ref: string, labelId: string) {
  return transact(ctx, async (tx, emit) => {
    const { project } = await projectAccess(ctx, tx, ref);
    const label = await labelInProject(tx, project.id, labelId);
    await tx.deleteFrom('ticket_labels').where('label_id', '=', label.id).execute();
    await tx.deleteFrom('labels').where('id', '=', label.id).execute();
    emit({ scope: 'project', type: 'label.deleted', projectId: project.id, data: { id: label.id } });
    return { success: true as const };
  });
}
