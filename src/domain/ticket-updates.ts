/**
 * Ticket updates, one or many: the same rules for a single PATCH and a bulk update, written in a
 * constant number of statements whatever the number of tickets (the rows, their labels and
 * watchers, history, sprint entries, ranks and events).
 */
import type { z } from 'zod';
import type { ProjectsTable, TicketsTable } from '../db/types.js';
import { ERR } from '../shared/errors.js';
import type { bulkUpdateBody, TicketFullOut, UpdateTicketBody } from '../shared/tickets.js';
import { projectAccess, ticketAndColumnLocked, ticketInProject } from './access.js';
import { lockColumn, placeAt, ranksAtEnd, setRanks } from './board-ranks.js';
import { actorOf, type Ctx, type Emit, type Services, type Tx } from './context.js';
import { conflict, invalidField } from './errors.js';
import { nowIso } from './ids.js';
import { type LinkReader, linkReader, withoutForeignLinks } from './link-visibility.js';
import { notifyTicketsChanged } from './notifications/index.js';
import { presentTicketsFull } from './presenters/tickets.js';
import { transactWrite } from './races.js';
import { recordSprintChanges } from './sprint-membership.js';
import { type Change, writeHistoryOf } from './ticket-history.js';
import {
  assertNoCycle,
  displayNamesOf,
  findTicket,
  labelText,
  type Names,
  type RefBody,
  type Refs,
  resolveRefs,
  str,
} from './ticket-refs.js';

type Fields = Omit<UpdateTicketBody, 'order' | keyof RefBody>;
type Body = Fields & { order?: number };

interface Result {
  id: string;
  moved: boolean;
  /** The ticket's order in its column when the move's reading told it (its full read need not count it). */
  order?: number;
}

const NO_NAMES: Names = { status: null, assignee: null, sprint: null, parent: null, labels: [] };

/**
 * Where a single-ticket move puts `ticket`: its rank (null when it stays where it is) and its order
 * afterwards when the neighbours' reading told it.
 */
async function movePlace(
  s: Services,
  tx: Tx,
  ticket: TicketsTable,
  columnId: string,
  order: number | undefined,
  lockedColumnId: string | undefined,
): Promise<{ rank: string | null; order: number | null }> {
  if (lockedColumnId !== columnId) await lockColumn(s, tx, columnId);
  const list = { table: 'tickets', scope: 'column_id', id: columnId } as const;
  if (columnId !== ticket.column_id) return placeAt(tx, list, order ?? null, null);
  if (order === undefined) return { rank: null, order: null };
  return placeAt(tx, list, order, ticket);
}

/**
 * Applies one update to tickets of one project inside the caller's transaction: fields, references,
 * a move (the moved rows' ranks only), labels, watchers, history and sprint membership. `order`
 * applies to a single ticket; several tickets moving to a column go to its end in the given order.
 */
async function applyUpdates(
  s: Services,
  tx: Tx,
  project: ProjectsTable,
  tickets: TicketsTable[],
  body: Body,
  refs: Refs,
  by: string,
  now: string,
  /** The column whose lock the caller holds already (ticketAndColumnLocked). */
  lockedColumnId?: string,
): Promise<Result[]> {
  // The display names feed the history of the reference fields only: read them when one may change
  // (the status: when a ticket leaves its column, not on a move within it).
  const statusMayChange = refs.column != null && tickets.some((t) => t.column_id !== refs.column?.id);
  const needNames =
    refs.assignee !== undefined ||
    refs.sprint !== undefined ||
    refs.parent !== undefined ||
    statusMayChange ||
    refs.labels !== undefined;
  const names = needNames
    ? await displayNamesOf(tx, tickets, project.key, {
        status: statusMayChange,
        assignee: refs.assignee !== undefined,
        sprint: refs.sprint !== undefined,
        parent: refs.parent !== undefined,
        labels: refs.labels !== undefined,
      })
    : new Map<string, Names>();

  // Moves: the new ranks, chosen under the target column's lock.
  const ranks = new Map<string, string>();
  const target = refs.column ?? null;
  let knownOrder: number | null = null;
  if (tickets.length === 1 && (target || body.order !== undefined)) {
    const [t] = tickets;
    const place = await movePlace(s, tx, t, target?.id ?? t.column_id, body.order, lockedColumnId);
    if (place.rank !== null) ranks.set(t.id, place.rank);
    knownOrder = place.order;
  } else if (target) {
    const movers = tickets.filter((t) => t.column_id !== target.id);
    if (movers.length > 0) {
      await lockColumn(s, tx, target.id);
      const list = { table: 'tickets', scope: 'column_id', id: target.id } as const;
      const fresh = await ranksAtEnd(tx, list, movers.length);
      movers.forEach((t, i) => {
        ranks.set(t.id, fresh[i]);
      });
    }
  }
  if (refs.parent) for (const t of tickets) await assertNoCycle(tx, t.id, refs.parent);
  const watchersBefore =
    refs.watcherIds !== undefined
      ? await watchersOf(
          tx,
          tickets.map((t) => t.id),
        )
      : new Map<string, string[]>();

  // What changes, ticket by ticket (in memory).
  const set: Partial<TicketsTable> = {};
  const results: Result[] = [];
  const history: { ticketId: string; changes: Change[] }[] = [];
  const sprintMoves: { ticket: TicketsTable; from: string | null; to: string | null }[] = [];
  const labelsRemoved: { ticketId: string; labelIds: string[] }[] = [];
  const labelsAdded: { ticket_id: string; label_id: string }[] = [];
  const watchersRemoved: { ticketId: string; userIds: string[] }[] = [];
  const watchersAdded: { ticket_id: string; user_id: string }[] = [];
  const orNull = (v: string | null | undefined) => (v === undefined ? undefined : v || null);
  for (const ticket of tickets) {
    const before = names.get(ticket.id) ?? NO_NAMES;
    const changes: Change[] = [];
    let rowChanged = false;
    const field = <K extends keyof TicketsTable>(
      col: K,
      name: Change['field'],
      value: TicketsTable[K] | undefined,
    ) => {
      if (value === undefined || value === ticket[col]) return;
      set[col] = value;
      rowChanged = true;
      changes.push({ field: name, oldValue: str(ticket[col] as never), newValue: str(value as never) });
    };
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
      rowChanged = true;
      changes.push({
        field: 'assignee',
        oldValue: before.assignee,
        newValue: refs.assignee?.display ?? null,
      });
    }
    if (refs.sprint !== undefined && (refs.sprint?.id ?? null) !== ticket.sprint_id) {
      set.sprint_id = refs.sprint?.id ?? null;
      rowChanged = true;
      changes.push({ field: 'sprint', oldValue: before.sprint, newValue: refs.sprint?.name ?? null });
      sprintMoves.push({ ticket, from: ticket.sprint_id, to: set.sprint_id });
    }
    if (refs.parent !== undefined && (refs.parent?.id ?? null) !== ticket.parent_id) {
      set.parent_id = refs.parent?.id ?? null;
      rowChanged = true;
      changes.push({
        field: 'parent',
        oldValue: before.parent,
        newValue: refs.parent ? `${project.key}-${refs.parent.number}` : null,
      });
    }
    const moved = ranks.has(ticket.id);
    if (moved && target && target.id !== ticket.column_id)
      changes.push({ field: 'status', oldValue: before.status, newValue: target.name });
    if (refs.labels !== undefined) {
      const old = new Set(before.labels.map((l) => l.id));
      const next = new Set(refs.labels.map((l) => l.id));
      const removed = [...old].filter((id) => !next.has(id));
      const added = [...next].filter((id) => !old.has(id));
      if (removed.length > 0) labelsRemoved.push({ ticketId: ticket.id, labelIds: removed });
      for (const label_id of added) labelsAdded.push({ ticket_id: ticket.id, label_id });
      if (removed.length + added.length > 0)
        changes.push({
          field: 'labels',
          oldValue: labelText(before.labels),
          newValue: labelText(refs.labels),
        });
    }
    let watchersChanged = false;
    if (refs.watcherIds !== undefined) {
      const old = new Set(watchersBefore.get(ticket.id) ?? []);
      const next = new Set(refs.watcherIds);
      const removed = [...old].filter((id) => !next.has(id));
      const added = [...next].filter((id) => !old.has(id));
      if (removed.length > 0) watchersRemoved.push({ ticketId: ticket.id, userIds: removed });
      for (const user_id of added) watchersAdded.push({ ticket_id: ticket.id, user_id });
      watchersChanged = removed.length + added.length > 0;
    }
    if (rowChanged || moved || changes.length > 0 || watchersChanged) {
      results.push({ id: ticket.id, moved, ...(knownOrder !== null ? { order: knownOrder } : {}) });
      history.push({ ticketId: ticket.id, changes });
    }
  }
  if (results.length === 0) return results;

  // The writes: each one statement (per 500 rows) for all the tickets.
  const changedIds = results.map((r) => r.id);
  // Every changed ticket gets the same values (they come from one body): writing a value a ticket
  // already had changes nothing, so one statement serves all.
  // One ticket moving: its rank and column go in the same statement.
  const single = changedIds.length === 1 ? ranks.get(changedIds[0]) : undefined;
  if (single !== undefined) {
    set.rank = single;
    if (target) set.column_id = target.id;
  }
  await tx
    .updateTable('tickets')
    .set({ ...set, updated_at: now })
    .where('id', 'in', changedIds)
    .execute();
  if (ranks.size > 0 && single === undefined)
    await setRanks(
      tx,
      [...ranks].map(([id, rank]) => ({ id, rank })),
      target ? { column_id: target.id } : {},
    );
  await removePairs(
    tx,
    'ticket_labels',
    'label_id',
    labelsRemoved.map((r) => [r.ticketId, r.labelIds]),
  );
  if (labelsAdded.length > 0) await tx.insertInto('ticket_labels').values(labelsAdded).execute();
  await removePairs(
    tx,
    'ticket_watchers',
    'user_id',
    watchersRemoved.map((r) => [r.ticketId, r.userIds]),
  );
  if (watchersAdded.length > 0) await tx.insertInto('ticket_watchers').values(watchersAdded).execute();
  await recordSprintChanges(
    tx,
    sprintMoves.map((m) => ({
      ticket: { id: m.ticket.id, story_points: set.story_points ?? m.ticket.story_points },
      from: m.from,
      to: m.to,
    })),
    now,
  );
  await writeHistoryOf(tx, history, by, now);
  return results;
}

/** Removes (ticket, other) pairs: one statement when every ticket loses the same set, else one per ticket. */
async function removePairs(
  tx: Tx,
  table: 'ticket_labels' | 'ticket_watchers',
  other: 'label_id' | 'user_id',
  pairs: [string, string[]][],
) {
  if (pairs.length === 0) return;
  const groups = new Map<string, { tickets: string[]; others: string[] }>();
  for (const [ticketId, others] of pairs) {
    const key = [...others].sort().join(',');
    const g = groups.get(key) ?? { tickets: [], others };
    g.tickets.push(ticketId);
    groups.set(key, g);
  }
  for (const g of groups.values())
    await tx
      .deleteFrom(table as 'ticket_labels')
      .where('ticket_id', 'in', g.tickets)
      .where(other as 'label_id', 'in', g.others)
      .execute();
}

async function watchersOf(tx: Tx, ids: string[]) {
  const rows = await tx
    .selectFrom('ticket_watchers')
    .select(['ticket_id', 'user_id'])
    .where('ticket_id', 'in', ids)
    .execute();
  const out = new Map<string, string[]>();
  for (const r of rows) out.set(r.ticket_id, [...(out.get(r.ticket_id) ?? []), r.user_id]);
  return out;
}

/** Events for the changed tickets (ticket.moved for a move, else ticket.updated), each the moved ticket only. */
export async function emitTickets(
  tx: Tx,
  emit: Emit,
  project: ProjectsTable,
  results: Result[],
  /** Whose answer the views are: links to other projects' tickets show only to their readers. */
  reader: LinkReader,
) {
  const views = await presentTicketsFull(
    tx,
    project.key,
    results.map((r) => r.id),
    reader,
    results.length === 1 ? results[0].order : undefined,
  );
  const moved = new Set(results.filter((r) => r.moved).map((r) => r.id));
  for (const v of views) {
    emit({
      scope: 'project',
      type: moved.has(v.id) ? 'ticket.moved' : 'ticket.updated',
      projectId: project.id,
      // Events reach every member: the project's own links only.
      data: withoutForeignLinks(v, project.key),
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
): Promise<TicketFullOut> {
  const actor = actorOf(ctx);
  return transactWrite(ctx, async (tx, emit) => {
    const { project } = await projectAccess(ctx, tx, projectRef);
    // The ticket's row lock first, then the target column's (createTicket: column, then project);
    // for a move on PostgreSQL both in one statement.
    const moves = body.columnId !== undefined || body.order !== undefined;
    const locked =
      moves && ctx.db.dialect === 'postgres'
        ? await ticketAndColumnLocked(tx, project, ticketRef, body.columnId)
        : null;
    const ticket = locked?.ticket ?? (await ticketInProject(tx, project, ticketRef, ctx));
    if (body.ifUpdatedAt !== undefined && body.ifUpdatedAt !== ticket.updated_at)
      throw conflict(ERR.ticketChangedSince);
    const refs = await resolveRefs(tx, project, body, locked?.column);
    const results = await applyUpdates(
      ctx,
      tx,
      project,
      [ticket],
      body,
      refs,
      actor.userId,
      nowIso(),
      locked?.column.id,
    );
    const reader = linkReader(actor);
    if (results.length === 0) return (await presentTicketsFull(tx, project.key, [ticket.id], reader))[0];
    const [out] = await emitTickets(tx, emit, project, results, reader);
    await notifyTicketsChanged(ctx, tx, emit, project, [ticket], [out]);
    return out;
  });
}

/**
 * Tickets named in a body by id or key; any unknown one is a 400 naming `ticketIds`. With
 * `lockFor` (a write on PostgreSQL) their rows are read again under row locks, in id order.
 */
export async function ticketsForBulk(
  tx: Tx,
  project: ProjectsTable,
  refs: string[],
  lockFor?: Pick<Services, 'db'>,
): Promise<TicketsTable[]> {
  const out = new Map<string, TicketsTable>();
  const rows = (ids: string[]) =>
    tx.selectFrom('tickets').selectAll().where('project_id', '=', project.id).where('id', 'in', ids);
  // Ids in one query; keys (PROJ-12) and misses one by one.
  const byId = new Map(
    (refs.length === 0 ? [] : await rows(refs.map((r) => r.toLowerCase())).execute()).map((t) => [t.id, t]),
  );
  for (const ref of refs) {
    const t = byId.get(ref.toLowerCase()) ?? (await findTicket(tx, project, ref));
    if (!t) throw invalidField('ticketIds', `Not a ticket of this project: ${ref}`);
    out.set(t.id, t);
  }
  if (lockFor?.db.dialect === 'postgres' && out.size > 0) {
    const locked = new Map(
      (
        await rows([...out.keys()])
          .orderBy('id')
          .forUpdate()
          .execute()
      ).map((t) => [t.id, t]),
    );
    for (const [id, t] of out) {
      // Deleted while this waited for its lock: as if it had been gone before.
      const now = locked.get(id);
      if (!now) throw invalidField('ticketIds', `Not a ticket of this project: ${t.id}`);
      out.set(id, now);
    }
  }
  return [...out.values()];
}

/** The same changes to several tickets, all or nothing; one event per changed ticket. */
export async function bulkUpdateTickets(ctx: Ctx, projectRef: string, body: z.infer<typeof bulkUpdateBody>) {
  const actor = actorOf(ctx);
  return transactWrite(ctx, async (tx, emit) => {
    const { project } = await projectAccess(ctx, tx, projectRef);
    const tickets = await ticketsForBulk(tx, project, body.ticketIds, ctx);
    const refs = await resolveRefs(tx, project, body.updates);
    const results = await applyUpdates(ctx, tx, project, tickets, body.updates, refs, actor.userId, nowIso());
    const reader = linkReader(actor);
    const changed = new Set(results.map((r) => r.id));
    const views = await emitTickets(tx, emit, project, results, reader);
    await notifyTicketsChanged(
      ctx,
      tx,
      emit,
      project,
      tickets.filter((t) => changed.has(t.id)),
      views,
    );
    const byId = new Map(views.map((v) => [v.id, v]));
    const unchanged = tickets.filter((t) => !byId.has(t.id)).map((t) => t.id);
    for (const v of await presentTicketsFull(tx, project.key, unchanged, reader)) byId.set(v.id, v);
    return {
      success: true as const,
      updated: results.length,
      tickets: tickets.map((t) => byId.get(t.id)).filter((v) => v !== undefined),
    };
  });
}
