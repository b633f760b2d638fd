import { PostgresAdapter, type RawBuilder, type SelectQueryBuilder, sql } from 'kysely';
import { jsonRows, parseJsonRows } from '../../db/json.js';
import type { Database, TicketsTable } from '../../db/types.js';
import { INVERSE_LINK, type LinkOut, type LinkType } from '../../shared/tickets.js';
import type { Tx } from '../context.js';
import { type LinkReader, linksForReader } from '../link-visibility.js';
import { arg, runPrepared } from '../prepared.js';
import { avatarUrl, DELETED_USER } from './users.js';

type IdSource = readonly string[] | SelectQueryBuilder<Database, any, { id: string }>;

/** A ticket row with its 0-based place in its column, computed from the ranks (`ord`). */
export type RankedTicket = Omit<TicketsTable, 'rank'> & { ord: number | string };

/**
 * The ticket's `order`: the number of tickets ranked before it in its column (an index range
 * count; docs/decisions/033-board-ranks.md).
 */
export const orderInColumn: RawBuilder<number> = sql<number>`(select count(*) from tickets o where o.column_id = t.column_id and o.rank < t.rank)`;

/**
 * PostgreSQL: the same counted from the column's end, from the column's total that migration 089's
 * triggers keep (`column_ticket_counts`): a new ticket is at the end, so its create counts the few
 * tickets after it instead of the whole column (decision 033, "A create's order from the column's end").
 */
const orderFromColumnEnd: RawBuilder<number> = sql<number>`cast((select k.n from column_ticket_counts k where k.column_id = t.column_id) - 1 - (select count(*) from tickets o where o.column_id = t.column_id and o.rank > t.rank) as integer)`;

/**
 * PostgreSQL: the same through the column's blocks of about 100 consecutive ranks, whose counts the
 * triggers of migration 090 keep: the counts of the blocks before the ticket's, plus the tickets of
 * its own block ranked before it (under 200). Counting every ticket before it checked the heap row
 * of each one written since the last vacuum: 2 to 20 ms for the middle of a column of 1,000, most of
 * an uncached full read (docs/perf-read-path-notes.md).
 */
const orderFromBlocks: RawBuilder<number> = sql<number>`(select cast(coalesce((select sum(b.n) from column_rank_blocks b where b.column_id = t.column_id and b.lo < k.lo), 0) + (select count(*) from tickets o where o.column_id = t.column_id and o.rank >= k.lo and o.rank < t.rank) as integer) from (select coalesce((select b.lo from column_rank_blocks b where b.column_id = t.column_id and b.lo <= t.rank order by b.lo desc limit 1), '') as lo) k)`;

/** The ticket's `order` as the database at hand counts it best (orderInColumn, or orderFromBlocks). */
export const orderInColumnOf = (tx: Tx): RawBuilder<number> =>
  tx.getExecutor().adapter instanceof PostgresAdapter ? orderFromBlocks : orderInColumn;

/** The same for every row of an unfiltered board read, in one pass over the sorted rows. */
export const orderByWindow: RawBuilder<number> = sql<number>`row_number() over (partition by t.column_id order by t.rank) - 1`;

/** The fields every ticket read has (SPEC "Ticket"); optional fields are null when empty. */
export const presentTicketBase = (t: RankedTicket, projectKey: string) => ({
  id: t.id,
  number: t.number,
  key: `${projectKey}-${t.number}`,
  title: t.title,
  description: t.description,
  type: t.type,
  priority: t.priority,
  order: Number(t.ord),
  columnId: t.column_id,
  assigneeId: t.assignee_id,
  reporterId: t.reporter_id,
  sprintId: t.sprint_id,
  parentId: t.parent_id,
  storyPoints: t.story_points,
  estimate: t.estimate,
  startDate: t.start_date,
  dueDate: t.due_date,
  environment: t.environment,
  affectedVersion: t.affected_version,
  fixVersion: t.fix_version,
  isCarriedOver: t.is_carried_over === 1,
  carriedFromSprintId: t.carried_from_sprint_id,
  carriedOverCount: t.carried_over_count,
  projectId: t.project_id,
  createdAt: t.created_at,
  updatedAt: t.updated_at,
});

type Person = { id: string; name: string; avatar: string | null };
const person = (
  id: string | null,
  username: string | null,
  name: string | null,
  avatar: string | null,
): Person | null => (id && username ? { id, name: name ?? username, avatar: avatarUrl(avatar) } : null);

const inIds = (ids: IdSource) => ids as never;

function pushTo<T>(map: Map<string, T[]>, key: string, value: T) {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

/** Labels of many tickets in one query, by ticket id, each list by name. */
const labelsQuery = (tx: Tx, ids: IdSource) =>
  tx
    .selectFrom('ticket_labels as tl')
    .innerJoin('labels as l', 'l.id', 'tl.label_id')
    .select(['tl.ticket_id', 'l.id', 'l.name', 'l.color'])
    .where('tl.ticket_id', 'in', inIds(ids))
    .orderBy('l.name');

/** One ticket: the prepared query (the full read's hot path); several: the builder. */
const isOne = (ids: IdSource): ids is readonly [string] => Array.isArray(ids) && ids.length === 1;

async function labelsOf(tx: Tx, ids: IdSource) {
  const rows = isOne(ids)
    ? await runPrepared(tx, 'ticket-labels-1', (db) => labelsQuery(db, [arg(0)]), ids)
    : await labelsQuery(tx, ids).execute();
  const out = new Map<string, { id: string; name: string; color: string }[]>();
  for (const r of rows) {
    pushTo(out, r.ticket_id, { id: r.id, name: r.name, color: r.color });
  }
  return out;
}

/** Watchers of many tickets in one query, by ticket id. */
const watchersQuery = (tx: Tx, ids: IdSource) =>
  tx
    .selectFrom('ticket_watchers as w')
    .innerJoin('users as u', 'u.id', 'w.user_id')
    .select(['w.ticket_id', 'u.id', 'u.username', 'u.name', 'u.avatar'])
    .where('w.ticket_id', 'in', inIds(ids))
    .orderBy('u.username');

async function watchersOf(tx: Tx, ids: IdSource) {
  const rows = isOne(ids)
    ? await runPrepared(tx, 'ticket-watchers-1', (db) => watchersQuery(db, [arg(0)]), ids)
    : await watchersQuery(tx, ids).execute();
  const out = new Map<string, Person[]>();
  for (const r of rows) {
    pushTo(out, r.ticket_id, { id: r.id, name: r.name ?? r.username, avatar: avatarUrl(r.avatar) });
  }
  return out;
}

/** Watcher ids of many tickets in one query (the list needs no names). */
async function watcherIdsOf(tx: Tx, ids: IdSource) {
  const rows = await tx
    .selectFrom('ticket_watchers')
    .select(['ticket_id', 'user_id'])
    .where('ticket_id', 'in', inIds(ids))
    .orderBy('ticket_id')
    .orderBy('user_id')
    .execute();
  const out = new Map<string, string[]>();
  for (const r of rows) pushTo(out, r.ticket_id, r.user_id);
  return out;
}

export type LinkView = LinkOut;

/** Links of many tickets in one query; each as seen from that ticket (the inverse type from the target side). */
/** The link rows of the tickets: one table, so cheap to plan; most tickets have none. */
const linkRowsQuery = (tx: Tx, ids: readonly string[]) =>
  tx
    .selectFrom('ticket_links as k')
    .select(['k.id', 'k.link_type', 'k.source_ticket_id', 'k.target_ticket_id'])
    .where((eb) => eb.or([eb('k.source_ticket_id', 'in', ids), eb('k.target_ticket_id', 'in', ids)]))
    .orderBy('k.created_at')
    .orderBy('k.id');

/** The tickets at the ends of links, with their project keys (any project). */
const linkedTicketsQuery = (tx: Tx, ids: readonly string[]) =>
  tx
    .selectFrom('tickets as t')
    .innerJoin('projects as p', 'p.id', 't.project_id')
    .select(['t.id', 't.number', 'p.key', 't.title', 't.type', 't.priority', 't.column_id'])
    .where('t.id', 'in', ids);

export async function linksOf(tx: Tx, ids: readonly string[]) {
  const out = new Map<string, LinkView[]>();
  if (ids.length === 0) return out;
  const links = isOne(ids)
    ? await runPrepared(tx, 'ticket-links-1', (db) => linkRowsQuery(db, [arg(0)]), ids)
    : await linkRowsQuery(tx, ids).execute();
  if (links.length === 0) return out;
  const ends = [...new Set(links.flatMap((l) => [l.source_ticket_id, l.target_ticket_id]))];
  const tickets = new Map((await linkedTicketsQuery(tx, ends).execute()).map((t) => [t.id, t]));
  const view = (id: string) => {
    const t = tickets.get(id);
    return t
      ? {
          id: t.id,
          key: `${t.key}-${t.number}`,
          title: t.title,
          type: t.type,
          priority: t.priority,
          columnId: t.column_id,
        }
      : null;
  };
  const wanted = new Set(ids);
  for (const l of links) {
    const type = l.link_type as LinkType;
    const source = view(l.source_ticket_id);
    const target = view(l.target_ticket_id);
    if (!source || !target) continue;
    if (wanted.has(l.source_ticket_id))
      pushTo(out, l.source_ticket_id, { id: l.id, linkType: type, ticket: target });
    if (wanted.has(l.target_ticket_id))
      pushTo(out, l.target_ticket_id, { id: l.id, linkType: INVERSE_LINK[type], ticket: source });
  }
  return out;
}

export type TicketListItem = ReturnType<typeof presentTicketBase> & {
  labelIds: string[];
  watcherIds: string[];
  labels: { id: string; name: string; color: string }[];
  assignee: Person | null;
};

/**
 * The list's select list, in the order `listRow` reads it: the list fetches its rows as arrays
 * (Db.arrays), since building an object per row in the driver costs as much as the query.
 */
export const listSelect = (order: RawBuilder<number>) =>
  [
    't.id',
    't.project_id',
    't.number',
    't.title',
    't.description',
    't.type',
    't.priority',
    't.column_id',
    order.as('ord'),
    't.assignee_id',
    't.reporter_id',
    't.sprint_id',
    't.parent_id',
    't.story_points',
    't.estimate',
    't.start_date',
    't.due_date',
    't.environment',
    't.affected_version',
    't.fix_version',
    't.is_carried_over',
    't.carried_from_sprint_id',
    't.carried_over_count',
    't.created_at',
    't.updated_at',
    'a.username as a_username',
    'a.name as a_name',
    'a.avatar as a_avatar',
  ] as const;

type ListRow = RankedTicket & { a_username: string | null; a_name: string | null; a_avatar: string | null };

/** One row of listSelect as an object (a literal of fixed shape: cheap, unlike the driver's). */
const listRow = (r: unknown[]): ListRow =>
  ({
    id: r[0],
    project_id: r[1],
    number: Number(r[2]),
    title: r[3],
    description: r[4],
    type: r[5],
    priority: r[6],
    column_id: r[7],
    ord: Number(r[8]),
    assignee_id: r[9],
    reporter_id: r[10],
    sprint_id: r[11],
    parent_id: r[12],
    story_points: r[13] === null ? null : Number(r[13]),
    estimate: r[14],
    start_date: r[15],
    due_date: r[16],
    environment: r[17],
    affected_version: r[18],
    fix_version: r[19],
    is_carried_over: Number(r[20]),
    carried_from_sprint_id: r[21],
    carried_over_count: Number(r[22]),
    created_at: r[23],
    updated_at: r[24],
    a_username: r[25],
    a_name: r[26],
    a_avatar: r[27],
  }) as ListRow;

/**
 * The list shape, for any number of tickets in a constant number of queries: `rows` are the
 * tickets (listSelect, in order), `ids` the same tickets' ids for the batched reads.
 */
export async function presentTicketList(
  tx: Tx,
  projectKey: string,
  rows: unknown[][],
  ids: IdSource,
): Promise<TicketListItem[]> {
  if (rows.length === 0) return [];
  const [labels, watchers] = await Promise.all([labelsOf(tx, ids), watcherIdsOf(tx, ids)]);
  return rows.map((r) => {
    const t = listRow(r);
    const ls = labels.get(t.id) ?? [];
    // Extending the base object instead of spreading it: no copy of ~30 fields per ticket.
    const item = presentTicketBase(t, projectKey) as TicketListItem;
    item.labelIds = ls.map((l) => l.id);
    item.watcherIds = watchers.get(t.id) ?? [];
    item.labels = ls;
    item.assignee = person(t.assignee_id, t.a_username, t.a_name, t.a_avatar);
    return item;
  });
}

type FullFilter =
  | { ids: readonly string[] }
  | { projectId: string; id: string; number?: undefined }
  | { projectId: string; number: number };

/** The full read's rows; `order` is the ticket's order in its column (counted, unless given). */
const fullQuery = (tx: Tx, order: RawBuilder<number> = orderInColumnOf(tx)) =>
  tx
    .selectFrom('tickets as t')
    .innerJoin('columns as c', 'c.id', 't.column_id')
    .leftJoin('users as a', 'a.id', 't.assignee_id')
    .leftJoin('users as r', 'r.id', 't.reporter_id')
    .leftJoin('sprints as s', 's.id', 't.sprint_id')
    .selectAll('t')
    .select((eb) => [
      order.as('ord'),
      'c.name as c_name',
      'a.username as a_username',
      'a.name as a_name',
      'a.avatar as a_avatar',
      'r.username as r_username',
      'r.name as r_name',
      'r.avatar as r_avatar',
      's.name as s_name',
      eb
        .selectFrom('attachments')
        .select((e) => e.fn.countAll<number>().as('n'))
        .whereRef('attachments.ticket_id', '=', 't.id')
        .as('attachment_count'),
      eb
        .selectFrom('comments')
        .select((e) => e.fn.countAll<number>().as('n'))
        .whereRef('comments.ticket_id', '=', 't.id')
        .as('comment_count'),
    ]);

function fullRows(tx: Tx, f: FullFilter) {
  if ('ids' in f) return fullQuery(tx).where('t.id', 'in', f.ids).execute();
  if (f.number !== undefined) {
    return runPrepared(
      tx,
      'ticket-full-by-number',
      (db) => fullQuery(db).where('t.project_id', '=', arg(0)).where('t.number', '=', arg<number>(1)),
      [f.projectId, f.number],
    );
  }
  return runPrepared(
    tx,
    'ticket-full-by-id',
    (db) => fullQuery(db).where('t.project_id', '=', arg(0)).where('t.id', '=', arg(1)),
    [f.projectId, f.id],
  );
}

async function presentFullRows(tx: Tx, projectKey: string, rows: Awaited<ReturnType<typeof fullRows>>) {
  const ids = rows.map((r) => r.id);
  const [labels, watchers, links] = await Promise.all([
    labelsOf(tx, ids),
    watchersOf(tx, ids),
    linksOf(tx, ids),
  ]);
  return rows.map((t) =>
    fullView(t, projectKey, labels.get(t.id) ?? [], watchers.get(t.id) ?? [], links.get(t.id) ?? []),
  );
}

type FullRow = Awaited<ReturnType<typeof fullRows>>[number];

/** One full read from its row and its lists. */
function fullView(
  t: FullRow,
  projectKey: string,
  ls: { id: string; name: string; color: string }[],
  ws: Person[],
  links: LinkView[],
) {
  // Plain property reads: object rest on wide rows is many times slower.
  return {
    ...presentTicketBase(t, projectKey),
    labelIds: ls.map((l) => l.id),
    watcherIds: ws.map((w) => w.id),
    column: { id: t.column_id, name: t.c_name },
    assignee: person(t.assignee_id, t.a_username, t.a_name, t.a_avatar),
    reporter: person(t.reporter_id, t.r_username, t.r_name, t.r_avatar) ?? { ...DELETED_USER },
    sprint: t.sprint_id && t.s_name !== null ? { id: t.sprint_id, name: t.s_name } : null,
    labels: ls,
    watchers: ws.map(({ id, name }) => ({ id, name })),
    links,
    attachmentCount: Number(t.attachment_count ?? 0),
    commentCount: Number(t.comment_count ?? 0),
  };
}

/**
 * The full read of one ticket in one statement: its row, column, people, sprint and counts, and
 * its labels, watchers and links as JSON built by the database (src/db/json.ts).
 */
const fullOneQuery = (tx: Tx, order?: RawBuilder<number>) =>
  fullQuery(tx, order).select([
    jsonRows(
      tx,
      [sql`l.id`, sql`l.name`, sql`l.color`],
      sql`from ticket_labels tl join labels l on l.id = tl.label_id where tl.ticket_id = t.id`,
      sql`l.name`,
    ).as('labels_json'),
    jsonRows(
      tx,
      [sql`u.id`, sql`u.username`, sql`u.name`, sql`u.avatar`],
      sql`from ticket_watchers w join users u on u.id = w.user_id where w.ticket_id = t.id`,
      sql`u.username`,
    ).as('watchers_json'),
    // Each link as seen from this ticket: whether it is the source, and the ticket at the other end.
    jsonRows(
      tx,
      [
        sql`k.id`,
        sql`k.link_type`,
        sql`case when k.source_ticket_id = t.id then 1 else 0 end`,
        sql`o.id`,
        sql`p.key`,
        sql`o.number`,
        sql`o.title`,
        sql`o.type`,
        sql`o.priority`,
        sql`o.column_id`,
      ],
      sql`from ticket_links k join tickets o on o.id = case when k.source_ticket_id = t.id then k.target_ticket_id else k.source_ticket_id end join projects p on p.id = o.project_id where k.source_ticket_id = t.id or k.target_ticket_id = t.id`,
      sql`k.created_at, k.id`,
    ).as('links_json'),
  ]);

type LinkCells = [string, string, number, string, string, number, string, string, string, string];

function presentOneRow(
  t: FullRow & { labels_json: unknown; watchers_json: unknown; links_json: unknown },
  projectKey: string,
) {
  const labels = parseJsonRows<[string, string, string]>(t.labels_json).map(([id, name, color]) => ({
    id,
    name,
    color,
  }));
  const watchers = parseJsonRows<[string, string, string | null, string | null]>(t.watchers_json).map(
    ([id, username, name, avatar]) => ({ id, name: name ?? username, avatar: avatarUrl(avatar) }),
  );
  const links = parseJsonRows<LinkCells>(t.links_json).map(
    ([id, type, isSource, otherId, key, number, title, ticketType, priority, columnId]): LinkView => ({
      id,
      linkType: Number(isSource) === 1 ? (type as LinkType) : INVERSE_LINK[type as LinkType],
      ticket: {
        id: otherId,
        key: `${key}-${number}`,
        title,
        type: ticketType,
        priority,
        columnId,
      } as LinkView['ticket'],
    }),
  );
  return fullView(t, projectKey, labels, watchers, links);
}

/**
 * Full reads of tickets of one project (event payloads, bulk answers), batched, in the order given.
 * Links to other projects' tickets show only to a reader of those projects; with no reader (event
 * payloads) they are left out (src/domain/link-visibility.ts).
 */
export async function presentTicketsFull(
  tx: Tx,
  projectKey: string,
  ticketIds: readonly string[],
  reader: LinkReader | null = null,
  /**
   * One ticket's order in its column, when the caller knows it (a move read its neighbours), or
   * 'nearEnd' for a ticket at or near its column's end (a create): the read then does not count the
   * tickets before it, which in a long column is most of its cost. ('nearEnd' counts from the end on
   * PostgreSQL, from the start on SQLite, where the count reads the index alone.)
   */
  knownOrder?: number | 'nearEnd',
) {
  if (ticketIds.length === 0) return [];
  // One ticket (most writes): one statement, its lists built by the database, as the GET reads it.
  const one = async () =>
    knownOrder === 'nearEnd' && tx.getExecutor().adapter instanceof PostgresAdapter
      ? runPrepared(
          tx,
          'ticket-one-near-end',
          (db) => fullOneQuery(db, orderFromColumnEnd).where('t.id', '=', arg(0)),
          [ticketIds[0]],
        )
      : knownOrder === undefined || knownOrder === 'nearEnd'
        ? runPrepared(tx, 'ticket-one-by-ticket-id', (db) => fullOneQuery(db).where('t.id', '=', arg(0)), [
            ticketIds[0],
          ])
        : runPrepared(
            tx,
            'ticket-one-at-order',
            (db) =>
              fullOneQuery(db, sql<number>`cast(${arg<number>(1)} as integer)`).where('t.id', '=', arg(0)),
            [ticketIds[0], knownOrder],
          );
  const all =
    ticketIds.length === 1
      ? (await one()).map((row) => presentOneRow(row, projectKey))
      : await presentFullRows(tx, projectKey, await fullRows(tx, { ids: ticketIds }));
  const views = await linksForReader(tx, projectKey, all, reader);
  const byId = new Map(views.map((v) => [v.id, v]));
  return ticketIds.map((id) => byId.get(id)).filter((x) => x !== undefined);
}
export type TicketFull = Awaited<ReturnType<typeof presentTicketsFull>>[number];
