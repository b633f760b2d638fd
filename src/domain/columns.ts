import { sql } from 'kysely';
import type { z } from 'zod';
import type { ColumnsTable } from '../db/types.js';
import { ERR } from '../shared/errors.js';
import {
  type createColumnBody,
  type deleteColumnBody,
  PROJECT_ERR,
  type updateColumnBody,
} from '../shared/projects.js';
import { projectAccess } from './access.js';
import { lockBoard, rankAt, ranksAtEnd, setRanks, tryLockColumn } from './board-ranks.js';
import { actorOf, type Ctx, type Tx, transact } from './context.js';
import { conflict, invalidField, isUniqueViolation, notFound } from './errors.js';
import { newId, nowIso } from './ids.js';
import { presentColumn } from './presenters/projects.js';
import { defaultColumnRows } from './projects.js';
import { transactWrite } from './races.js';

const byRank = (tx: Tx, projectId: string) =>
  tx.selectFrom('columns').selectAll().where('project_id', '=', projectId).orderBy('rank').execute();

/** A column's 0-based place on its board: the number of columns ranked before it. */
async function columnOrder(tx: Tx, col: Pick<ColumnsTable, 'project_id' | 'rank'>): Promise<number> {
  const r = await tx
    .selectFrom('columns')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('project_id', '=', col.project_id)
    .where('rank', '<', col.rank)
    .executeTakeFirstOrThrow();
  return Number(r.n);
}

const columnsList = (projectId: string) =>
  ({ table: 'columns', scope: 'project_id', id: projectId }) as const;

/** A column of the project, or 404 `Column not found`. */
export async function columnInProject(tx: Tx, projectId: string, columnId: string): Promise<ColumnsTable> {
  const col = await tx
    .selectFrom('columns')
    .selectAll()
    .where('project_id', '=', projectId)
    .where('id', '=', columnId.toLowerCase())
    .executeTakeFirst();
  if (!col) throw notFound(ERR.columnNotFound);
  return col;
}

async function assertNameFree(tx: Tx, projectId: string, name: string, exceptId?: string) {
  let q = tx
    .selectFrom('columns')
    .select('id')
    .where('project_id', '=', projectId)
    .where(sql`lower(name)`, '=', name.toLowerCase());
  if (exceptId) q = q.where('id', '<>', exceptId);
  if (await q.executeTakeFirst()) throw conflict(ERR.columnExists);
}

const uniqueToConflict = (err: unknown): never => {
  if (isUniqueViolation(err)) throw conflict(ERR.columnExists);
  throw err;
};

/** The board's columns by order; an empty board receives the default columns first. */
export async function listColumns(ctx: Ctx, ref: string) {
  const { project } = await projectAccess(ctx, ctx.db.kysely, ref);
  let cols = await byRank(ctx.db.kysely, project.id);
  if (cols.length === 0) {
    cols = await transact(ctx, async (tx) => {
      await lockBoard(ctx, tx, project.id);
      const again = await byRank(tx, project.id);
      if (again.length > 0) return again;
      const rows = defaultColumnRows(project.id, nowIso());
      await tx.insertInto('columns').values(rows).execute();
      return rows;
    }).catch(async (err) => {
      // Another request created them at the same moment (SQLite has no row lock to wait on).
      if (isUniqueViolation(err)) return byRank(ctx.db.kysely, project.id);
      throw err;
    });
  }
  return cols.map((c, i) => presentColumn(c, i));
}

/** Adds a column at `order` (default: the end); the columns after it shift right. */
export async function createColumn(ctx: Ctx, ref: string, body: z.infer<typeof createColumnBody>) {
  return transactWrite(ctx, async (tx, emit) => {
    const { project } = await projectAccess(ctx, tx, ref, 'admin');
    await lockBoard(ctx, tx, project.id);
    await assertNameFree(tx, project.id, body.name);
    const row: ColumnsTable = {
      id: newId(),
      project_id: project.id,
      name: body.name,
      rank: (await rankAt(tx, columnsList(project.id), body.order ?? null, null)) as string,
      created_at: nowIso(),
    };
    await tx.insertInto('columns').values(row).execute().catch(uniqueToConflict);
    const out = presentColumn(row, await columnOrder(tx, row));
    emit({ scope: 'project', type: 'column.created', projectId: project.id, data: out });
    return out;
  });
}

/** Renames and/or moves a column; only its own rank changes, the others' orders follow. */
export async function updateColumn(
  ctx: Ctx,
  ref: string,
  columnId: string,
  body: z.infer<typeof updateColumnBody>,
) {
  return transactWrite(ctx, async (tx, emit) => {
    const { project } = await projectAccess(ctx, tx, ref, 'admin');
    // Locks in the order every writer takes them: the column, then the project.
    if (!(await tryLockColumn(ctx, tx, columnId.toLowerCase()))) throw notFound(ERR.columnNotFound);
    await lockBoard(ctx, tx, project.id);
    const col = await columnInProject(tx, project.id, columnId);
    const next = { ...col };
    if (body.name !== undefined && body.name !== col.name) {
      await assertNameFree(tx, project.id, body.name, col.id);
      next.name = body.name;
    }
    const order = await columnOrder(tx, col);
    if (body.order !== undefined && body.order !== order)
      next.rank = (await rankAt(tx, columnsList(project.id), body.order, col)) ?? col.rank;
    if (next.name === col.name && next.rank === col.rank) return presentColumn(col, order);
    await tx
      .updateTable('columns')
      .set({ name: next.name, rank: next.rank })
      .where('id', '=', col.id)
      .execute()
      .catch(uniqueToConflict);
    const out = presentColumn(next, next.rank === col.rank ? order : await columnOrder(tx, next));
    emit({ scope: 'project', type: 'column.updated', projectId: project.id, data: out });
    return out;
  });
}

/**
 * Deletes a column. Its tickets go to the end of `moveTicketsTo` (required when it holds any),
 * keeping their order; the last column cannot be deleted.
 */
export async function deleteColumn(
  ctx: Ctx,
  ref: string,
  columnId: string,
  body: z.infer<typeof deleteColumnBody>,
) {
  const actor = actorOf(ctx);
  return transactWrite(ctx, async (tx, emit) => {
    const { project } = await projectAccess(ctx, tx, ref, 'admin');
    const col = await columnInProject(tx, project.id, columnId);
    // Locks in the order every writer takes them: columns (by id), then the project.
    const locked = [col.id, body?.moveTicketsTo?.toLowerCase()].filter((id) => id !== undefined).sort();
    for (const id of locked)
      if (!(await tryLockColumn(ctx, tx, id))) {
        if (id === col.id) throw notFound(ERR.columnNotFound);
        throw invalidField('moveTicketsTo', 'Must be another column of this board');
      }
    await lockBoard(ctx, tx, project.id);
    const cols = await byRank(tx, project.id);
    if (cols.length <= 1) throw conflict(ERR.needOneColumn);
    const tickets = await tx
      .selectFrom('tickets')
      .select('id')
      .where('column_id', '=', col.id)
      .orderBy('rank')
      .execute();
    let target: ColumnsTable | undefined;
    if (body?.moveTicketsTo !== undefined) {
      target = cols.find((c) => c.id === body.moveTicketsTo?.toLowerCase() && c.id !== col.id);
      if (!target) throw invalidField('moveTicketsTo', 'Must be another column of this board');
    }
    if (tickets.length > 0) {
      if (!target) throw invalidField('moveTicketsTo', PROJECT_ERR.moveTicketsToRequired);
      const ranks = await ranksAtEnd(
        tx,
        { table: 'tickets', scope: 'column_id', id: target.id },
        tickets.length,
      );
      const now = nowIso();
      await setRanks(
        tx,
        tickets.map((t, i) => ({ id: t.id, rank: ranks[i] })),
        { column_id: target.id, updated_at: now },
      );
      await tx
        .insertInto('ticket_history')
        .values(
          tickets.map((t) => ({
            id: newId(),
            ticket_id: t.id,
            field: 'status',
            old_value: col.name,
            new_value: target.name,
            changed_by: actor.userId,
            changed_at: now,
          })),
        )
        .execute();
    }
    await tx.deleteFrom('columns').where('id', '=', col.id).execute();
    const settings = await tx
      .selectFrom('sprint_settings')
      .select('done_column_ids')
      .where('project_id', '=', project.id)
      .executeTakeFirst();
    if (settings) {
      const done = JSON.parse(settings.done_column_ids) as string[];
      if (done.includes(col.id)) {
        await tx
          .updateTable('sprint_settings')
          .set({ done_column_ids: JSON.stringify(done.filter((id) => id !== col.id)) })
          .where('project_id', '=', project.id)
          .execute();
      }
    }
    emit({
      scope: 'project',
      type: 'column.deleted',
      projectId: project.id,
      data: { id: col.id, moveTicketsTo: target?.id ?? null, movedTicketIds: tickets.map((t) => t.id) },
    });
    return { success: true as const };
  });
}
