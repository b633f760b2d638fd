/**
 * GET /api/search: a query over every project the caller can see, one page at a time with a keyset
 * cursor, and the exact total (docs/search.md, docs/decisions/038-search.md).
 */
import { type Kysely, type RawBuilder, type SqlBool, sql } from 'kysely';
import { withFacets, wordsWithFacets } from '../../db/search-facets.js';
import type { ProjectsTable } from '../../db/types.js';
import { PRIORITIES } from '../../shared/enums.js';
import type { SearchOut, SearchParams } from '../../shared/search.js';
import { type ParsedQuery, parseQuery, QueryError, type SortSpec } from '../../shared/search-query.js';
import { actorOf, type Ctx } from '../context.js';
import { firstPageByRank } from './by-rank.js';
import { type CompiledQuery, compileQuery, queryError, type Scope, titleDoc, titleMatch } from './compile.js';
import { decodeCursor, pageOf, pgMatches, type SortKey, SQLITE_SEARCH_ROW, signatureOf } from './rows.js';

export { SEARCH_ROW_COLUMNS } from './rows.js';

type Bool = RawBuilder<SqlBool>;

/** Parses `text`, turning a malformed query into a 400 naming the term (under `path`). */
export function parseOrThrow(text: string, path = 'q'): ParsedQuery {
  try {
    return parseQuery(text);
  } catch (err) {
    if (err instanceof QueryError) throw queryError(err.message, err.term, err.position, path);
    throw err;
  }
}

/** The projects the caller can see: their memberships, or every project (null) for a system administrator. */
export async function searchScope(ctx: Ctx): Promise<Scope> {
  const actor = actorOf(ctx);
  if (actor.isSystemAdmin) return { projectIds: null, userId: actor.userId };
  const rows = await ctx.db.kysely
    .selectFrom('project_members')
    .select('project_id')
    .where('user_id', '=', actor.userId)
    .execute();
  return { projectIds: rows.map((r) => r.project_id), userId: actor.userId };
}

/** The condition of `query=` on one project's ticket list (alias `t`). */
export async function projectQueryFilter(ctx: Ctx, project: ProjectsTable, text: string): Promise<Bool> {
  const parsed = parseOrThrow(text, 'query');
  const actor = actorOf(ctx);
  const compiled = await compileQuery(
    ctx.db.kysely,
    ctx.db.dialect,
    parsed,
    { projectIds: [project.id], userId: actor.userId },
    new Date(),
    'query',
  );
  return compiled.where;
}

const PRIORITY_CASE = sql`(case t.priority ${sql.join(
  PRIORITIES.map((p, i) => sql`when ${sql.lit(p)} then ${sql.lit(i)}`),
  sql` `,
)} end)`;

function sortKeysOf(
  dialect: 'sqlite' | 'postgres',
  parsed: ParsedQuery,
  compiled: CompiledQuery,
  /** PostgreSQL: the alias of the row holding the tsvector (`s`, or `t` when the search row is the ticket). */
  docOf = 's',
): SortKey[] {
  const keys: SortKey[] = [];
  const spec: SortSpec[] = parsed.sort;
  if (spec.length === 0 && compiled.rankMatch !== null) {
    if (compiled.keyTicketId)
      keys.push({
        name: 'keyhit',
        expr: sql`(case when t.id = ${compiled.keyTicketId} then 1 else 0 end)`,
        dir: 'desc',
        type: 'integer',
      });
    // Tickets whose title holds every ranked word come first (decision 038, "Title first"); on
    // PostgreSQL's ts_rank a one-word match in the title already outscores any other (0.61 against
    // at most 0.4), and the tier lets the first page rank the title's matches alone.
    keys.push({
      name: 'title',
      expr:
        dialect === 'sqlite'
          ? sql`coalesce(r.tier, 0)`
          : sql`(case when ${titleDoc(sql.ref(`${docOf}.doc`))} @@ to_tsquery('simple', ${compiled.rankMatch}) then 1 else 0 end)`,
      dir: 'desc',
      type: 'integer',
    });
    keys.push({
      name: 'score',
      expr:
        dialect === 'sqlite'
          ? sql`coalesce(-r.score, 0)`
          : sql`coalesce(ts_rank(${sql.ref(`${docOf}.doc`)}, to_tsquery('simple', ${compiled.rankMatch})), 0)`,
      dir: 'desc',
      type: 'real',
    });
  }
  if (spec.length === 0) {
    if (compiled.keyTicketId && compiled.rankMatch === null)
      keys.push({
        name: 'keyhit',
        expr: sql`(case when t.id = ${compiled.keyTicketId} then 1 else 0 end)`,
        dir: 'desc',
        type: 'integer',
      });
    keys.push({ name: 'updated', expr: sql`t.updated_at`, dir: 'desc', type: 'text' });
  }
  for (const s of spec) {
    const { dir } = s;
    switch (s.field) {
      case 'updated':
      case 'created':
        keys.push({ name: s.field, expr: sql.ref(`t.${s.field}_at`), dir, type: 'text' });
        break;
      case 'priority':
        keys.push({ name: s.field, expr: PRIORITY_CASE, dir, type: 'integer' });
        break;
      case 'due':
        // Tickets without a date come last either way.
        keys.push({
          name: s.field,
          expr: sql`coalesce(t.due_date, ${dir === 'asc' ? '9999-12-31' : '0000-00-00'})`,
          dir,
          type: 'text',
        });
        break;
      case 'points':
        keys.push({
          name: s.field,
          expr: sql`coalesce(t.story_points, ${sql.lit(dir === 'asc' ? 1_000_000_000 : -1)})`,
          dir,
          type: 'integer',
        });
        break;
      case 'key':
        keys.push({ name: 'pkey', expr: sql`p.key`, dir, type: 'text' });
        keys.push({ name: 'number', expr: sql`t.number`, dir, type: 'integer' });
        break;
    }
  }
  // The tie-break follows the last key's direction, so one index (updated_at, id) serves both ways.
  keys.push({ name: 'id', expr: sql`t.id`, dir: keys[keys.length - 1]?.dir ?? 'asc', type: 'text' });
  return keys;
}

/** Rows after the cursor's: (k1 > v1) or (k1 = v1 and k2 > v2) … in each key's direction. */
function after(keys: SortKey[], values: unknown[]): Bool {
  const val = (i: number) => {
    const k = keys[i];
    return k.type === 'text' ? sql`${values[i]}` : sql`cast(${values[i]} as ${sql.raw(k.type)})`;
  };
  const ors: Bool[] = keys.map((k, i) => {
    const eqs = keys.slice(0, i).map((e, j) => sql`${e.expr} = ${val(j)}`);
    const op = sql.raw(k.dir === 'asc' ? '>' : '<');
    return sql<SqlBool>`(${sql.join([...eqs, sql`${k.expr} ${op} ${val(i)}`], sql` and `)})`;
  });
  return sql<SqlBool>`(${sql.join(ors, sql` or `)})`;
}

/**
 * Whether the scope holds every project (a system administrator, or a member of all of them): its
 * condition then restricts nothing and is left out; a list of every project costs a check per row
 * and keeps the planners from the indexes that answer the rest of the query.
 */
async function seesEveryProject(db: Kysely<any>, scope: Scope): Promise<boolean> {
  if (scope.projectIds === null) return true;
  if (scope.projectIds.length === 0) return false;
  const row = await db
    .selectFrom('projects')
    .select((eb) => eb.fn.countAll().as('n'))
    .executeTakeFirstOrThrow();
  // Memberships are unique per project and name existing projects: as many means all of them.
  return scope.projectIds.length >= Number(row.n);
}

/** SQLite, in a query of ticket_fts: 1 when the row's title alone matches `match`, else 0. */
const titleTier = (match: string) =>
  sql`(ticket_fts.rowid in (select rowid from ticket_fts where ticket_fts match ${titleMatch(match)}))`;

export async function searchTickets(ctx: Ctx, params: SearchParams): Promise<SearchOut> {
  const dialect = ctx.db.dialect;
  const parsed = parseOrThrow(params.q);
  const scope = await searchScope(ctx);
  const compiled = await compileQuery(ctx.db.kysely, dialect, parsed, scope);
  // Words at the top level drive the query from the full-text index; their conditions and sort keys
  // are read from the search row's copy of the ticket (migration 086) when they need no text.
  const onRow = compiled.topMatch !== null && compiled.onSearchRow;
  const keys = sortKeysOf(dialect, parsed, compiled, onRow ? 't' : 's');
  const cursor = params.cursor ? decodeCursor(keys, params.cursor) : null;
  // Committed data, through the search connection (Db.search).
  const db = ctx.db.search.kysely as unknown as Kysely<any>;
  const everything = await seesEveryProject(db, scope);
  const scopeCond: Bool = everything
    ? sql<SqlBool>`1 = 1`
    : scope.projectIds === null || scope.projectIds.length === 0
      ? sql<SqlBool>`1 = 0`
      : sql<SqlBool>`t.project_id in (${sql.join(scope.projectIds)})`;

  /**
   * SQLite, sorted by updated: walk the updated index and stop at the page's end, or sort the
   * matches? Its planner prefers an index on the filter and sorts tens of thousands of rows. The
   * walk reads about (limit + 1) x tickets / matches entries; the sort about the matches.
   */
  const walkUpdated = async (matches: number) => {
    if (matches === 0) return false;
    // The largest rowid: at least the number of tickets, from the table's last page alone.
    const all = await db
      .selectFrom('tickets')
      .select(sql<number>`max(rowid)`.as('n'))
      .executeTakeFirstOrThrow();
    return matches * matches > (params.limit + 1) * Number(all.n ?? 0);
  };
  const ranked = keys.some((k) => k.name === 'score');
  // SQLite scores the matches only when the order uses the score: bm25 reads each match's sizes
  // and positions, 16 ms of `login -label:ui sort:priority`'s 129 at 1,000,000 tickets.
  const matchScore = ranked
    ? sql`, bm25(ticket_fts, 10.0, 4.0, 1.0, 0.0) as score, ${titleTier(compiled.rankMatch as string)} as tier`
    : sql``;
  const top = compiled.topMatch;
  // SQLite: the words' match with their facets (migration 093); scored, over the words alone, the
  // facets filtering by rowid, since bm25 counts every document of each phrase of its match
  // (decision 038, "Facets in the full-text index").
  const matches =
    ranked && compiled.ftsMatch !== top
      ? sql`ticket_fts where ticket_fts match ${top}
          and +rowid in (select rowid from ticket_fts where ticket_fts match ${compiled.ftsMatch})`
      : sql`ticket_fts where ticket_fts match ${compiled.ftsMatch}`;
  /** The tickets the query can match: driven from the full-text index when the top level has words. */
  const from = (walk = false) => {
    // The matches joined to their search rows alone (one lookup by integer key on SQLite, no second
    // table on PostgreSQL), the search row standing for the ticket as `t`; the page's rows are read
    // from the tickets afterwards (pageOf).
    if (top && onRow && dialect === 'sqlite')
      return db
        .selectFrom(sql`(select rowid as rid${matchScore} from ${matches})`.as('r'))
        .innerJoin(SQLITE_SEARCH_ROW.as('t'), (j) => j.onRef('t.rid', '=', 'r.rid'))
        .where(scopeCond)
        .where(compiled.restOnRow);
    // PostgreSQL: the words with the facets of the other conditions (migration 094), so that the
    // full-text index leaves out the matches that fail them; the search row still tests them all.
    if (top && onRow)
      return db.selectFrom(pgMatches(top, compiled.facetQuery).as('t')).where(scopeCond).where(compiled.rest);
    if (top && dialect === 'sqlite')
      return db
        .selectFrom(sql`(select rowid as rid${matchScore} from ${matches})`.as('r'))
        .innerJoin('ticket_search_ids as s', 's.id', 'r.rid')
        .innerJoin('tickets as t', 't.id', 's.ticket_id')
        .where(scopeCond)
        .where(compiled.rest);
    if (top)
      return db
        .selectFrom('tickets as t')
        .innerJoin('ticket_search as s', 's.ticket_id', 't.id')
        .where(sql<SqlBool>`s.doc @@ ${wordsWithFacets(top, compiled.facetQuery)}`)
        .where(scopeCond)
        .where(compiled.rest);
    let q = db.selectFrom('tickets as t');
    // Words only inside OR or a group: relevance from a match on any of them.
    if (ranked && dialect === 'sqlite')
      q = q.leftJoin(
        sql`(select s.ticket_id as tid, bm25(ticket_fts, 10.0, 4.0, 1.0, 0.0) as score,
               ${titleTier(compiled.rankMatch as string)} as tier
             from ticket_fts join ticket_search_ids s on s.id = ticket_fts.rowid
             where ticket_fts match ${compiled.rankMatch})`.as('r'),
        'r.tid',
        't.id',
      );
    if (ranked && dialect === 'postgres') q = q.leftJoin('ticket_search as s', 's.ticket_id', 't.id');
    // `+(…)` hides the condition from SQLite's index choice: the walk down the updated index.
    return walk
      ? q.where(sql<SqlBool>`+(${scopeCond} and ${compiled.where})`)
      : q.where(scopeCond).where(compiled.where);
  };
  // The page in two steps: the ids and sort values in order (a narrow sort, often from an index
  // alone), then the rows of those ids; sorting whole rows (descriptions and all) cost more than the rest.
  const textOnly = top !== null && everything && compiled.restEmpty;
  // Words with other conditions, first page: the total is counted in the page's own statement
  // (a window over every match), so the full-text join runs once instead of twice.
  // SQLite only: PostgreSQL's planner costed the window as if the limit stopped it early and sorted
  // every ticket first (8 s for `login -label:ui sort:priority` at 1,000,000).
  const windowed = dialect === 'sqlite' && top !== null && !textOnly && !cursor;
  // Else the exact total first: words alone over every project are counted in the full-text index alone.
  const n = sql<number>`count(*)`.as('n');
  // SQLite, no words, a `label:` term at the top level and every condition on the search row: the
  // count is driven from the label's search rows by integer id (migration 087), not from the
  // tickets by text id. The page still walks or sorts the tickets' indexes.
  const byLabelRows = !top && compiled.labelDriven && compiled.onSearchRow;
  // PostgreSQL, a label and conditions on the column alone: the label's rows with their column
  // (migration 091), an index-only count, instead of every ticket read to test its column.
  const counter = compiled.labelCount
    ? db.selectFrom('ticket_label_columns as t').where(compiled.labelCount).select(n)
    : byLabelRows
      ? db.selectFrom(SQLITE_SEARCH_ROW.as('t')).where(scopeCond).where(compiled.restOnRow).select(n)
      : !textOnly
        ? from().select(n)
        : dialect === 'sqlite'
          ? db.selectFrom(sql`ticket_fts`.as('f')).where(sql<SqlBool>`ticket_fts match ${top}`).select(n)
          : db
              .selectFrom('ticket_search as s')
              .where(sql<SqlBool>`s.doc @@ to_tsquery('simple', ${top})`)
              .select(n);
  // The first page by relevance, ranked by the top level's words (they are all the words here).
  const byRank =
    !cursor &&
    compiled.rankMatch === top &&
    signatureOf(keys) === 'title:desc,score:desc,updated:desc,id:desc';
  if (byRank && textOnly)
    return firstPageByRank(
      ctx,
      keys,
      {
        top: top as string,
        ftsMatch: top as string,
        titleFtsMatch: titleMatch(top as string),
        facetQuery: null,
        cond: null,
      },
      params.limit,
    );
  if (byRank && dialect === 'postgres' && onRow)
    return firstPageByRank(
      ctx,
      keys,
      {
        top: top as string,
        ftsMatch: '',
        titleFtsMatch: '',
        facetQuery: compiled.facetQuery,
        cond: sql<SqlBool>`${scopeCond} and ${compiled.rest}`,
      },
      params.limit,
    );
  // SQLite, words with facets (migration 093) among their conditions: the facets narrow the
  // matches inside FTS5, and the first page ranks the title's matches alone. Without facets the
  // windowed statement below is faster: every match's search row is read either way.
  const facets = compiled.facetTerms;
  if (byRank && dialect === 'sqlite' && onRow && facets) {
    const allFacets = facets.restAll && (everything || facets.scope);
    return firstPageByRank(
      ctx,
      keys,
      {
        top: top as string,
        ftsMatch: compiled.ftsMatch as string,
        titleFtsMatch: withFacets(titleMatch(top as string), facets),
        facetQuery: null,
        cond: allFacets ? null : sql<SqlBool>`${scopeCond} and ${compiled.restOnRow}`,
      },
      params.limit,
    );
  }
  // PostgreSQL, words with other conditions on the search row, first page in another order than
  // relevance: one pass over the matches (a materialized CTE of their sort keys) gives the total and
  // the page; a count apart and a page apart read every match's row twice.
  if (dialect === 'postgres' && onRow && !textOnly && !cursor) {
    let inner = from();
    if (keys.some((k) => k.name === 'pkey')) inner = inner.innerJoin('projects as p', 'p.id', 't.project_id');
    const names = keys.map((_, i) => sql.ref(`m.k${i}`));
    const order = keys.map((k, i) => sql`${names[i]} ${sql.raw(k.dir)}`);
    const rows = await ctx.db.search.arrays(
      sql`with m as materialized (${inner.select(keys.map((k, i) => k.expr.as(`k${i}`)))})
        select ${sql.join(names)}, (select count(*) from m) as total from m
        order by ${sql.join(order)} limit ${params.limit + 1}`.compile(ctx.db.kysely),
    );
    return pageOf(ctx, keys, rows, params.limit, rows.length === 0 ? 0 : Number(rows[0][keys.length]));
  }
  let total = windowed
    ? 0
    : (await countBeforeByComplement(db, compiled, everything))
      ? await countByComplement(db, dialect, compiled.before as NonNullable<CompiledQuery['before']>)
      : Number(((await (counter as ReturnType<typeof from>).executeTakeFirstOrThrow()) as { n: unknown }).n);

  // The page in two steps: the ids and sort values in order (a narrow sort, often from an index
  // alone), then the rows of those ids; sorting whole rows (descriptions and all) cost more than the rest.
  let page = from(dialect === 'sqlite' && !top && keys[0].name === 'updated' && (await walkUpdated(total)));
  if (keys.some((k) => k.name === 'pkey')) page = page.innerJoin('projects as p', 'p.id', 't.project_id');
  if (cursor) page = page.where(after(keys, cursor));
  for (const k of keys) page = page.orderBy(k.expr, k.dir);
  const columns = keys.map((k, i) => k.expr.as(`k${i}`));
  const ordered = await ctx.db.search.arrays(
    page
      .select(windowed ? [...columns, sql`count(*) over ()`.as('total')] : columns)
      .limit(params.limit + 1)
      .compile(),
  );
  if (windowed) total = ordered.length === 0 ? 0 : Number(ordered[0][keys.length]);
  return pageOf(ctx, keys, ordered, params.limit, total);
}

/**
 * `created<…` or `updated<…` alone over every project, when the bound lies past the middle of the
 * column's range (the index's two ends; dates spread evenly put most tickets below it): counting the
 * tickets at or above the bound reads fewer index entries than counting those below it
 * (`updated<-30d`: 825,000 entries). The columns are never null, so the two counts add up to all.
 */
async function countBeforeByComplement(db: Kysely<any>, compiled: CompiledQuery, everything: boolean) {
  const b = compiled.before;
  if (!b || !everything || compiled.topMatch !== null) return false;
  const col = sql.ref(b.column);
  const row = await db
    .selectNoFrom([
      sql<string | null>`(select min(${col}) from tickets)`.as('lo'),
      sql<string | null>`(select max(${col}) from tickets)`.as('hi'),
    ])
    .executeTakeFirstOrThrow();
  if (row.lo === null || row.hi === null) return false;
  const [lo, hi, at] = [Date.parse(row.lo), Date.parse(row.hi), Date.parse(b.bound)];
  return hi > lo && (at - lo) / (hi - lo) > 0.5;
}

/**
 * The exact count of tickets below `before.bound`: every ticket minus those at or above it. Every
 * ticket is in a column, so on PostgreSQL their number is the sum of the columns' totals that
 * migration 089's triggers keep (a few hundred rows, where counting 1,000,000 tickets read an index
 * of them all: `updated<-30d` took 160 to 180 ms that way, 128 this way).
 */
async function countByComplement(
  db: Kysely<any>,
  dialect: 'sqlite' | 'postgres',
  before: NonNullable<CompiledQuery['before']>,
) {
  const row = await db
    .selectNoFrom([
      (dialect === 'postgres'
        ? sql<number>`(select coalesce(sum(n), 0) from column_ticket_counts)`
        : sql<number>`(select count(*) from tickets)`
      ).as('all'),
      sql<number>`(select count(*) from tickets t where ${sql.ref(`t.${before.column}`)} >= ${before.bound})`.as(
        'above',
      ),
    ])
    .executeTakeFirstOrThrow();
  return Number(row.all) - Number(row.above);
}
