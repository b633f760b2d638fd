import type { SprintsTable, SprintTicketHistoryTable } from '../db/types.js';
import { SPRINT_MAX_DAYS } from '../shared/sprints.js';
import { projectAccess } from './access.js';
import type { Ctx, Tx } from './context.js';
import { doneColumnIdsOf, sprintInProject } from './sprints.js';

/**
 * Sprint reports, computed from recorded history (docs/decisions/016-sprints.md):
 *
 * - Membership at an instant t: the ticket's `sprint_ticket_history` entries in the sprint, entered
 *   at or before t and not yet exited at t. Tickets added or removed mid-sprint therefore count
 *   only while they were in the sprint. Exits made by the completion itself (completed, carried
 *   over, removed at `completed_at`) still count at the completion instant.
 * - Story points at t: the last `storyPoints` change in the ticket's history at or before t; before
 *   the first change, that change's old value; without changes, the ticket's current points.
 * - Done at t: the ticket's column at t (the `status` history field holds column names, read the
 *   same way) is one of the sprint's done columns (settings, or the last column), matched by the
 *   columns' current names.
 */

const DAY_MS = 86_400_000;

interface TicketState {
  id: string;
  columnId: string;
  storyPoints: number | null;
}

interface FieldChange {
  ticket_id: string;
  field: string;
  old_value: string | null;
  new_value: string | null;
  changed_at: string;
}

/** Everything the reports need about one sprint, loaded in a few queries. */
interface SprintData {
  sprint: SprintsTable;
  entries: SprintTicketHistoryTable[];
  current: Map<string, TicketState>;
  changes: Map<string, FieldChange[]>;
  columnNameToId: Map<string, string>;
  doneColumns: Set<string>;
}

async function loadSprintData(db: Tx, sprint: SprintsTable, doneColumns: Set<string>): Promise<SprintData> {
  const entries = await db
    .selectFrom('sprint_ticket_history')
    .selectAll()
    .where('sprint_id', '=', sprint.id)
    .orderBy('entered_at')
    .orderBy('id')
    .execute();
  const ids = [...new Set(entries.map((e) => e.ticket_id))];
  const current = new Map<string, TicketState>();
  const changes = new Map<string, FieldChange[]>();
  if (ids.length > 0) {
    const tickets = await db
      .selectFrom('tickets')
      .select(['id', 'column_id', 'story_points'])
      .where('id', 'in', ids)
      .execute();
    for (const t of tickets) {
      current.set(t.id, {
        id: t.id,
        columnId: t.column_id,
        storyPoints: t.story_points === null ? null : Number(t.story_points),
      });
    }
    const rows = await db
      .selectFrom('ticket_history')
      .select(['ticket_id', 'field', 'old_value', 'new_value', 'changed_at'])
      .where('ticket_id', 'in', ids)
      .where('field', 'in', ['status', 'storyPoints'])
      .orderBy('changed_at')
      .orderBy('id')
      .execute();
    for (const r of rows) {
      const key = `${r.ticket_id}:${r.field}`;
      const list = changes.get(key) ?? [];
      list.push(r);
      changes.set(key, list);
    }
  }
  const columns = await db
    .selectFrom('columns')
    .select(['id', 'name'])
    .where('project_id', '=', sprint.project_id)
    .execute();
  const columnNameToId = new Map(columns.map((c) => [c.name.toLowerCase(), c.id]));
  return { sprint, entries, current, changes, columnNameToId, doneColumns };
}

/** The value of a tracked field at instant t, from its change list (oldest first). */
function valueAt(list: FieldChange[] | undefined, t: string): { known: boolean; value: string | null } {
  if (!list || list.length === 0) return { known: false, value: null };
  let last: FieldChange | undefined;
  for (const c of list) {
    if (c.changed_at <= t) last = c;
    else break;
  }
  return { known: true, value: last ? last.new_value : list[0].old_value };
}

function pointsAt(d: SprintData, ticketId: string, t: string, entry: SprintTicketHistoryTable): number {
  const v = valueAt(d.changes.get(`${ticketId}:storyPoints`), t);
  if (v.known) {
    const n = v.value === null ? 0 : Number(v.value);
    return Number.isFinite(n) ? n : 0;
  }
  const cur = d.current.get(ticketId);
  return Number(cur ? (cur.storyPoints ?? 0) : (entry.story_points ?? 0));
}

function doneAt(d: SprintData, ticketId: string, t: string): boolean {
  const v = valueAt(d.changes.get(`${ticketId}:status`), t);
  if (v.known) {
    const id = v.value === null ? undefined : d.columnNameToId.get(v.value.toLowerCase());
    return id !== undefined && d.doneColumns.has(id);
  }
  const cur = d.current.get(ticketId);
  return cur ? d.doneColumns.has(cur.columnId) : false;
}

/** Entries of tickets in the sprint at instant t (one per ticket). */
function membersAt(d: SprintData, t: string): SprintTicketHistoryTable[] {
  const completedAt = d.sprint.completed_at;
  const byTicket = new Map<string, SprintTicketHistoryTable>();
  for (const e of d.entries) {
    if (e.entered_at > t) continue;
    const open =
      e.exited_at === null ||
      e.exited_at > t ||
      (completedAt !== null && e.exited_at >= completedAt && t >= completedAt);
    if (open) byTicket.set(e.ticket_id, e);
  }
  return [...byTicket.values()];
}

interface Snapshot {
  scopePoints: number;
  scopeTickets: number;
  remainingPoints: number;
  remainingTickets: number;
  completedPoints: number;
  completedTickets: number;
}

function snapshot(d: SprintData, t: string): Snapshot {
  const s: Snapshot = {
    scopePoints: 0,
    scopeTickets: 0,
    remainingPoints: 0,
    remainingTickets: 0,
    completedPoints: 0,
    completedTickets: 0,
  };
  for (const e of membersAt(d, t)) {
    const points = pointsAt(d, e.ticket_id, t, e);
    s.scopePoints += points;
    s.scopeTickets += 1;
    if (doneAt(d, e.ticket_id, t)) {
      s.completedPoints += points;
      s.completedTickets += 1;
    } else {
      s.remainingPoints += points;
      s.remainingTickets += 1;
    }
  }
  return s;
}

/** The earlier of two ISO timestamps (they compare as strings). */
const earlier = (a: string, b: string) => (a.localeCompare(b) <= 0 ? a : b);

const round = (n: number) => Math.round(n * 100) / 100;

/**
 * Per day of the sprint (start to end date, UTC), the open story points and tickets at the end of
 * that day (or now, for today), and the ideal line: from the points committed at the start down to
 * zero at the end of the last day. Days not reached yet, and days after completion, have nulls.
 */
export async function sprintBurndown(ctx: Ctx, ref: string, sprintId: string) {
  const db = ctx.db.kysely;
  const { project } = await projectAccess(ctx, db, ref);
  const sprint = await sprintInProject(db, project.id, sprintId);
  const data = await loadSprintData(db, sprint, new Set(await doneColumnIdsOf(db, project.id)));
  const now = new Date().toISOString();
  const committedAt = sprint.started_at ?? now;
  const committed = snapshot(data, committedAt);
  const base = {
    sprintId: sprint.id,
    status: sprint.status,
    startDate: sprint.start_date,
    endDate: sprint.end_date,
    committedPoints: committed.scopePoints,
    committedTickets: committed.scopeTickets,
  };
  if (sprint.status === 'planning' || !sprint.start_date || !sprint.end_date) return { ...base, days: [] };
  const start = Date.parse(sprint.start_date);
  const count = Math.min(
    SPRINT_MAX_DAYS + 1,
    Math.max(1, Math.round((Date.parse(sprint.end_date) - start) / DAY_MS) + 1),
  );
  const last = sprint.completed_at ?? now;
  const days = [];
  for (let i = 0; i < count; i++) {
    const dayStart = new Date(start + i * DAY_MS).toISOString();
    const dayEnd = new Date(start + (i + 1) * DAY_MS - 1).toISOString();
    const idealPoints = round((committed.scopePoints * (count - i - 1)) / count);
    const date = dayStart.slice(0, 10);
    // A day is measured when it has begun before the last instant (now, or the completion).
    if (dayStart > last) {
      days.push({
        date,
        remainingPoints: null,
        remainingTickets: null,
        completedPoints: null,
        scopePoints: null,
        idealPoints,
      });
      continue;
    }
    const s = snapshot(data, earlier(dayEnd, last));
    days.push({
      date,
      remainingPoints: s.remainingPoints,
      remainingTickets: s.remainingTickets,
      completedPoints: s.completedPoints,
      scopePoints: s.scopePoints,
      idealPoints,
    });
  }
  return { ...base, days };
}

/**
 * The last `limit` completed sprints (by completion, reported oldest first): points committed at
 * the start, points completed at completion, and how many tickets were carried over.
 */
export async function sprintVelocity(ctx: Ctx, ref: string, limit = 6) {
  const db = ctx.db.kysely;
  const { project } = await projectAccess(ctx, db, ref);
  const doneColumns = new Set(await doneColumnIdsOf(db, project.id));
  const sprints = await db
    .selectFrom('sprints')
    .selectAll()
    .where('project_id', '=', project.id)
    .where('status', '=', 'completed')
    .orderBy('completed_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
  const out = [];
  for (const sprint of sprints.reverse()) {
    const data = await loadSprintData(db, sprint, doneColumns);
    const committed = sprint.started_at
      ? snapshot(data, sprint.started_at)
      : { scopePoints: 0, scopeTickets: 0 };
    let completedPoints = 0;
    let completedTickets = 0;
    let carriedOverCount = 0;
    for (const e of data.entries) {
      if (e.exit_status === 'completed') {
        completedTickets += 1;
        completedPoints += pointsAt(data, e.ticket_id, e.exited_at ?? sprint.completed_at ?? '', e);
      } else if (e.exit_status === 'carried_over') {
        carriedOverCount += 1;
      }
    }
    out.push({
      id: sprint.id,
      name: sprint.name,
      startDate: sprint.start_date,
      endDate: sprint.end_date,
      completedAt: sprint.completed_at,
      committedPoints: committed.scopePoints,
      committedTickets: committed.scopeTickets,
      completedPoints,
      completedTickets,
      carriedOverCount,
    });
  }
  const average =
    out.length === 0 ? 0 : round(out.reduce((sum, s) => sum + s.completedPoints, 0) / out.length);
  return { sprints: out, averageCompletedPoints: average };
}
