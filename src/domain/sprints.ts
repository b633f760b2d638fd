import type { ProjectsTable, SprintSettingsTable, SprintsTable } from '../db/types.js';
import { ERR } from '../shared/errors.js';
import {
  type CompleteSprintBody,
  type CreateSprintBody,
  doneColumnIds,
  type IncompleteAction,
  SPRINT_ERR,
  SPRINT_MAX_DAYS,
  type SprintListQuery,
  type StartSprintBody,
  type UpdateSprintBody,
  type UpdateSprintSettingsBody,
} from '../shared/sprints.js';
import { projectAccess } from './access.js';
import { actorOf, type Ctx, type Emit, type Tx, transact } from './context.js';
import { badRequest, conflict, invalidField, isUniqueViolation, notFound } from './errors.js';
import { newId, nowIso } from './ids.js';
import { notifySprint } from './notifications/index.js';
import { pageOf } from './paging.js';
import {
  presentSprint,
  presentSprintEntry,
  presentSprintSettings,
  presentSprintTicket,
} from './presenters/sprints.js';
import { presentTicketsFull } from './presenters/tickets.js';
import { closeSprintEntry, recordSprintChange } from './sprint-membership.js';
import { assertSprintNameFree, nextSprintName, noteSprintName, sprintNameConflict } from './sprint-names.js';
import { writeHistory } from './ticket-history.js';

const DAY_MS = 86_400_000;

/** Midnight UTC of today, as sprint dates are stored. */
export const todayMidnight = (now = Date.now()) =>
  `${new Date(now).toISOString().slice(0, 10)}T00:00:00.000Z`;
const addDays = (iso: string, days: number) => new Date(Date.parse(iso) + days * DAY_MS).toISOString();

/** A sprint of the project, by id; 404 `Sprint not found` otherwise (also for other projects' sprints). */
export async function sprintInProject(db: Tx, projectId: string, sprintId: string): Promise<SprintsTable> {
  const sprint = await db
    .selectFrom('sprints')
    .selectAll()
    .where('project_id', '=', projectId)
    .where('id', '=', sprintId.toLowerCase())
    .executeTakeFirst();
  if (!sprint) throw notFound(ERR.sprintNotFound);
  return sprint;
}

/** The project's sprint settings row (defaults when the project has none yet). */
export async function sprintSettingsRow(db: Tx, projectId: string): Promise<SprintSettingsTable> {
  const row = await db
    .selectFrom('sprint_settings')
    .selectAll()
    .where('project_id', '=', projectId)
    .executeTakeFirst();
  return (
    row ?? { project_id: projectId, default_sprint_duration: 2, auto_carry_over: 0, done_column_ids: '[]' }
  );
}

/** Column ids of the project in board order. */
async function columnIdsOf(db: Tx, projectId: string): Promise<string[]> {
  const rows = await db
    .selectFrom('columns')
    .select('id')
    .where('project_id', '=', projectId)
    .orderBy('rank')
    .execute();
  return rows.map((r) => r.id);
}

/**
 * The columns whose tickets count as done: `doneColumnIds` (those that still exist), or the
 * project's last column when that list is empty.
 */
export async function doneColumnIdsOf(db: Tx, projectId: string): Promise<string[]> {
  const columns = await columnIdsOf(db, projectId);
  const settings = presentSprintSettings(await sprintSettingsRow(db, projectId), columns);
  return doneColumnIds(columns, settings.doneColumnIds);
}

// ---------------------------------------------------------------------------------------------
// Creation (names: sprint-names.ts)

async function insertSprint(
  tx: Tx,
  emit: Emit,
  projectId: string,
  fields: {
    name?: string;
    goal?: string | null;
    startDate?: string | null;
    endDate?: string | null;
    budget?: number | null;
  },
): Promise<SprintsTable> {
  const name = fields.name ?? (await nextSprintName(tx, projectId));
  await assertSprintNameFree(tx, projectId, name);
  if (fields.name) await noteSprintName(tx, projectId, fields.name);
  const now = nowIso();
  const sprint: SprintsTable = {
    id: newId(),
    project_id: projectId,
    name,
    goal: fields.goal ?? null,
    start_date: fields.startDate ?? null,
    end_date: fields.endDate ?? null,
    status: 'planning',
    budget: fields.budget ?? null,
    started_at: null,
    completed_at: null,
    created_at: now,
    updated_at: now,
  };
  await tx.insertInto('sprints').values(sprint).execute().catch(sprintNameConflict);
  emit({ scope: 'project', type: 'sprint.created', projectId, data: presentSprint(sprint) });
  return sprint;
}

/** 400 naming `endField` when the end precedes the start or the sprint is longer than allowed. */
function checkDates(
  start: string | null,
  end: string | null,
  endField: string,
  endBeforeStart: string = SPRINT_ERR.endBeforeStart,
) {
  if (!start || !end) return;
  const days = (Date.parse(end) - Date.parse(start)) / DAY_MS;
  if (days < 0) throw invalidField(endField, endBeforeStart);
  if (days > SPRINT_MAX_DAYS) throw invalidField(endField, SPRINT_ERR.tooLong);
}

// ---------------------------------------------------------------------------------------------
// Ticket moves made by sprint operations

/** Writes the `sprint` entry of the ticket's history: display strings are the sprint names. */
const historySprint = (
  tx: Tx,
  ticketId: string,
  from: string | null,
  to: string | null,
  by: string,
  at: string,
) => writeHistory(tx, ticketId, [{ field: 'sprint', oldValue: from, newValue: to }], by, at);

/** One `ticket.updated` per ticket a sprint operation moved, with the ticket as it is now. */
async function emitTicketUpdates(tx: Tx, emit: Emit, project: ProjectsTable, ticketIds: string[]) {
  if (ticketIds.length === 0) return;
  for (const view of await presentTicketsFull(tx, project.key, ticketIds)) {
    emit({ scope: 'project', type: 'ticket.updated', projectId: project.id, data: view });
  }
}

// ---------------------------------------------------------------------------------------------
// Use cases

export async function listSprints(ctx: Ctx, ref: string, q: SprintListQuery) {
  const db = ctx.db.kysely;
  const { project } = await projectAccess(ctx, db, ref);
  let base = db.selectFrom('sprints').where('project_id', '=', project.id);
  if (q.status) base = base.where('status', '=', q.status);
  const total = await base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  const { limit, offset } = pageOf(q);
  const rows = await base
    .selectAll()
    .orderBy('created_at')
    .orderBy('id')
    .limit(limit)
    .offset(offset)
    .execute();
  return { items: rows.map(presentSprint), total: Number(total.n) };
}

export async function createSprint(ctx: Ctx, ref: string, body: CreateSprintBody) {
  const input = body ?? {};
  return transact(ctx, async (tx, emit) => {
    const { project } = await projectAccess(ctx, tx, ref);
    checkDates(input.startDate ?? null, input.endDate ?? null, 'endDate');
    return presentSprint(await insertSprint(tx, emit, project.id, input));
  });
}

/** The sprint with its tickets (board order) and its membership history (oldest first). */
export async function getSprint(ctx: Ctx, ref: string, sprintId: string) {
  const db = ctx.db.kysely;
  const { project } = await projectAccess(ctx, db, ref);
  const sprint = await sprintInProject(db, project.id, sprintId);
  const tickets = await db
    .selectFrom('tickets')
    .innerJoin('columns', 'columns.id', 'tickets.column_id')
    .select([
      'tickets.id',
      'tickets.number',
      'tickets.title',
      'tickets.type',
      'tickets.priority',
      'tickets.story_points',
      'tickets.column_id',
    ])
    .where('tickets.sprint_id', '=', sprint.id)
    .orderBy('columns.rank')
    .orderBy('tickets.rank')
    .execute();
  const entries = await db
    .selectFrom('sprint_ticket_history')
    .selectAll()
    .where('sprint_id', '=', sprint.id)
    .orderBy('entered_at')
    .orderBy('id')
    .execute();
  return {
    ...presentSprint(sprint),
    tickets: tickets.map((t) => presentSprintTicket(t, project.key)),
    ticketHistory: entries.map(presentSprintEntry),
  };
}

export async function getActiveSprint(ctx: Ctx, ref: string) {
  const db = ctx.db.kysely;
  const { project } = await projectAccess(ctx, db, ref);
  const sprint = await db
    .selectFrom('sprints')
    .selectAll()
    .where('project_id', '=', project.id)
    .where('status', '=', 'active')
    .executeTakeFirst();
  return sprint ? presentSprint(sprint) : null;
}

/** Name, goal, dates and budget. A started sprint keeps its dates (they can change, not be cleared). */
export async function updateSprint(ctx: Ctx, ref: string, sprintId: string, body: UpdateSprintBody) {
  return transact(ctx, async (tx, emit) => {
    const { project } = await projectAccess(ctx, tx, ref);
    const sprint = await sprintInProject(tx, project.id, sprintId);
    const changes: Partial<SprintsTable> = {};
    if (body.name !== undefined && body.name !== sprint.name) changes.name = body.name;
    if (body.goal !== undefined) changes.goal = body.goal;
    if (body.budget !== undefined) changes.budget = body.budget;
    for (const [field, column] of [
      ['startDate', 'start_date'],
      ['endDate', 'end_date'],
    ] as const) {
      const value = body[field];
      if (value === undefined) continue;
      if (value === null && sprint.status !== 'planning') throw invalidField(field, SPRINT_ERR.datesRequired);
      changes[column] = value;
    }
    const start = changes.start_date !== undefined ? changes.start_date : sprint.start_date;
    const end = changes.end_date !== undefined ? changes.end_date : sprint.end_date;
    checkDates(start, end, body.endDate !== undefined ? 'endDate' : 'startDate');
    if (Object.keys(changes).length === 0) return presentSprint(sprint);
    if (changes.name) {
      await assertSprintNameFree(tx, project.id, changes.name, sprint.id);
      await noteSprintName(tx, project.id, changes.name);
    }
    changes.updated_at = nowIso();
    await tx
      .updateTable('sprints')
      .set(changes)
      .where('id', '=', sprint.id)
      .execute()
      .catch(sprintNameConflict);
    const out = presentSprint({ ...sprint, ...changes });
    emit({ scope: 'project', type: 'sprint.updated', projectId: project.id, data: out });
    return out;
  });
}

const TICKET_COLUMNS = [
  'id',
  'number',
  'story_points',
  'is_carried_over',
  'carried_from_sprint_id',
  'carried_over_count',
] as const;

/** Deletes a planning sprint; its tickets go to the backlog (recorded in their history). */
export async function deleteSprint(ctx: Ctx, ref: string, sprintId: string) {
  const actor = actorOf(ctx);
  return transact(ctx, async (tx, emit) => {
    const { project } = await projectAccess(ctx, tx, ref);
    const sprint = await sprintInProject(tx, project.id, sprintId);
    if (sprint.status !== 'planning') throw conflict(ERR.onlyPlanningDeletable);
    const at = nowIso();
    const tickets = await tx
      .selectFrom('tickets')
      .select(TICKET_COLUMNS)
      .where('sprint_id', '=', sprint.id)
      .execute();
    await tx
      .updateTable('tickets')
      .set({ sprint_id: null, updated_at: at })
      .where('sprint_id', '=', sprint.id)
      .execute();
    for (const t of tickets) await historySprint(tx, t.id, sprint.name, null, actor.userId, at);
    await emitTicketUpdates(
      tx,
      emit,
      project,
      tickets.map((t) => t.id),
    );
    // Its membership history goes with it (foreign key cascade); carriedFromSprintId references clear.
    const removed = await tx
      .deleteFrom('sprints')
      .where('id', '=', sprint.id)
      .where('status', '=', 'planning')
      .executeTakeFirst();
    if (Number(removed.numDeletedRows) === 0) throw conflict(ERR.onlyPlanningDeletable);
    emit({ scope: 'project', type: 'sprint.deleted', projectId: project.id, data: { id: sprint.id } });
    return { success: true as const };
  });
}

/**
 * Starts a planning sprint. The partial unique index `sprints_one_active_uq` guarantees one active
 * sprint per project even when two starts commit at the same moment; its violation is the 409.
 */
export async function startSprint(ctx: Ctx, ref: string, sprintId: string, body: StartSprintBody) {
  try {
    return await transact(ctx, async (tx, emit) => {
      const { project } = await projectAccess(ctx, tx, ref);
      const sprint = await sprintInProject(tx, project.id, sprintId);
      if (sprint.status !== 'planning') throw conflict(ERR.sprintNotPlanning);
      const settings = await sprintSettingsRow(tx, project.id);
      const startDate = body?.startDate ?? todayMidnight();
      const endDate = body?.endDate ?? addDays(startDate, 7 * Number(settings.default_sprint_duration));
      checkDates(startDate, endDate, 'endDate');
      const other = await tx
        .selectFrom('sprints')
        .select('id')
        .where('project_id', '=', project.id)
        .where('status', '=', 'active')
        // Not this sprint: a concurrent start of the same sprint may have committed since it was read,
        // and that is "not in planning" (decided by the guarded update below), not "another active".
        .where('id', '!=', sprint.id)
        .executeTakeFirst();
      if (other) throw conflict(ERR.anotherSprintActive);
      const now = nowIso();
      const changes = {
        status: 'active' as const,
        start_date: startDate,
        end_date: endDate,
        started_at: now,
        updated_at: now,
      };
      const done = await tx
        .updateTable('sprints')
        .set(changes)
        .where('id', '=', sprint.id)
        .where('status', '=', 'planning')
        .executeTakeFirst();
      if (Number(done.numUpdatedRows) === 0) throw conflict(ERR.sprintNotPlanning);
      await notifySprint(ctx, tx, emit, project, sprint, 'sprint_started');
      emit({
        scope: 'project',
        type: 'sprint.started',
        projectId: project.id,
        data: presentSprint({ ...sprint, ...changes }),
      });
      return { id: sprint.id, status: 'active' as const, startDate, endDate };
    });
  } catch (err) {
    if (isUniqueViolation(err)) throw conflict(ERR.anotherSprintActive);
    throw err;
  }
}

/**
 * Completes the active sprint. A ticket is complete when its column is a done column. Incomplete
 * tickets move per `incompleteAction`; when it is omitted, `autoCarryOverIncomplete` decides between
 * carrying them over (into `nextSprintId`, else the earliest planning sprint, else a new `Sprint N`)
 * and the backlog.
 */
export async function completeSprint(ctx: Ctx, ref: string, sprintId: string, body: CompleteSprintBody) {
  const actor = actorOf(ctx);
  return transact(ctx, async (tx, emit) => {
    const { project } = await projectAccess(ctx, tx, ref);
    const sprint = await sprintInProject(tx, project.id, sprintId);
    if (sprint.status !== 'active') throw conflict(ERR.sprintNotActive);
    const settings = await sprintSettingsRow(tx, project.id);
    const auto = body?.incompleteAction === undefined;
    const action: IncompleteAction =
      body?.incompleteAction ??
      (Number(settings.auto_carry_over) === 1 ? 'moveToNextSprint' : 'moveToBacklog');
    let next: SprintsTable | null = null;
    if (action === 'moveToNextSprint' && body?.nextSprintId) {
      next =
        (await tx
          .selectFrom('sprints')
          .selectAll()
          .where('project_id', '=', project.id)
          .where('id', '=', body.nextSprintId.toLowerCase())
          .executeTakeFirst()) ?? null;
      if (!next || next.status === 'completed' || next.id === sprint.id) {
        throw invalidField('nextSprintId', SPRINT_ERR.nextSprintInvalid);
      }
    } else if (action === 'moveToNextSprint' && !auto) {
      throw badRequest(ERR.nextSprintRequired);
    }

    const now = nowIso();
    const closed = await tx
      .updateTable('sprints')
      .set({ status: 'completed', completed_at: now, updated_at: now })
      .where('id', '=', sprint.id)
      .where('status', '=', 'active')
      .executeTakeFirst();
    if (Number(closed.numUpdatedRows) === 0) throw conflict(ERR.sprintNotActive);
    await notifySprint(ctx, tx, emit, project, sprint, 'sprint_completed');
    const doneColumns = new Set(await doneColumnIdsOf(tx, project.id));
    const tickets = await tx
      .selectFrom('tickets')
      .select([...TICKET_COLUMNS, 'column_id'])
      .where('sprint_id', '=', sprint.id)
      .orderBy('number')
      .execute();
    const complete = tickets.filter((t) => doneColumns.has(t.column_id));
    const incomplete = tickets.filter((t) => !doneColumns.has(t.column_id));
    const points = (list: typeof tickets) => list.reduce((sum, t) => sum + Number(t.story_points ?? 0), 0);

    for (const t of complete) await closeSprintEntry(tx, t.id, sprint.id, 'completed', now);

    if (action === 'moveToNextSprint' && !next && incomplete.length > 0) {
      next =
        (await tx
          .selectFrom('sprints')
          .selectAll()
          .where('project_id', '=', project.id)
          .where('status', '=', 'planning')
          .where('id', '!=', sprint.id)
          .orderBy('created_at')
          .orderBy('id')
          .executeTakeFirst()) ?? null;
      if (!next) next = await insertSprint(tx, emit, project.id, {});
    }

    if (action === 'moveToNextSprint' && next) {
      const target = next;
      for (const t of incomplete) {
        await recordSprintChange(tx, t, sprint.id, target.id, now, {
          exitStatus: 'carried_over',
          entryType: 'carried_over',
        });
        const count = Number(t.carried_over_count) + 1;
        await tx
          .updateTable('tickets')
          .set({
            sprint_id: target.id,
            is_carried_over: 1,
            carried_from_sprint_id: sprint.id,
            carried_over_count: count,
            updated_at: now,
          })
          .where('id', '=', t.id)
          .execute();
        await historySprint(tx, t.id, sprint.name, target.name, actor.userId, now);
      }
    } else if (action === 'moveToBacklog') {
      for (const t of incomplete) {
        await recordSprintChange(tx, t, sprint.id, null, now, { exitStatus: 'removed' });
        await tx
          .updateTable('tickets')
          .set({ sprint_id: null, updated_at: now })
          .where('id', '=', t.id)
          .execute();
        await historySprint(tx, t.id, sprint.name, null, actor.userId, now);
      }
    }
    // keepInSprint: the tickets stay in the completed sprint and their entries stay open.
    if (action !== 'keepInSprint')
      await emitTicketUpdates(
        tx,
        emit,
        project,
        incomplete.map((t) => t.id),
      );

    const result = {
      id: sprint.id,
      status: 'completed' as const,
      completedTicketCount: complete.length,
      incompleteTicketCount: incomplete.length,
      completedStoryPoints: points(complete),
      incompleteStoryPoints: points(incomplete),
      incompleteAction: action,
      nextSprintId: action === 'moveToNextSprint' && next ? next.id : null,
    };
    emit({
      scope: 'project',
      type: 'sprint.completed',
      projectId: project.id,
      data: {
        ...presentSprint({ ...sprint, status: 'completed', completed_at: now, updated_at: now }),
        ...result,
      },
    });
    return result;
  });
}

/** Moves the end of the active sprint; the new end must not precede its start. */
export async function extendSprint(ctx: Ctx, ref: string, sprintId: string, newEndDate: string) {
  return transact(ctx, async (tx, emit) => {
    const { project } = await projectAccess(ctx, tx, ref);
    const sprint = await sprintInProject(tx, project.id, sprintId);
    if (sprint.status !== 'active') throw conflict(ERR.sprintNotActive);
    checkDates(sprint.start_date, newEndDate, 'newEndDate', SPRINT_ERR.newEndBeforeStart);
    const now = nowIso();
    const done = await tx
      .updateTable('sprints')
      .set({ end_date: newEndDate, updated_at: now })
      .where('id', '=', sprint.id)
      .where('status', '=', 'active')
      .executeTakeFirst();
    if (Number(done.numUpdatedRows) === 0) throw conflict(ERR.sprintNotActive);
    const out = presentSprint({ ...sprint, end_date: newEndDate, updated_at: now });
    emit({ scope: 'project', type: 'sprint.extended', projectId: project.id, data: out });
    return out;
  });
}

export async function getSprintSettings(ctx: Ctx, ref: string) {
  const db = ctx.db.kysely;
  const { project } = await projectAccess(ctx, db, ref);
  return presentSprintSettings(await sprintSettingsRow(db, project.id), await columnIdsOf(db, project.id));
}

/** Changes the project's sprint settings (admin or owner); done columns must be columns of the project. */
export async function updateSprintSettings(ctx: Ctx, ref: string, body: UpdateSprintSettingsBody) {
  return transact(ctx, async (tx) => {
    const { project } = await projectAccess(ctx, tx, ref, 'admin');
    const columns = await columnIdsOf(tx, project.id);
    const current = await sprintSettingsRow(tx, project.id);
    const next: SprintSettingsTable = { ...current };
    if (body.defaultSprintDuration !== undefined) next.default_sprint_duration = body.defaultSprintDuration;
    if (body.autoCarryOverIncomplete !== undefined)
      next.auto_carry_over = body.autoCarryOverIncomplete ? 1 : 0;
    if (body.doneColumnIds !== undefined) {
      const ids = [...new Set(body.doneColumnIds.map((id) => id.toLowerCase()))];
      if (ids.some((id) => !columns.includes(id))) throw invalidField('doneColumnIds', SPRINT_ERR.notAColumn);
      next.done_column_ids = JSON.stringify(ids);
    }
    const exists = await tx
      .selectFrom('sprint_settings')
      .select('project_id')
      .where('project_id', '=', project.id)
      .executeTakeFirst();
    if (exists) {
      await tx
        .updateTable('sprint_settings')
        .set({
          default_sprint_duration: next.default_sprint_duration,
          auto_carry_over: next.auto_carry_over,
          done_column_ids: next.done_column_ids,
        })
        .where('project_id', '=', project.id)
        .execute();
    } else {
      await tx.insertInto('sprint_settings').values(next).execute();
    }
    return presentSprintSettings(next, columns);
  });
}
