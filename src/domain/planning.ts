/**
 * Planning reads: the epics of a project with their children's progress, and the timeline of epics
 * and tickets by start and due date (docs/decisions/051-epics-and-timeline.md). Each is a fixed
 * number of statements whatever the number of epics: the database counts and sums.
 */

import { type ExpressionBuilder, sql } from 'kysely';
import type { Database } from '../db/types.js';
import {
  type EpicOut,
  type EpicsOut,
  type EpicsQuery,
  PLANNING_LIMITS,
  type ProgressOut,
  type TimelineGroupOut,
  type TimelineItemOut,
  type TimelineOut,
  type TimelineQuery,
} from '../shared/planning.js';
import { projectAccess } from './access.js';
import type { Ctx, Tx } from './context.js';
import { presentPerson } from './presenters/users.js';
import { doneColumnIdsOf } from './sprints.js';

type TicketsEb = ExpressionBuilder<Database & { t: Database['tickets'] }, 't'>;

/** Count, done count, points and done points of the tickets `where` selects, by `groupBy` when given. */
function progressQuery(db: Tx, done: string[]) {
  const isDone = (eb: TicketsEb) => (done.length > 0 ? eb('t.column_id', 'in', done) : sql<boolean>`1 = 0`);
  return db
    .selectFrom('tickets as t')
    .select((eb) => [
      eb.fn.countAll<number | string>().as('total'),
      eb.fn.sum<number | string | null>(eb.case().when(isDone(eb)).then(1).else(0).end()).as('done'),
      eb.fn.sum<number | string | null>(eb.fn.coalesce('t.story_points', sql<number>`0`)).as('points'),
      eb.fn
        .sum<number | string | null>(
          eb.case().when(isDone(eb)).then(eb.fn.coalesce('t.story_points', sql<number>`0`)).else(0).end(),
        )
        .as('done_points'),
    ]);
}

const progressOf = (row?: {
  total: number | string;
  done: number | string | null;
  points: number | string | null;
  done_points: number | string | null;
}): ProgressOut => ({
  total: Number(row?.total ?? 0),
  done: Number(row?.done ?? 0),
  points: Number(row?.points ?? 0),
  donePoints: Number(row?.done_points ?? 0),
});

/** Tickets with their column's name and assignee: what both planning reads show of a ticket. */
const ticketRows = (db: Tx) =>
  db
    .selectFrom('tickets as t')
    .innerJoin('columns as c', 'c.id', 't.column_id')
    .leftJoin('users as u', 'u.id', 't.assignee_id')
    .select([
      't.id',
      't.number',
      't.title',
      't.type',
      't.priority',
      't.parent_id',
      't.column_id',
      't.story_points',
      't.start_date',
      't.due_date',
      'c.name as column_name',
      'u.id as user_id',
      'u.username',
      'u.name as user_name',
      'u.avatar',
    ]);
type TicketRow = Awaited<ReturnType<ReturnType<typeof ticketRows>['execute']>>[number];

const assigneeOf = (r: TicketRow) => presentPerson(r.user_id, r.username, r.user_name, r.avatar);

/**
 * The project's epics by number, a page at a time (at most `PLANNING_LIMITS.epicsMax`), each with
 * its direct children counted by number and points, done and not; and the same for the top-level
 * tickets of no epic. Four statements: the done columns, the page and its total, the children's
 * sums grouped by epic, the sums of the rest.
 */
export async function listEpics(ctx: Ctx, ref: string, q: EpicsQuery): Promise<EpicsOut> {
  const db = ctx.db.kysely;
  const { project } = await projectAccess(ctx, db, ref);
  const done = await doneColumnIdsOf(db, project.id);
  const doneSet = new Set(done);
  const limit = q.limit ?? PLANNING_LIMITS.epicsMax;
  const offset = q.offset ?? 0;
  const [rows, count, children, rest] = await Promise.all([
    ticketRows(db)
      .where('t.project_id', '=', project.id)
      .where('t.type', '=', 'Epic')
      .orderBy('t.number')
      .limit(limit)
      .offset(offset)
      .execute(),
    db
      .selectFrom('tickets')
      .select((eb) => eb.fn.countAll<number | string>().as('n'))
      .where('project_id', '=', project.id)
      .where('type', '=', 'Epic')
      .executeTakeFirstOrThrow(),
    progressQuery(db, done)
      .select('t.parent_id')
      .where('t.project_id', '=', project.id)
      .where('t.parent_id', 'in', (eb) =>
        eb
          .selectFrom('tickets as e')
          .select('e.id')
          .where('e.project_id', '=', project.id)
          .where('e.type', '=', 'Epic')
          .orderBy('e.number')
          .limit(limit)
          .offset(offset),
      )
      .groupBy('t.parent_id')
      .execute(),
    progressQuery(db, done)
      .where('t.project_id', '=', project.id)
      .where('t.parent_id', 'is', null)
      .where('t.type', '<>', 'Epic')
      .executeTakeFirst(),
  ]);
  const byEpic = new Map(children.map((c) => [c.parent_id, c]));
  const epics: EpicOut[] = rows.map((r) => ({
    id: r.id,
    key: `${project.key}-${r.number}`,
    number: r.number,
    title: r.title,
    priority: r.priority,
    columnId: r.column_id,
    columnName: r.column_name,
    isDone: doneSet.has(r.column_id),
    storyPoints: r.story_points,
    startDate: r.start_date,
    dueDate: r.due_date,
    assignee: assigneeOf(r),
    children: progressOf(byEpic.get(r.id)),
  }));
  return { epics, total: Number(count.n), limit, offset, noEpic: progressOf(rest) };
}

/**
 * Epics and tickets whose days meet the window `[from, to]`: a ticket with both dates when
 * `start <= to` and `due >= from` (either order of the two is read as the span between them), with
 * one date when that day is in the window; none: not on the timeline. Grouped under their epic
 * (their parent, when it is an epic; an epic outside the window still heads its tickets' group),
 * epics by their first day, the tickets of no epic last. At most `PLANNING_LIMITS.timelineMax`
 * items, the earliest first, `truncated` when more met the window.
 */
export async function timeline(ctx: Ctx, ref: string, q: TimelineQuery): Promise<TimelineOut> {
  const db = ctx.db.kysely;
  const { project } = await projectAccess(ctx, db, ref);
  const doneSet = new Set(await doneColumnIdsOf(db, project.id));
  const { from, to } = q;
  const max = PLANNING_LIMITS.timelineMax;
  const rows = await ticketRows(db)
    .leftJoin('tickets as p', 'p.id', 't.parent_id')
    .select('p.type as parent_type')
    .where('t.project_id', '=', project.id)
    .where((eb) =>
      eb.or([
        eb.and([
          eb('t.start_date', 'is not', null),
          eb('t.due_date', 'is not', null),
          eb.or([
            eb.and([eb('t.start_date', '<=', to), eb('t.due_date', '>=', from)]),
            eb.and([eb('t.due_date', '<=', to), eb('t.start_date', '>=', from)]),
          ]),
        ]),
        eb.and([eb('t.due_date', 'is', null), eb('t.start_date', '>=', from), eb('t.start_date', '<=', to)]),
        eb.and([eb('t.start_date', 'is', null), eb('t.due_date', '>=', from), eb('t.due_date', '<=', to)]),
      ]),
    )
    .orderBy(sql`coalesce(t.start_date, t.due_date)`)
    .orderBy('t.number')
    .limit(max + 1)
    .execute();
  const truncated = rows.length > max;
  const kept = rows.slice(0, max);
  const item = (r: TicketRow): TimelineItemOut => ({
    id: r.id,
    key: `${project.key}-${r.number}`,
    title: r.title,
    type: r.type,
    parentId: r.parent_id,
    columnId: r.column_id,
    isDone: doneSet.has(r.column_id),
    storyPoints: r.story_points,
    startDate: r.start_date,
    dueDate: r.due_date,
    assignee: assigneeOf(r),
  });
  const groups = new Map<string, TimelineGroupOut>();
  for (const r of kept)
    if (r.type === 'Epic') groups.set(r.id, { epic: { ...item(r), inWindow: true }, tickets: [] });
  const tickets = kept.filter((r) => r.type !== 'Epic');
  const epicOf = (r: (typeof kept)[number]) => (r.parent_type === 'Epic' ? r.parent_id : null);
  const missing = [...new Set(tickets.map(epicOf))].filter((id): id is string => !!id && !groups.has(id));
  if (missing.length > 0) {
    const heads = await ticketRows(db)
      .where('t.project_id', '=', project.id)
      .where('t.id', 'in', missing)
      .execute();
    for (const h of heads) groups.set(h.id, { epic: { ...item(h), inWindow: false }, tickets: [] });
  }
  const none: TimelineGroupOut = { epic: null, tickets: [] };
  for (const r of tickets) (groups.get(epicOf(r) ?? '') ?? none).tickets.push(item(r));
  const first = (g: TimelineGroupOut) =>
    g.epic?.startDate ?? g.epic?.dueDate ?? g.tickets[0]?.startDate ?? g.tickets[0]?.dueDate ?? '';
  const ordered = [...groups.values()].sort(
    (a, b) =>
      first(a).localeCompare(first(b)) || a.epic!.key.localeCompare(b.epic!.key, 'en', { numeric: true }),
  );
  if (none.tickets.length > 0) ordered.push(none);
  return { from, to, groups: ordered, truncated };
}
