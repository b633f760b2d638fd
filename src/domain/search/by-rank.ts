/**
 * The first page of a search in relevance order (docs/decisions/038-search.md, "Title first" and
 * "Facets in the full-text index"): the title's matches ranked first, the exact total apart.
 */
import { type RawBuilder, type SqlBool, sql } from 'kysely';
import type { SearchOut } from '../../shared/search.js';
import type { Ctx } from '../context.js';
import { titleDoc, titleMatch } from './compile.js';
import { pageOf, pgMatches, pgTitleMatches, type SortKey, SQLITE_SEARCH_ROW } from './rows.js';

type Bool = RawBuilder<SqlBool>;

/** What the first page by relevance ranks: words, and on SQLite their facets and the search row's test. */
export interface RankedQuery {
  /** The top level's words (every ranked word). */
  top: string;
  /** SQLite: the FTS5 match of the words and the facets of the other conditions (`top` without). */
  ftsMatch: string;
  /** SQLite: `ftsMatch`'s facets, title side (the words in the title, and the facets). */
  titleFtsMatch: string;
  /** PostgreSQL: the facets of the other conditions as tsquery input (migration 094), or null. */
  facetQuery: string | null;
  /**
   * The other conditions on the search row (the row as `t`; SQLite: its integer id as `t.rid`), or
   * null when there are none, or (SQLite) when the facets are all of them.
   */
  cond: Bool | null;
}

/**
 * The first page by relevance (decision 038, "Title first"): of words alone, or of words with other
 * conditions on the search row.
 *
 * The tickets whose title holds every word come first, so the page ranks the title's matches alone
 * (SQLite: FTS5's `title : (…)`; PostgreSQL: migration 092's index of the documents' titles), and
 * the other matches only when the title holds fewer than a page. Scoring reads each ranked match's
 * positions (bm25) or document (ts_rank): `timeout` at 1,000,000 tickets has 28,508 matches, 4,035
 * of them in the title. The exact total is counted apart: in the full-text index alone on SQLite
 * when the facets hold every condition; on PostgreSQL on a connection of its own, beside the ranking
 * and the page, since it visits every match's row (PostgreSQL 15 reads each match's heap page in a
 * bitmap count).
 *
 * SQLite scores with bm25 over the words alone, the facets filtering the matches by rowid: bm25
 * counts every document of each phrase of its match (its idf), and a facet such as `type:bug` has
 * 200,000 of them at 1,000,000 tickets (22 ms per query).
 */
export async function firstPageByRank(
  ctx: Ctx,
  keys: SortKey[],
  query: RankedQuery,
  limit: number,
): Promise<SearchOut> {
  const { top } = query;
  const cond = query.cond ?? sql<SqlBool>`1 = 1`;
  const sqlite = ctx.db.dialect === 'sqlite';
  const q = sql`to_tsquery('simple', ${top})`;
  const inTitle = sql<SqlBool>`${titleDoc(sql.ref('t.doc'))} @@ ${q}`;
  const counted = ctx.db.search.arrays(
    (sqlite
      ? query.cond
        ? sql`select count(*) from (select rowid as rid from ticket_fts where ticket_fts match ${query.ftsMatch}) r
            join ${SQLITE_SEARCH_ROW} t on t.rid = r.rid where ${cond}`
        : sql`select count(*) from ticket_fts where ticket_fts match ${query.ftsMatch}`
      : sql`select count(*) from ${pgMatches(top, query.facetQuery)} t where ${cond}`
    ).compile(ctx.db.kysely),
  );
  counted.catch(() => undefined); // awaited below; not an unhandled rejection if the ranking fails first
  // SQLite: the matches to score, by rowid (`+rowid`: the subquery's rowids filter the words' match;
  // a plain `rowid in` would run the match once per title row, 4 s for `timeout`).
  const rowids = (match: string) => sql`(select rowid from ticket_fts where ticket_fts match ${match})`;
  const ranked = (part: Part) =>
    part === 'title'
      ? sql`+rowid in ${rowids(query.titleFtsMatch)}`
      : part === 'all'
        ? query.ftsMatch === top
          ? sql`1 = 1`
          : sql`+rowid in ${rowids(query.ftsMatch)}`
        : query.ftsMatch === top
          ? sql`+rowid not in ${rowids(titleMatch(top))}`
          : sql`+rowid in ${rowids(query.ftsMatch)} and +rowid not in ${rowids(titleMatch(top))}`;
  const sqliteBest = (part: Part, wanted: number) => {
    const tier =
      part === 'all' ? sql`(rowid in ${rowids(query.titleFtsMatch)})` : sql.lit(part === 'title' ? 1 : 0);
    const scored = sql`select rowid as rid, bm25(ticket_fts, 10.0, 4.0, 1.0, 0.0) as score, ${tier} as tier
      from ticket_fts where ticket_fts match ${top} and ${ranked(part)}`;
    // Within one tier only the rows scoring at least the wanted-th best go on (ties kept); a few
    // matches of both tiers all go on.
    const cut =
      part === 'all'
        ? sql`b as (select null as score)`
        : sql`b as materialized (select score from m order by score limit 1 offset ${wanted - 1})`;
    const order = sql`order by k0 desc, k1 desc, k2 desc, k3 desc limit ${wanted}`;
    // With conditions, every scored match's search row is tested before the cut; without, only the
    // rows past the cut are read.
    return query.cond
      ? sql`with m as materialized (select r.rid, r.score, r.tier, t.updated_at, t.id
            from (${scored}) r join ${SQLITE_SEARCH_ROW} t on t.rid = r.rid where ${cond}), ${cut}
          select m.tier as k0, coalesce(-m.score, 0) as k1, m.updated_at as k2, m.id as k3
          from m left join b on 1 = 1 where b.score is null or m.score <= b.score ${order}`
      : sql`with m as materialized (${scored}), ${cut}
          select m.tier as k0, coalesce(-m.score, 0) as k1, s.updated_at as k2, s.ticket_id as k3
          from m left join b on 1 = 1 join ticket_search_ids s on s.id = m.rid
          where b.score is null or m.score <= b.score ${order}`;
  };
  /**
   * The `wanted` best of the title's matches (`title`) or of the others, each scored once; only
   * those scoring at least the wanted-th best are joined and sorted (ties at it are kept, then the
   * order cuts).
   */
  const best = (part: Part, wanted: number) => {
    const title = part === 'title';
    return ctx.db.search.arrays(
      (sqlite
        ? sqliteBest(part, wanted)
        : // The title's matches are found from their index alone and then tested against the other
          // conditions (pgTitleMatches).
          sql`with m as materialized (select t.id, ts_rank(t.doc, ${q}) as score, t.updated_at
              from ${title ? pgTitleMatches(top) : pgMatches(top, query.facetQuery)} t
              where ${title ? sql`1 = 1` : sql`not (${inTitle})`} and ${cond})
            select ${title ? 1 : 0} as k0, m.score as k1, m.updated_at as k2, m.id as k3 from m
            where m.score >= coalesce((select score from m order by score desc limit 1 offset ${wanted - 1}), -1)
            order by k1 desc, k2 desc, k3 desc limit ${wanted}`
      ).compile(ctx.db.kysely),
    );
  };
  // SQLite runs one statement at a time: the count comes first, and a few matches are scored in one
  // pass (the words' match is read once, not once per tier).
  const total = sqlite ? Number((await counted)[0][0]) : -1;
  if (sqlite && total <= rankTuning.fewPages * (limit + 1)) {
    const rows = await best('all', limit + 1);
    return { ...(await pageOf(ctx, keys, rows, limit, 0)), total };
  }
  const rows = await best('title', limit + 1);
  if (rows.length <= limit) rows.push(...(await best('rest', limit + 1 - rows.length)));
  const [page, count] = await Promise.all([pageOf(ctx, keys, rows, limit, 0), counted]);
  return { ...page, total: Number(count[0][0]) };
}

/** The title's matches, the others, or (SQLite, a few matches) both in one pass. */
type Part = 'title' | 'rest' | 'all';

/**
 * SQLite: up to this many pages' worth of matches are scored in one pass, both tiers at once; beyond,
 * the title's matches first and the others only when the title holds fewer than a page. A pass reads
 * every match of the words and counts each phrase's documents for bm25 (about 4 ms for `timeout`'s
 * 28,508 matches at 1,000,000 tickets), and scores each match it keeps (about 3 µs): one pass over
 * 982 matches took 11.5 ms where the title's 140 took 6.5; two passes over 282 took 13.5 ms, one 7.
 * A setting so that tests can walk both ways on a small instance.
 */
export const rankTuning = { fewPages: 8 };
