/**
 * The writing steps of an import, inside the one transaction of the file (run.ts writeFile): the
 * columns, labels and sprints a batch names that do not exist yet, then the batch's tickets with
 * their labels, watchers, comments and remembered source ids. A dry run takes the same steps with
 * `tx` null and writes nothing.
 */
import type { ColumnsTable, ProjectsTable, TicketsTable } from '../../db/types.js';
import type { ImportResult } from '../../shared/imports.js';
import { LIMITS, PALETTE } from '../../shared/limits.js';
import { lockBoard, ranksAtEnd } from '../board-ranks.js';
import type { Ctx, Emit, Tx } from '../context.js';
import { newId, nowIso } from '../ids.js';
import { recordSprintChanges } from '../sprint-membership.js';
import { noteSprintName } from '../sprint-names.js';
import { cut, lower, type Mapper, nearestPoints } from './mapper.js';
import type { Planned } from './plan.js';
import { IMPORT_CHUNK as CHUNK } from './source.js';

/** What the steps share: where they write (tx null: a dry run), and what they count. */
export interface Writer {
  ctx: Ctx;
  tx: Tx | null;
  emit: Emit;
  project: ProjectsTable;
  /** The importing user: the reporter of tickets whose reporter no user matched. */
  actorId: string;
  source: string;
  mapper: Mapper;
  counts: ImportResult['counts'];
}

/** The ticket ids of source ids imported into the project before (from the same source). */
export async function remembered(db: Tx, projectId: string, source: string, ids: string[]) {
  const out = new Map<string, string>();
  for (let i = 0; i < ids.length; i += CHUNK) {
    const rows = await db
      .selectFrom('import_sources')
      .select(['source_id', 'ticket_id'])
      .where('project_id', '=', projectId)
      .where('source', '=', source)
      .where('source_id', 'in', ids.slice(i, i + CHUNK))
      .execute();
    for (const r of rows) out.set(r.source_id, r.ticket_id);
  }
  return out;
}

/** Creates the columns, labels and sprints the batch names that do not exist yet. */
export async function createNames(w: Writer, batch: Planned[]) {
  const { mapper, tx } = w;
  const missing = (names: (string | null)[], known: Map<string, { id: string | null }>) =>
    [...new Set(names.filter((n): n is string => !!n))].filter((n) => !known.get(lower(n))?.id);
  const columns = missing(
    batch.map((p) => p.column),
    mapper.columns,
  );
  const labels = missing(
    batch.flatMap((p) => p.labels),
    mapper.labels,
  );
  const sprints = missing(
    batch.map((p) => p.sprint),
    mapper.sprints,
  );
  w.counts.columns += columns.length;
  w.counts.labels += labels.length;
  if (!tx) {
    for (const n of columns) mapper.columns.set(lower(n), { id: 'new', name: n });
    for (const n of labels) mapper.labels.set(lower(n), { id: 'new', name: n });
    for (const n of sprints) mapper.sprints.set(lower(n), { id: 'new', name: n });
    return;
  }
  if (columns.length) await createColumns(w, tx, columns);
  if (labels.length) await createLabels(w, tx, labels);
  const now = nowIso();
  for (const name of sprints) {
    const id = newId();
    await tx
      .insertInto('sprints')
      .values({
        id,
        project_id: w.project.id,
        name,
        goal: null,
        start_date: null,
        end_date: null,
        status: 'planning',
        budget: null,
        started_at: null,
        completed_at: null,
        created_at: now,
        updated_at: now,
      })
      .execute();
    await noteSprintName(tx, w.project.id, name);
    mapper.sprints.set(lower(name), { id, name });
  }
}

async function createColumns(w: Writer, tx: Tx, names: string[]) {
  const projectId = w.project.id;
  await lockBoard(w.ctx, tx, projectId);
  const ranks = await ranksAtEnd(tx, { table: 'columns', scope: 'project_id', id: projectId }, names.length);
  const now = nowIso();
  const rows: ColumnsTable[] = names.map((name, i) => ({
    id: newId(),
    project_id: projectId,
    name,
    rank: ranks[i],
    created_at: now,
  }));
  await tx.insertInto('columns').values(rows).execute();
  const total = await tx
    .selectFrom('columns')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('project_id', '=', projectId)
    .executeTakeFirstOrThrow();
  rows.forEach((r, i) => {
    w.mapper.columns.set(lower(r.name), { id: r.id, name: r.name });
    w.emit({
      scope: 'project',
      type: 'column.created',
      projectId,
      data: { id: r.id, name: r.name, order: Number(total.n) - rows.length + i },
    });
  });
}

async function createLabels(w: Writer, tx: Tx, names: string[]) {
  const have = w.mapper.labels.size;
  const now = nowIso();
  const rows = names.map((name, i) => ({
    id: newId(),
    project_id: w.project.id,
    name,
    color: PALETTE[(have + i) % PALETTE.length],
    created_at: now,
  }));
  for (let i = 0; i < rows.length; i += CHUNK)
    await tx
      .insertInto('labels')
      .values(rows.slice(i, i + CHUNK))
      .execute();
  for (const r of rows) {
    w.mapper.labels.set(lower(r.name), { id: r.id, name: r.name });
    w.emit({
      scope: 'project',
      type: 'label.created',
      projectId: w.project.id,
      data: { id: r.id, name: r.name, color: r.color },
    });
  }
}

/** Each planned ticket's column and its rank at the end of it. */
async function placesOf(w: Writer, tx: Tx, batch: Planned[]) {
  const byColumn = new Map<string, Planned[]>();
  for (const p of batch) {
    const id = w.mapper.columns.get(lower(p.column))?.id as string;
    byColumn.set(id, [...(byColumn.get(id) ?? []), p]);
  }
  const places = new Map<Planned, { columnId: string; rank: string }>();
  for (const [columnId, list] of byColumn) {
    const keys = await ranksAtEnd(tx, { table: 'tickets', scope: 'column_id', id: columnId }, list.length);
    list.forEach((p, i) => {
      places.set(p, { columnId, rank: keys[i] });
    });
  }
  return places;
}

/** The ticket rows of a batch: the next numbers of the project, each at the end of its column. */
async function ticketRows(w: Writer, tx: Tx, batch: Planned[]): Promise<TicketsTable[]> {
  const places = await placesOf(w, tx, batch);
  const counter = await tx
    .updateTable('projects')
    .set((eb) => ({ ticket_counter: eb('ticket_counter', '+', batch.length) }))
    .where('id', '=', w.project.id)
    .returning('ticket_counter')
    .executeTakeFirstOrThrow();
  const firstNumber = Number(counter.ticket_counter) - batch.length + 1;
  const now = nowIso();
  const short = (v: string | null) => (v ? cut(v, LIMITS.ticketShortFieldMax) : null);
  return batch.map((p, i) => {
    const place = places.get(p) as { columnId: string; rank: string };
    const created = p.rec.createdAt ?? now;
    return {
      id: newId(),
      project_id: w.project.id,
      number: firstNumber + i,
      title: cut(p.rec.title, LIMITS.ticketTitleMax),
      description: p.description,
      type: p.type,
      priority: p.priority,
      column_id: place.columnId,
      rank: place.rank,
      assignee_id: p.assignee?.id ?? null,
      reporter_id: p.reporter?.id ?? w.actorId,
      sprint_id: p.sprint ? (w.mapper.sprints.get(lower(p.sprint))?.id ?? null) : null,
      parent_id: null,
      story_points: nearestPoints(p.rec.storyPoints),
      estimate: short(p.rec.estimate),
      start_date: p.rec.startDate,
      due_date: p.rec.dueDate,
      environment: short(p.rec.environment),
      affected_version: short(p.rec.affectedVersion),
      fix_version: short(p.rec.fixVersion),
      is_carried_over: 0,
      carried_from_sprint_id: null,
      carried_over_count: 0,
      created_at: created,
      updated_at: p.rec.updatedAt ?? created,
    };
  });
}

type Table = 'tickets' | 'ticket_labels' | 'ticket_watchers' | 'comments' | 'import_sources';

async function insertAll(tx: Tx, table: Table, values: Record<string, unknown>[]) {
  for (let i = 0; i < values.length; i += CHUNK)
    await tx
      .insertInto(table)
      .values(values.slice(i, i + CHUNK) as never)
      .execute();
}

/** Writes one batch of planned tickets with everything they carry; answers their ids. */
export async function insertTickets(w: Writer, tx: Tx, batch: Planned[]): Promise<string[]> {
  const tickets = await ticketRows(w, tx, batch);
  const now = nowIso();
  await insertAll(tx, 'tickets', tickets as never);
  await insertAll(
    tx,
    'ticket_labels',
    batch.flatMap((p, i) =>
      p.labels.map((l) => ({
        ticket_id: tickets[i].id,
        label_id: w.mapper.labels.get(lower(l))?.id as string,
      })),
    ),
  );
  await insertAll(
    tx,
    'ticket_watchers',
    tickets.map((t) => ({ ticket_id: t.id, user_id: t.reporter_id as string })),
  );
  await insertAll(
    tx,
    'comments',
    batch.flatMap((p, i) =>
      p.comments.map((c) => ({
        id: newId(),
        ticket_id: tickets[i].id,
        author_id: c.author?.id ?? null,
        author_name: c.authorName,
        content: c.content,
        created_at: c.createdAt,
        updated_at: c.createdAt,
      })),
    ),
  );
  await insertAll(
    tx,
    'import_sources',
    batch.map((p, i) => ({
      project_id: w.project.id,
      source: w.source,
      source_id: p.rec.sourceId,
      ticket_id: tickets[i].id,
      source_key: p.rec.key,
      source_url: p.rec.url,
      created_at: now,
    })),
  );
  const inSprint = tickets.filter((t) => t.sprint_id);
  if (inSprint.length)
    await recordSprintChanges(
      tx,
      inSprint.map((t) => ({ ticket: t, from: null, to: t.sprint_id })),
      now,
    );
  return tickets.map((t) => t.id);
}
