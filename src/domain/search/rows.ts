/**
 * The search rows (migration 086: the full-text index's own row of each ticket, with a copy of the
 * columns that conditions and sort orders read), the sort keys and cursors of a search, and the
 * page read from them (docs/decisions/038-search.md).
 */
import { type Kysely, type RawBuilder, sql } from 'kysely';
import { wordsWithFacets } from '../../db/search-facets.js';
import type { SearchOut } from '../../shared/search.js';
import type { Ctx } from '../context.js';
import { invalidField } from '../errors.js';
import { listSelect, orderInColumn, presentTicketList } from '../presenters/tickets.js';
import { titleDoc } from './compile.js';

/** The list's select list, `order` counted per ticket (a search hides other tickets of the column). */
const LIST_SELECT = listSelect(orderInColumn);

/**
 * The ticket columns a search row copies, under the tickets' names: migration 086 made them (its
 * own list stays as it was written, like every migration's).
 */
export const SEARCH_ROW_COLUMNS = [
  'project_id',
  'number',
  'type',
  'priority',
  'column_id',
  'assignee_id',
  'reporter_id',
  'sprint_id',
  'parent_id',
  'story_points',
  'due_date',
  'created_at',
  'updated_at',
] as const;
export const ROW_COLUMNS = sql.raw(SEARCH_ROW_COLUMNS.join(', '));
/** SQLite: the search row standing for the ticket as `t`, its integer id as `t.rid`. */
export const SQLITE_SEARCH_ROW = sql`(select id as rid, ticket_id as id, ${ROW_COLUMNS} from ticket_search_ids)`;

/** One key of a search's order, and its value's type in a cursor. */
export interface SortKey {
  name: string;
  expr: RawBuilder<unknown>;
  dir: 'asc' | 'desc';
  type: 'text' | 'integer' | 'real';
}

export const signatureOf = (keys: SortKey[]) => keys.map((k) => `${k.name}:${k.dir}`).join(',');

export function encodeCursor(keys: SortKey[], values: unknown[]): string {
  return Buffer.from(JSON.stringify({ s: signatureOf(keys), v: values })).toString('base64url');
}

export function decodeCursor(keys: SortKey[], cursor: string): unknown[] {
  const bad = () => invalidField('cursor', 'Invalid cursor: start again without one');
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw bad();
  }
  const c = parsed as { s?: unknown; v?: unknown };
  if (!c || c.s !== signatureOf(keys) || !Array.isArray(c.v) || c.v.length !== keys.length) throw bad();
  keys.forEach((k, i) => {
    const v = (c.v as unknown[])[i];
    if (k.type === 'text' ? typeof v !== 'string' : typeof v !== 'number' || !Number.isFinite(v)) throw bad();
  });
  return c.v;
}

/** The page from its ordered ids and sort values: the rows of those ids, presented, and the next cursor. */
export async function pageOf(
  ctx: Ctx,
  keys: SortKey[],
  ordered: unknown[][],
  limit: number,
  total: number,
): Promise<SearchOut> {
  const db = ctx.db.search.kysely as unknown as Kysely<any>;
  const more = ordered.length > limit;
  const pageOrder = more ? ordered.slice(0, limit) : ordered;
  const ids = pageOrder.map((r) => r[keys.length - 1] as string);
  const fetched =
    ids.length === 0
      ? []
      : await ctx.db.search.arrays(
          db
            .selectFrom('tickets as t')
            .innerJoin('projects as p', 'p.id', 't.project_id')
            .leftJoin('users as a', 'a.id', 't.assignee_id')
            .where('t.id', 'in', ids)
            .select([...LIST_SELECT, 'p.key as project_key'])
            .compile(),
        );
  const byId = new Map(fetched.map((r) => [r[0] as string, r]));
  // A ticket deleted between the two reads is left out of the page (the cursor still moves past it).
  const pageRows = ids.flatMap((id) => {
    const row = byId.get(id);
    return row ? [row] : [];
  });
  const base = LIST_SELECT.length;
  const items = await presentTicketList(
    ctx.db.kysely,
    '',
    pageRows,
    pageRows.map((r) => r[0] as string),
  );
  const out = items.map((item, i) => {
    const projectKey = pageRows[i][base] as string;
    return Object.assign(item, { key: `${projectKey}-${item.number}`, projectKey });
  });
  const last = pageOrder[pageOrder.length - 1];
  const nextCursor =
    more && last
      ? encodeCursor(
          keys,
          keys.map((k, i) => (k.type === 'text' ? String(last[i]) : Number(last[i]))),
        )
      : null;
  return { items: out, total, nextCursor };
}

/**
 * PostgreSQL: the search rows meeting `where` (of the row's own columns: `doc`), each standing for
 * its ticket (`id`, `doc` and the copied columns). `fenced` (`offset 0`) keeps that condition apart
 * from those tested on the result, so that the planner scans the index of `where` alone.
 */
function pgSearchRows(where: RawBuilder<unknown>, fenced: boolean) {
  return sql`(select ticket_id as id, doc, ${ROW_COLUMNS} from ticket_search where ${where}${
    fenced ? sql` offset 0` : sql``
  })`;
}

/**
 * PostgreSQL: the search rows whose document matches the words `top` and the facets (tsquery input,
 * migration 094; null: none). With facets, the GIN index answers them, and the match is fenced from
 * the other conditions: the planner ANDed its bitmap with a filter's btree bitmap (`crash type:bug`:
 * the type index's 200,000 bugs, 30 ms) to read the same rows.
 */
export const pgMatches = (top: string, facets: string | null) =>
  pgSearchRows(sql`doc @@ ${wordsWithFacets(top, facets)}`, facets !== null);

/**
 * PostgreSQL: the search rows whose title holds every word of `top` (migration 092's index), fenced:
 * ANDed with a bitmap of 200,000 bugs, `crash type:bug`'s 4,000 title matches took 31 to 37 ms
 * instead of 8 to 19.
 */
export const pgTitleMatches = (top: string) =>
  pgSearchRows(sql`${titleDoc(sql.ref('doc'))} @@ to_tsquery('simple', ${top})`, true);
