import type { ColumnsTable, ProjectsTable, SprintsTable, TicketsTable } from '../db/types.js';
import type { UpdateTicketBody } from '../shared/tickets.js';
import { parseTicketKey } from './access.js';
import type { Tx } from './context.js';
import { invalidField } from './errors.js';

/** The references of a ticket body (people, labels, sprint, parent) checked against the project, and their text in the history. */

export type Person = { id: string; display: string };
export type LabelRef = { id: string; name: string };

/** Body references checked against the project (DECISIONS 5 and 8): a bad one is a 400 naming the field. */
export interface Refs {
  column?: ColumnsTable;
  assignee?: Person | null;
  sprint?: SprintsTable | null;
  parent?: TicketsTable | null;
  labels?: LabelRef[];
  watcherIds?: string[];
}

export type RefBody = Pick<
  UpdateTicketBody,
  'columnId' | 'assigneeId' | 'sprintId' | 'parentId' | 'labelIds' | 'watcherIds'
>;

export const unique = (ids: string[]) => [...new Set(ids.map((i) => i.toLowerCase()))];

export async function memberUsers(tx: Tx, projectId: string, userIds: string[]) {
  if (userIds.length === 0) return [];
  return tx
    .selectFrom('project_members as m')
    .innerJoin('users as u', 'u.id', 'm.user_id')
    .select(['u.id', 'u.username', 'u.name'])
    .where('m.project_id', '=', projectId)
    .where('m.user_id', 'in', userIds)
    .execute();
}

/** A ticket of the project by id or key, or null. */
export async function findTicket(tx: Tx, project: ProjectsTable, ref: string): Promise<TicketsTable | null> {
  const key = parseTicketKey(ref);
  let q = tx.selectFrom('tickets').selectAll().where('project_id', '=', project.id);
  if (key) {
    if (key.projectKey !== project.key) return null;
    q = q.where('number', '=', key.number);
  } else q = q.where('id', '=', ref.toLowerCase());
  return (await q.executeTakeFirst()) ?? null;
}

/** `column`: the column's row when the caller has read it already (ticketAndColumnLocked). */
export async function resolveRefs(
  tx: Tx,
  project: ProjectsTable,
  body: RefBody,
  column?: ColumnsTable,
): Promise<Refs> {
  const refs: Refs = {};
  if (body.columnId !== undefined && column && column.id === body.columnId.toLowerCase())
    refs.column = column;
  else if (body.columnId !== undefined) {
    const col = await tx
      .selectFrom('columns')
      .selectAll()
      .where('project_id', '=', project.id)
      .where('id', '=', body.columnId.toLowerCase())
      .executeTakeFirst();
    if (!col) throw invalidField('columnId', 'Must be a column of this project');
    refs.column = col;
  }
  if (body.assigneeId !== undefined) {
    if (body.assigneeId === null) refs.assignee = null;
    else {
      const [u] = await memberUsers(tx, project.id, [body.assigneeId.toLowerCase()]);
      if (!u) throw invalidField('assigneeId', 'Must be a member of this project');
      refs.assignee = { id: u.id, display: u.name ?? u.username };
    }
  }
  if (body.watcherIds !== undefined) {
    const ids = unique(body.watcherIds);
    const found = await memberUsers(tx, project.id, ids);
    if (found.length !== ids.length)
      throw invalidField('watcherIds', 'Every watcher must be a member of this project');
    refs.watcherIds = ids;
  }
  if (body.labelIds !== undefined) {
    const ids = unique(body.labelIds);
    const found =
      ids.length === 0
        ? []
        : await tx
            .selectFrom('labels')
            .select(['id', 'name'])
            .where('project_id', '=', project.id)
            .where('id', 'in', ids)
            .execute();
    if (found.length !== ids.length)
      throw invalidField('labelIds', 'Every label must be a label of this project');
    refs.labels = found;
  }
  if (body.sprintId !== undefined) {
    if (body.sprintId === null) refs.sprint = null;
    else {
      const s = await tx
        .selectFrom('sprints')
        .selectAll()
        .where('project_id', '=', project.id)
        .where('id', '=', body.sprintId.toLowerCase())
        .executeTakeFirst();
      if (!s) throw invalidField('sprintId', 'Must be a sprint of this project');
      if (s.status === 'completed') throw invalidField('sprintId', 'Must not be a completed sprint');
      refs.sprint = s;
    }
  }
  if (body.parentId !== undefined) {
    if (body.parentId === null) refs.parent = null;
    else {
      const p = await findTicket(tx, project, body.parentId);
      if (!p) throw invalidField('parentId', 'Must be a ticket of this project');
      refs.parent = p;
    }
  }
  return refs;
}

/** Refuses a parent that is the ticket itself or one of its descendants. */
export async function assertNoCycle(tx: Tx, ticketId: string, parent: TicketsTable) {
  let cursor: string | null = parent.id;
  for (let depth = 0; cursor && depth < 10_000; depth++) {
    if (cursor === ticketId)
      throw invalidField('parentId', 'Must not be the ticket itself or one of its subtasks');
    const row: { parent_id: string | null } | undefined = await tx
      .selectFrom('tickets')
      .select('parent_id')
      .where('id', '=', cursor)
      .executeTakeFirst();
    cursor = row?.parent_id ?? null;
  }
}

// --- display strings for history -------------------------------------------------------------

export interface Names {
  status: string | null;
  assignee: string | null;
  sprint: string | null;
  parent: string | null;
  labels: LabelRef[];
}

/**
 * The display strings of many tickets' references, for their history: at most five queries whatever
 * their number, and only for the names `need` asks for.
 */
export async function displayNamesOf(
  tx: Tx,
  tickets: TicketsTable[],
  projectKey: string,
  need: Record<'status' | 'assignee' | 'sprint' | 'parent' | 'labels', boolean>,
) {
  const ids = tickets.map((t) => t.id);
  const some = (key: 'column_id' | 'assignee_id' | 'sprint_id' | 'parent_id', wanted: boolean) =>
    wanted ? [...new Set(tickets.map((t) => t[key]).filter((v): v is string => v !== null))] : [];
  const [cols, users, sprints, parents, labels] = await Promise.all([
    some('column_id', need.status).length
      ? tx
          .selectFrom('columns')
          .select(['id', 'name'])
          .where('id', 'in', some('column_id', need.status))
          .execute()
      : [],
    some('assignee_id', need.assignee).length
      ? tx
          .selectFrom('users')
          .select(['id', 'username', 'name'])
          .where('id', 'in', some('assignee_id', true))
          .execute()
      : [],
    some('sprint_id', need.sprint).length
      ? tx.selectFrom('sprints').select(['id', 'name']).where('id', 'in', some('sprint_id', true)).execute()
      : [],
    some('parent_id', need.parent).length
      ? tx.selectFrom('tickets').select(['id', 'number']).where('id', 'in', some('parent_id', true)).execute()
      : [],
    need.labels
      ? tx
          .selectFrom('ticket_labels as tl')
          .innerJoin('labels as l', 'l.id', 'tl.label_id')
          .select(['tl.ticket_id', 'l.id', 'l.name'])
          .where('tl.ticket_id', 'in', ids)
          .execute()
      : [],
  ]);
  const colName = new Map(cols.map((c) => [c.id, c.name]));
  const userName = new Map(users.map((u) => [u.id, u.name ?? u.username]));
  const sprintName = new Map(sprints.map((s) => [s.id, s.name]));
  const parentKey = new Map(parents.map((p) => [p.id, `${projectKey}-${p.number}`]));
  const out = new Map<string, Names>();
  for (const t of tickets)
    out.set(t.id, {
      status: colName.get(t.column_id) ?? null,
      assignee: (t.assignee_id && userName.get(t.assignee_id)) || null,
      sprint: (t.sprint_id && sprintName.get(t.sprint_id)) || null,
      parent: (t.parent_id && parentKey.get(t.parent_id)) || null,
      labels: [],
    });
  for (const l of labels) out.get(l.ticket_id)?.labels.push({ id: l.id, name: l.name });
  return out;
}

export const labelText = (labels: LabelRef[]) =>
  labels.length === 0
    ? null
    : labels
        .map((l) => l.name)
        .sort((a, b) => a.localeCompare(b))
        .join(', ');
export const str = (v: string | number | null | undefined) =>
  v === null || v === undefined ? null : String(v);
