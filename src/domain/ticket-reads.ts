/** The ticket reads of the HTTP API: the board list and the full read, as JSON text through the read cache. */

import { type ExpressionBuilder, sql } from 'kysely';
import { ANY_PROJECT } from '../db/changes.js';
import type { Database, ProjectsTable, TicketsTable } from '../db/types.js';
import { ERR } from '../shared/errors.js';
import type { TicketListQuery } from '../shared/tickets.js';
import { parseTicketKey, projectAccess } from './access.js';
import { readFullJson } from './column-ranks.js';
import { actorOf, type Ctx } from './context.js';
import { notFound } from './errors.js';
import { linkReader, linksForReader, readableProjectKeys } from './link-visibility.js';
import { pageOf } from './paging.js';
import {
  listSelect,
  orderByWindow,
  orderInColumnOf,
  presentTicketList,
  type TicketFull,
} from './presenters/tickets.js';
import { readCache } from './read-cache.js';
import { projectQueryFilter } from './search/search.js';

const escapeLike = (s: string) => `%${s.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/**
 * Tickets of a project in board order (column rank, then ticket rank), filtered, in
 * a constant number of queries whatever their number (the page, its labels and its watchers), as
 * JSON text with their total, for the HTTP route: a board column of 1,000 tickets is half a
 * megabyte of JSON, kept (text and all) while the database is unchanged.
 */
export async function listTicketsJson(ctx: Ctx, projectRef: string, q: TicketListQuery) {
  const { project } = await projectAccess(ctx, ctx.db.kysely, projectRef);
  // A search query may name the caller (`me`, `is:watching`) or today (`due<+7d`).
  const who = q.query ? `:${actorOf(ctx).userId}:${new Date().toISOString().slice(0, 10)}` : '';
  return readCache(ctx.db).get(
    ctx,
    `list:${project.id}:${JSON.stringify(q)}${who}`,
    async () => {
      const { items, total } = await listTicketsOf(ctx, project, q);
      // Kept as the bytes sent: a board column of 1,000 is near a megabyte, and a text would be
      // measured and encoded again for every answer.
      return { json: Buffer.from(JSON.stringify(items)), total };
    },
    () => [`project:${project.id}`, 'users'],
  );
}

/** Tickets of the project in board order, with the query's filters and page, and their total. */
export async function listTicketsOf(ctx: Ctx, project: ProjectsTable, q: TicketListQuery) {
  const db = ctx.db.kysely;
  const searched = q.query ? await projectQueryFilter(ctx, project, q.query) : null;
  const filter = (eb: ExpressionBuilder<Database & { t: TicketsTable }, 't'>) => {
    const conds = [eb('t.project_id', '=', project.id)];
    if (searched) conds.push(searched as unknown as (typeof conds)[number]);
    if (q.sprintId !== undefined)
      conds.push(
        q.sprintId.toLowerCase() === 'none'
          ? eb('t.sprint_id', 'is', null)
          : eb('t.sprint_id', '=', q.sprintId.toLowerCase()),
      );
    if (q.assigneeId !== undefined) {
      const ids = q.assigneeId.map((a) => a.toLowerCase());
      const people = ids.filter((a) => a !== 'none');
      const either = [];
      if (ids.includes('none')) either.push(eb('t.assignee_id', 'is', null));
      if (people.length) either.push(eb('t.assignee_id', 'in', people));
      conds.push(eb.or(either));
    }
    if (q.columnId !== undefined) conds.push(eb('t.column_id', '=', q.columnId.toLowerCase()));
    if (q.type !== undefined) conds.push(eb('t.type', 'in', q.type));
    if (q.priority !== undefined) conds.push(eb('t.priority', 'in', q.priority));
    if (q.parentId !== undefined) {
      const key = parseTicketKey(q.parentId);
      conds.push(
        key
          ? eb(
              't.parent_id',
              'in',
              eb
                .selectFrom('tickets as p')
                .select('p.id')
                .where('p.project_id', '=', project.id)
                .where('p.number', '=', key.number),
            )
          : eb('t.parent_id', '=', q.parentId.toLowerCase()),
      );
    }
    if (q.labelId !== undefined)
      conds.push(
        eb(
          't.id',
          'in',
          eb
            .selectFrom('ticket_labels')
            .select('ticket_id')
            .where(
              'label_id',
              'in',
              q.labelId.map((l) => l.toLowerCase()),
            ),
        ),
      );
    if (q.q) {
      const like = escapeLike(q.q);
      conds.push(
        eb.or([
          eb(sql`lower(t.title)`, 'like', sql`${like} escape '\\'`),
          eb(sql`lower(coalesce(t.description, ''))`, 'like', sql`${like} escape '\\'`),
          eb(
            sql`lower(cast(${project.key} as text) || '-' || cast(t.number as text))`,
            'like',
            sql`${like} escape '\\'`,
          ),
        ]),
      );
    }
    return eb.and(conds);
  };
  const { limit, offset } = pageOf(q);
  // Board order is column rank, then ticket rank. Within one column (the board's own query) the
  // column's rank is constant: the column's rank index gives the order without a join.
  const page =
    q.columnId !== undefined
      ? db.selectFrom('tickets as t').where(filter).orderBy('t.rank')
      : db
          .selectFrom('tickets as t')
          .innerJoin('columns as c', 'c.id', 't.column_id')
          .where(filter)
          .orderBy('c.rank')
          .orderBy('t.rank');
  // `order` is the place among all tickets of the column: numbered in one pass when no filter
  // hides tickets of a column, else counted per ticket on the column's rank index.
  const whole =
    q.sprintId === undefined &&
    q.assigneeId === undefined &&
    q.type === undefined &&
    q.priority === undefined &&
    q.parentId === undefined &&
    q.labelId === undefined &&
    !q.q &&
    !q.query;
  const paged = q.limit !== undefined || q.offset !== undefined;
  const [counted, rows] = await Promise.all([
    // Unpaged, the list is the whole result: its length is the total.
    paged
      ? db
          .selectFrom('tickets as t')
          .where(filter)
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .executeTakeFirstOrThrow()
      : null,
    ctx.db.arrays(
      page
        .leftJoin('users as a', 'a.id', 't.assignee_id')
        .limit(limit)
        .offset(offset)
        .select(listSelect(whole ? orderByWindow : orderInColumnOf(db)))
        .compile(),
    ),
  ]);
  // The page's ids for the batched reads: the list itself when paged (at most 1,000), else the
  // filter alone (no join, no sort), so the number of queries never depends on the size.
  const ids = paged
    ? rows.map((r) => r[0] as string)
    : db.selectFrom('tickets as t').where(filter).select('t.id');
  const items = await presentTicketList(db, project.key, rows, ids);
  return { items, total: counted ? Number(counted.n) : rows.length };
}

/**
 * The full read (base fields plus column, assignee, reporter, sprint, labels, watchers, links and
 * counts) as JSON text, for the HTTP route; kept while the database is unchanged.
 */
export async function getTicketJson(ctx: Ctx, projectRef: string, ticketRef: string): Promise<string> {
  const db = ctx.db.kysely;
  const { project } = await projectAccess(ctx, db, projectRef);
  const key = parseTicketKey(ticketRef);
  if (key && key.projectKey !== project.key) throw notFound(ERR.ticketNotFound);
  const ref = key ? { number: key.number } : { id: ticketRef.toLowerCase() };
  const kept = await readCache(ctx.db).get(
    ctx,
    'number' in ref ? `ticket:${project.id}:#${ref.number}` : `ticket:${project.id}:${ref.id}`,
    // The answer's text, built by the database (presenters/ticket-json.ts).
    () => readFullJson(ctx, project, ref),
    // Links to other projects' tickets show those tickets: any project's change drops the read.
    (v) =>
      v?.foreign.length
        ? [`project:${project.id}`, 'users', ANY_PROJECT]
        : [`project:${project.id}`, 'users'],
  );
  if (kept === null) throw notFound(ERR.ticketNotFound);
  // Most tickets link to no other project: the kept text is the answer. Otherwise the links to
  // projects the reader cannot read are left out (issue 19, finding 1).
  if (kept.foreign.length === 0) return kept.json;
  const reader = linkReader(actorOf(ctx));
  const readable = await readableProjectKeys(db, reader, kept.foreign);
  if (readable.size === kept.foreign.length) return kept.json;
  const [view] = await linksForReader(db, project.key, [JSON.parse(kept.json) as TicketFull], reader);
  return JSON.stringify(view);
}

// --- update ----------------------------------------------------------------------------------
