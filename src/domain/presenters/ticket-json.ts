import { PostgresAdapter, type RawBuilder, sql } from 'kysely';
import { INVERSE_LINK, LINK_TYPES } from '../../shared/enums.js';
import type { Tx } from '../context.js';
import { arg, runPrepared } from '../prepared.js';
import { orderInColumnOf } from './tickets.js';
import { DELETED_USER } from './users.js';

/**
 * The full read of one ticket as the JSON text it is answered with, built by the database in the
 * statement that reads it (issue 47, decision 062): the GET of a ticket. The rows, people, lists
 * and counts are those of the presenter in tickets.ts (`presentTicketsFull`, which the writes' own
 * answers and events use), field for field: test/ticket-json.test.ts holds the two to the same
 * answers. Building the text in the database saves the driver an object of forty columns, the
 * presenter its objects and the server a JSON.stringify: the uncached read's statement gives its
 * answer.
 *
 * The text has no `order`: the caller puts it first (`withOrder`), from the statement's `ord` or
 * from SQLite's kept ranks (src/domain/column-ranks.ts).
 */

const AVATAR_PREFIX = '/uploads/avatars/';

/** PostgreSQL: a record as compact JSON text (json_build_object would put spaces around every colon). */
const pgObject = (fields: [string, string][]) =>
  `(select row_to_json(x) from (select ${fields.map(([k, v]) => `${v} as "${k}"`).join(', ')}) x)`;
/** SQLite: the same with json_object (a nested JSON value wrapped in json() stays JSON). */
const sqliteObject = (fields: [string, string][]) =>
  `json_object(${fields.map(([k, v]) => `'${k}', ${v}`).join(', ')})`;

/** The type a link has as seen from its target: the inverse (INVERSE_LINK), as a CASE. */
const inverseType = `case k.link_type ${LINK_TYPES.map((t) => `when '${t}' then '${INVERSE_LINK[t]}'`).join(' ')} end`;

function fullJsonSql(pg: boolean): { json: string; foreign: string } {
  const obj = pg ? pgObject : sqliteObject;
  // SQLite: a subquery's JSON text is a string unless json() says it is JSON; PostgreSQL's json is.
  const nested = (expr: string) => (pg ? expr : `json(${expr})`);
  const bool = (expr: string) => (pg ? `(${expr})` : `json(case when ${expr} then 'true' else 'false' end)`);
  /** A JSON array of `value` over the rows of `from`, in the order of `orders`; `[]` when none. */
  const list = (value: string, from: string, orders: string[]) =>
    pg
      ? `(select coalesce(json_agg(y.v order by ${orders.map((_, i) => `y.o${i}`).join(', ')}), '[]'::json) from (select ${value} as v, ${orders.map((o, i) => `${o} as o${i}`).join(', ')} ${from}) y)`
      : `json((select json_group_array(${value} order by ${orders.join(', ')}) ${from}))`;
  const avatar = (u: string) =>
    `case when ${u}.avatar is null then null else '${AVATAR_PREFIX}' || ${u}.avatar end`;
  const person = (u: string, col: string) =>
    `case when t.${col} is not null and ${u}.username is not null then ${obj([
      ['id', `t.${col}`],
      ['name', `coalesce(${u}.name, ${u}.username)`],
      ['avatar', avatar(u)],
    ])} end`;
  const deleted = obj([
    ['id', 'null'],
    ['name', `'${DELETED_USER.name}'`],
    ['avatar', 'null'],
  ]);
  const labelsFrom = 'from ticket_labels tl join labels l on l.id = tl.label_id where tl.ticket_id = t.id';
  const watchersFrom = 'from ticket_watchers w join users u on u.id = w.user_id where w.ticket_id = t.id';
  // Each link as seen from this ticket, with the ticket at its other end (which exists: the join).
  const linksFrom =
    'from ticket_links k join tickets o on o.id = case when k.source_ticket_id = t.id then k.target_ticket_id else k.source_ticket_id end join projects p on p.id = o.project_id where k.source_ticket_id = t.id or k.target_ticket_id = t.id';
  const link = obj([
    ['id', 'k.id'],
    ['linkType', `case when k.source_ticket_id = t.id then k.link_type else ${inverseType} end`],
    [
      'ticket',
      nested(
        obj([
          ['id', 'o.id'],
          ['key', `p.key || '-' || o.number`],
          ['title', 'o.title'],
          ['type', 'o.type'],
          ['priority', 'o.priority'],
          ['columnId', 'o.column_id'],
        ]),
      ),
    ],
  ]);
  const fields: [string, string][] = [
    ['id', 't.id'],
    ['number', 't.number'],
    ['key', `pr.key || '-' || t.number`],
    ['title', 't.title'],
    ['description', 't.description'],
    ['type', 't.type'],
    ['priority', 't.priority'],
    ['columnId', 't.column_id'],
    ['assigneeId', 't.assignee_id'],
    ['reporterId', 't.reporter_id'],
    ['sprintId', 't.sprint_id'],
    ['parentId', 't.parent_id'],
    ['storyPoints', 't.story_points'],
    ['estimate', 't.estimate'],
    ['startDate', 't.start_date'],
    ['dueDate', 't.due_date'],
    ['environment', 't.environment'],
    ['affectedVersion', 't.affected_version'],
    ['fixVersion', 't.fix_version'],
    ['isCarriedOver', bool('t.is_carried_over = 1')],
    ['carriedFromSprintId', 't.carried_from_sprint_id'],
    ['carriedOverCount', 't.carried_over_count'],
    ['projectId', 't.project_id'],
    ['createdAt', 't.created_at'],
    ['updatedAt', 't.updated_at'],
    ['labelIds', list('l.id', labelsFrom, ['l.name'])],
    ['watcherIds', list('u.id', watchersFrom, ['u.username'])],
    [
      'column',
      nested(
        obj([
          ['id', 't.column_id'],
          ['name', 'c.name'],
        ]),
      ),
    ],
    ['assignee', nested(person('a', 'assignee_id'))],
    ['reporter', nested(`coalesce(${person('r', 'reporter_id')}, ${deleted})`)],
    [
      'sprint',
      nested(
        `case when t.sprint_id is not null and s.name is not null then ${obj([
          ['id', 't.sprint_id'],
          ['name', 's.name'],
        ])} end`,
      ),
    ],
    [
      'labels',
      list(
        obj([
          ['id', 'l.id'],
          ['name', 'l.name'],
          ['color', 'l.color'],
        ]),
        labelsFrom,
        ['l.name'],
      ),
    ],
    [
      'watchers',
      list(
        obj([
          ['id', 'u.id'],
          ['name', 'coalesce(u.name, u.username)'],
        ]),
        watchersFrom,
        ['u.username'],
      ),
    ],
    ['links', list(link, linksFrom, ['k.created_at', 'k.id'])],
    ['attachmentCount', '(select count(*) from attachments where ticket_id = t.id)'],
    ['commentCount', '(select count(*) from comments where ticket_id = t.id)'],
  ];
  // The keys of the other projects whose tickets it links to (the reader may not see them all).
  const foreign = pg
    ? `(select json_agg(distinct p.key)::text ${linksFrom} and o.project_id <> t.project_id)`
    : `(select json_group_array(distinct p.key) ${linksFrom} and o.project_id <> t.project_id)`;
  return { json: pg ? `${obj(fields)}::text` : obj(fields), foreign };
}

const texts = { pg: fullJsonSql(true), sqlite: fullJsonSql(false) };

/** The full read's statement: its JSON, order (or 0 with `unordered`), column, rank, foreign keys. */
const fullJsonQuery = (tx: Tx, unordered: boolean) => {
  const pg = tx.getExecutor().adapter instanceof PostgresAdapter;
  const order: RawBuilder<number> = unordered ? sql<number>`0` : orderInColumnOf(tx);
  return tx
    .selectFrom('tickets as t')
    .innerJoin('projects as pr', 'pr.id', 't.project_id')
    .innerJoin('columns as c', 'c.id', 't.column_id')
    .leftJoin('users as a', 'a.id', 't.assignee_id')
    .leftJoin('users as r', 'r.id', 't.reporter_id')
    .leftJoin('sprints as s', 's.id', 't.sprint_id')
    .select([
      sql.raw<string>(pg ? texts.pg.json : texts.sqlite.json).as('json'),
      sql.raw<string | null>(pg ? texts.pg.foreign : texts.sqlite.foreign).as('foreign_keys'),
      order.as('ord'),
      't.column_id',
      't.rank',
    ]);
};

export interface TicketJson {
  /** The answer's text, without `order`. */
  json: string;
  ord: number;
  columnId: string;
  rank: string;
  /** Keys of other projects whose tickets its links show. */
  foreign: string[];
}

/**
 * The full read of one ticket of the project by id or number as JSON text, or null. With
 * `unordered` the statement counts nothing (`ord` 0): the caller knows a cheaper way.
 */
export async function readTicketJson(
  tx: Tx,
  projectId: string,
  ref: { id: string } | { number: number },
  unordered = false,
): Promise<TicketJson | null> {
  const name = `ticket-json-by-${'number' in ref ? 'number' : 'id'}${unordered ? '-unordered' : ''}`;
  const [row] = await runPrepared(
    tx,
    name,
    (db) =>
      'number' in ref
        ? fullJsonQuery(db, unordered)
            .where('t.project_id', '=', arg(0))
            .where('t.number', '=', arg<number>(1))
        : fullJsonQuery(db, unordered).where('t.project_id', '=', arg(0)).where('t.id', '=', arg(1)),
    [projectId, 'number' in ref ? ref.number : ref.id],
  );
  if (!row) return null;
  return {
    json: row.json,
    ord: Number(row.ord),
    columnId: row.column_id,
    rank: row.rank,
    foreign: row.foreign_keys ? (JSON.parse(row.foreign_keys) as string[]) : [],
  };
}

/** The answer's text with its `order` put first. */
export const withOrder = (json: string, order: number) => `{"order":${order},${json.slice(1)}`;
