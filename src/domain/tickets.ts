import type { z } from 'zod';
import type { ColumnsTable, ProjectsTable, TicketsTable } from '../db/types.js';
import { removeStoredFiles } from '../files/uploads.js';
import type { bulkUpdateBody, CreateTicketBody, UpdateTicketBody } from '../shared/tickets.js';
import { projectAccess, ticketInProject } from './access.js';
import { compactTicketPositions, lockBoard, shiftPositions } from './board-positions.js';
import { actorOf, type Ctx, type Emit, type Tx, transact } from './context.js';
import { invalidField } from './errors.js';
import { newId, nowIso } from './ids.js';
import { notifyTicketChanged, notifyTicketCreated } from './notifications/index.js';
import { presentTicketsFull, type TicketFull } from './presenters/tickets.js';
import { DEFAULT_COLUMNS } from './projects.js';
import { transactWrite } from './races.js';
import { recordSprintChange } from './sprint-membership.js';
import { type Change, writeHistory } from './ticket-history.js';
import {
  assertNoCycle,
  displayNames,
  findTicket,
  type LabelRef,
  labelText,
  type RefBody,
  type Refs,
  resolveRefs,
  str,
  unique,
} from './ticket-refs.js';

// --- create ----------------------------------------------------------------------------------

async function firstColumn(tx: Tx, projectId: string): Promise<ColumnsTable> {
  const col = await tx
    .selectFrom('columns')
    .selectAll()
    .where('project_id', '=', projectId)
    .orderBy('position')
    .executeTakeFirst();
  if (col) return col;
  const now = nowIso();
  const rows = DEFAULT_COLUMNS.map((name, i) => ({
    id: newId(),
    project_id: projectId,
    name,
    position: i,
    created_at: now,
  }));
  await tx.insertInto('columns').values(rows).execute();
  return rows[0];
}

async function countInColumn(tx: Tx, columnId: string): Promise<number> {
  const r = await tx
    .selectFrom('tickets')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('column_id', '=', columnId)
    .executeTakeFirstOrThrow();
  return Number(r.n);
}

/**
 * Creates a ticket at the end of its column. The number comes from the project's counter,
 * incremented in this transaction (`update … returning`, which holds the project row's lock on
 * PostgreSQL until commit), so numbers are strictly increasing, never reused, and unique under
 * concurrent creation; the unique (project_id, number) constraint backs it.
 */
export async function createTicket(ctx: Ctx, projectRef: string, body: CreateTicketBody) {
  const actor = actorOf(ctx);
  return transactWrite(ctx, async (tx, emit) => {
    const { project } = await projectAccess(ctx, tx, projectRef);
    // First the counter: on PostgreSQL this takes the project row's lock (the board lock), so the
    // references below are checked against a board no one else is changing.
    const counter = await tx
      .updateTable('projects')
      .set((eb) => ({ ticket_counter: eb('ticket_counter', '+', 1) }))
      .where('id', '=', project.id)
      .returning('ticket_counter')
      .executeTakeFirstOrThrow();
    const refs = await resolveRefs(tx, project, body);
    const column = refs.column ?? (await firstColumn(tx, project.id));
    const now = nowIso();
    const row: TicketsTable = {
      id: newId(),
      project_id: project.id,
      number: Number(counter.ticket_counter),
      title: body.title,
      description: body.description ?? null,
      type: body.type ?? 'Task',
      priority: body.priority ?? 'Medium',
      column_id: column.id,
      position: await countInColumn(tx, column.id),
      assignee_id: refs.assignee?.id ?? null,
      reporter_id: actor.userId,
      sprint_id: refs.sprint?.id ?? null,
      parent_id: refs.parent?.id ?? null,
      story_points: body.storyPoints ?? null,
      estimate: body.estimate || null,
      start_date: body.startDate ?? null,
      due_date: body.dueDate ?? null,
      environment: body.environment || null,
      affected_version: body.affectedVersion || null,
      fix_version: body.fixVersion || null,
      is_carried_over: 0,
      carried_from_sprint_id: null,
      carried_over_count: 0,
      created_at: now,
      updated_at: now,
    };
    await tx.insertInto('tickets').values(row).execute();
    if (refs.labels?.length) {
      await tx
        .insertInto('ticket_labels')
        .values(refs.labels.map((l) => ({ ticket_id: row.id, label_id: l.id })))
        .execute();
    }
    const watchers = unique([...(refs.watcherIds ?? []), actor.userId]);
    await tx
      .insertInto('ticket_watchers')
      .values(watchers.map((user_id) => ({ ticket_id: row.id, user_id })))
      .execute();
    await recordSprintChange(tx, row, null, row.sprint_id, now);
    await notifyTicketCreated(ctx, tx, emit, project, row);
    const [out] = await presentTicketsFull(tx, project.key, [row.id]);
    emit({ scope: 'project', type: 'ticket.created', projectId: project.id, data: out });
    return out;
  });
}

// --- read ------------------------------------------------------------------------------------

type Fields = Omit<UpdateTicketBody, 'order' | keyof RefBody>;

interface Applied {
  changed: boolean;
  moved: boolean;
}

/**
 * Applies one update to one ticket inside the caller's transaction (the board is locked): fields,
 * references, a move (columnId and/or order, shifting the neighbours), labels, watchers, history
 * and sprint membership.
 */
async function applyUpdate(
  tx: Tx,
  project: ProjectsTable,
  ticket: TicketsTable,
  body: Fields & { order?: number },
  refs: Refs,
  by: string,
  now: string,
): Promise<Applied> {
  // The display names feed the history of the reference fields only: read them when one may change
  // (a bulk change of priority for 100 tickets spent most of its time here).
  const needNames =
    refs.assignee !== undefined ||
    refs.sprint !== undefined ||
    refs.parent !== undefined ||
    refs.column != null ||
    refs.labels !== undefined;
  const before = needNames
    ? await displayNames(tx, ticket, project.key)
    : { status: null, assignee: null, sprint: null, parent: null, labels: [] as LabelRef[] };
  const set: Partial<TicketsTable> = {};
  const changes: Change[] = [];
  const field = <K extends keyof TicketsTable>(
    col: K,
    name: Change['field'],
    value: TicketsTable[K] | undefined,
    show: (v: TicketsTable[K]) => string | null = (v) => str(v as never),
  ) => {
    if (value === undefined || value === ticket[col]) return;
    set[col] = value;
    changes.push({ field: name, oldValue: show(ticket[col]), newValue: show(value) });
  };
  const orNull = (v: string | null | undefined) => (v === undefined ? undefined : v || null);
  field('title', 'title', body.title);
  field('description', 'description', body.description);
  field('type', 'type', body.type);
  field('priority', 'priority', body.priority);
  field('story_points', 'storyPoints', body.storyPoints);
  field('estimate', 'estimate', orNull(body.estimate));
  field('start_date', 'startDate', body.startDate);
  field('due_date', 'dueDate', body.dueDate);
  field('environment', 'environment', orNull(body.environment));
  field('affected_version', 'affectedVersion', orNull(body.affectedVersion));
  field('fix_version', 'fixVersion', orNull(body.fixVersion));
  if (refs.assignee !== undefined && (refs.assignee?.id ?? null) !== ticket.assignee_id) {
    set.assignee_id = refs.assignee?.id ?? null;
    changes.push({ field: 'assignee', oldValue: before.assignee, newValue: refs.assignee?.display ?? null });
  }
  if (refs.sprint !== undefined && (refs.sprint?.id ?? null) !== ticket.sprint_id) {
    set.sprint_id = refs.sprint?.id ?? null;
    changes.push({ field: 'sprint', oldValue: before.sprint, newValue: refs.sprint?.name ?? null });
  }
  if (refs.parent !== undefined && (refs.parent?.id ?? null) !== ticket.parent_id) {
    if (refs.parent) await assertNoCycle(tx, ticket.id, refs.parent);
    set.parent_id = refs.parent?.id ?? null;
    changes.push({
      field: 'parent',
      oldValue: before.parent,
      newValue: refs.parent ? `${project.key}-${refs.parent.number}` : null,
    });
  }

  // The move: columnId and/or order; orders in both columns stay 0..n-1.
  let moved = false;
  const target = refs.column ?? null;
  if (target && target.id !== ticket.column_id) {
    await shiftPositions(
      tx,
      { table: 'tickets', scope: 'column_id', id: ticket.column_id },
      ticket.position,
      null,
    );
    const count = await countInColumn(tx, target.id);
    const to = Math.min(body.order ?? count, count);
    await shiftPositions(tx, { table: 'tickets', scope: 'column_id', id: target.id }, null, to);
    set.column_id = target.id;
    set.position = to;
    changes.push({ field: 'status', oldValue: before.status, newValue: target.name });
    moved = true;
  } else if (body.order !== undefined && body.order !== ticket.position) {
    const count = await countInColumn(tx, ticket.column_id);
    const to = Math.min(body.order, count - 1);
    await shiftPositions(
      tx,
      { table: 'tickets', scope: 'column_id', id: ticket.column_id },
      ticket.position,
      to,
    );
    if (to !== ticket.position) {
      set.position = to;
      moved = true;
    }
  }

  if (refs.labels !== undefined) {
    const old = new Set(before.labels.map((l) => l.id));
    const next = new Set(refs.labels.map((l) => l.id));
    const removed = [...old].filter((id) => !next.has(id));
    const added = [...next].filter((id) => !old.has(id));
    if (removed.length > 0)
      await tx
        .deleteFrom('ticket_labels')
        .where('ticket_id', '=', ticket.id)
        .where('label_id', 'in', removed)
        .execute();
    if (added.length > 0)
      await tx
        .insertInto('ticket_labels')
        .values(added.map((label_id) => ({ ticket_id: ticket.id, label_id })))
        .execute();
    if (removed.length + added.length > 0)
      changes.push({ field: 'labels', oldValue: labelText(before.labels), newValue: labelText(refs.labels) });
  }
  let watchersChanged = false;
  if (refs.watcherIds !== undefined) {
    const rows = await tx
      .selectFrom('ticket_watchers')
      .select('user_id')
      .where('ticket_id', '=', ticket.id)
      .execute();
    const old = new Set(rows.map((r) => r.user_id));
    const next = new Set(refs.watcherIds);
    const removed = [...old].filter((id) => !next.has(id));
    const added = [...next].filter((id) => !old.has(id));
    if (removed.length > 0)
      await tx
        .deleteFrom('ticket_watchers')
        .where('ticket_id', '=', ticket.id)
        .where('user_id', 'in', removed)
        .execute();
    if (added.length > 0)
      await tx
        .insertInto('ticket_watchers')
        .values(added.map((user_id) => ({ ticket_id: ticket.id, user_id })))
        .execute();
    watchersChanged = removed.length + added.length > 0;
  }

  const changed = Object.keys(set).length > 0 || changes.length > 0 || watchersChanged;
  if (!changed) return { changed: false, moved: false };
  set.updated_at = now;
  await tx.updateTable('tickets').set(set).where('id', '=', ticket.id).execute();
  if (set.sprint_id !== undefined) {
    await recordSprintChange(
      tx,
      { id: ticket.id, story_points: set.story_points ?? ticket.story_points },
      ticket.sprint_id,
      set.sprint_id,
      now,
    );
  }
  await writeHistory(tx, ticket.id, changes, by, now);
  return { changed: true, moved };
}

async function emitTickets(
  tx: Tx,
  emit: Emit,
  project: ProjectsTable,
  results: { id: string; moved: boolean }[],
) {
  const views = await presentTicketsFull(
    tx,
    project.key,
    results.map((r) => r.id),
  );
  const moved = new Set(results.filter((r) => r.moved).map((r) => r.id));
  for (const v of views) {
    emit({
      scope: 'project',
      type: moved.has(v.id) ? 'ticket.moved' : 'ticket.updated',
      projectId: project.id,
      data: v,
    });
  }
  return views;
}

/** Changes any fields; `columnId` and `order` move it (ticket.moved), anything else is ticket.updated. */
export async function updateTicket(
  ctx: Ctx,
  projectRef: string,
  ticketRef: string,
  body: UpdateTicketBody,
): Promise<TicketFull> {
  const actor = actorOf(ctx);
  return transactWrite(ctx, async (tx, emit) => {
    const { project } = await projectAccess(ctx, tx, projectRef);
    await lockBoard(ctx, tx, project.id);
    const ticket = await ticketInProject(tx, project, ticketRef);
    const refs = await resolveRefs(tx, project, body);
    const result = await applyUpdate(tx, project, ticket, body, refs, actor.userId, nowIso());
    if (!result.changed) return (await presentTicketsFull(tx, project.key, [ticket.id]))[0];
    await notifyTicketChanged(ctx, tx, emit, project, ticket);
    const [out] = await emitTickets(tx, emit, project, [{ id: ticket.id, moved: result.moved }]);
    return out;
  });
}

/** Tickets named in a body by id or key; any unknown one is a 400 naming `ticketIds`. */
async function ticketsForBulk(tx: Tx, project: ProjectsTable, refs: string[]): Promise<TicketsTable[]> {
  const out = new Map<string, TicketsTable>();
  // Ids in one query; keys (PROJ-12) and misses one by one.
  const byId = new Map(
    (refs.length === 0
      ? []
      : await tx
          .selectFrom('tickets')
          .selectAll()
          .where('project_id', '=', project.id)
          .where(
            'id',
            'in',
            refs.map((r) => r.toLowerCase()),
          )
          .execute()
    ).map((t) => [t.id, t]),
  );
  for (const ref of refs) {
    const t = byId.get(ref.toLowerCase()) ?? (await findTicket(tx, project, ref));
    if (!t) throw invalidField('ticketIds', `Not a ticket of this project: ${ref}`);
    out.set(t.id, t);
  }
  return [...out.values()];
}

/** The same changes to several tickets, all or nothing; one event per ticket. */
export async function bulkUpdateTickets(ctx: Ctx, projectRef: string, body: z.infer<typeof bulkUpdateBody>) {
  const actor = actorOf(ctx);
  return transactWrite(ctx, async (tx, emit) => {
    const { project } = await projectAccess(ctx, tx, projectRef);
    await lockBoard(ctx, tx, project.id);
    const tickets = await ticketsForBulk(tx, project, body.ticketIds);
    const refs = await resolveRefs(tx, project, body.updates);
    const now = nowIso();
    const results: { id: string; moved: boolean }[] = [];
    const moves = body.updates.columnId !== undefined || 'order' in body.updates;
    for (const t of tickets) {
      // Re-read: an earlier move in this batch may have shifted this ticket's position.
      const fresh = moves
        ? await tx.selectFrom('tickets').selectAll().where('id', '=', t.id).executeTakeFirstOrThrow()
        : t;
      const r = await applyUpdate(tx, project, fresh, body.updates, refs, actor.userId, now);
      if (r.changed) results.push({ id: t.id, moved: r.moved });
      if (r.changed) await notifyTicketChanged(ctx, tx, emit, project, fresh);
    }
    await emitTickets(tx, emit, project, results);
    const views = await presentTicketsFull(
      tx,
      project.key,
      tickets.map((t) => t.id),
    );
    return { success: true as const, updated: results.length, tickets: views };
  });
}

// --- delete ----------------------------------------------------------------------------------

/** Deletes tickets inside the caller's transaction: detaches subtasks, closes the gaps, returns file names. */
async function removeTickets(
  tx: Tx,
  emit: Emit,
  project: ProjectsTable,
  tickets: TicketsTable[],
  by: string,
) {
  const ids = tickets.map((t) => t.id);
  const files = await tx
    .selectFrom('attachments')
    .select('stored_name')
    .where('ticket_id', 'in', ids)
    .execute();
  const children = await tx
    .selectFrom('tickets')
    .select(['id', 'parent_id'])
    .where('parent_id', 'in', ids)
    .where('id', 'not in', ids)
    .execute();
  const now = nowIso();
  if (children.length > 0) {
    await tx
      .updateTable('tickets')
      .set({ parent_id: null, updated_at: now })
      .where(
        'id',
        'in',
        children.map((c) => c.id),
      )
      .execute();
    const numbers = new Map(tickets.map((t) => [t.id, `${project.key}-${t.number}`]));
    for (const c of children) {
      await writeHistory(
        tx,
        c.id,
        [{ field: 'parent', oldValue: numbers.get(c.parent_id ?? '') ?? null, newValue: null }],
        by,
        now,
      );
    }
  }
  await tx.deleteFrom('tickets').where('id', 'in', ids).execute();
  await compactTicketPositions(tx, [...new Set(tickets.map((t) => t.column_id))]);
  await emitTickets(
    tx,
    emit,
    project,
    children.map((c) => ({ id: c.id, moved: false })),
  );
  for (const id of ids)
    emit({ scope: 'project', type: 'ticket.deleted', projectId: project.id, data: { id } });
  return files.map((f) => f.stored_name);
}

export async function deleteTicket(ctx: Ctx, projectRef: string, ticketRef: string) {
  const actor = actorOf(ctx);
  const files = await transact(ctx, async (tx, emit) => {
    const { project } = await projectAccess(ctx, tx, projectRef);
    await lockBoard(ctx, tx, project.id);
    const ticket = await ticketInProject(tx, project, ticketRef);
    return removeTickets(tx, emit, project, [ticket], actor.userId);
  });
  await removeStoredFiles(ctx, 'attachments', files);
  return { success: true as const };
}

export async function bulkDeleteTickets(ctx: Ctx, projectRef: string, ticketIds: string[]) {
  const actor = actorOf(ctx);
  const { files, deleted } = await transact(ctx, async (tx, emit) => {
    const { project } = await projectAccess(ctx, tx, projectRef);
    await lockBoard(ctx, tx, project.id);
    const tickets = await ticketsForBulk(tx, project, ticketIds);
    return { files: await removeTickets(tx, emit, project, tickets, actor.userId), deleted: tickets.length };
  });
  await removeStoredFiles(ctx, 'attachments', files);
  return { success: true as const, deleted };
}
