import { type RawBuilder, sql } from 'kysely';
import type { QueryNode } from '../shared/search-query.js';

/**
 * Facet tokens (docs/decisions/038-search.md "Facets in the full-text index"): each ticket's
 * project, type, priority, assignee, reporter and labels as words of its full-text document, so that
 * words with such conditions are intersected inside the full-text index. SQLite (migration 093): the
 * FTS5 table's `facets` column. PostgreSQL (migration 094): lexemes without positions in the
 * search row's tsvector, which ts_rank, the title's index (`ts_filter(doc, '{a}')`) and the words'
 * queries never see.
 *
 * A token is U+E000 (a private-use character: FTS5's tokenizer keeps it inside a word, PostgreSQL's
 * parser splits words at it, and no query word holds it), a letter naming the facet, and the value:
 * an id without its dashes (ids are lowercase UUIDs, src/domain/ids.ts), `none` for no assignee or
 * reporter, or a type or priority as stored. Migrations 093 and 094 write the same tokens in SQL.
 */
export const FACET_MARK = '\uE000';

export type FacetKind = 'project' | 'type' | 'priority' | 'assignee' | 'reporter' | 'label';

const LETTER: Record<FacetKind, string> = {
  project: 'p',
  type: 't',
  priority: 'y',
  assignee: 'a',
  reporter: 'r',
  label: 'l',
};

/** The token of one facet value (null: no assignee or reporter). */
export function facetToken(kind: FacetKind, value: string | null): string {
  return `${FACET_MARK}${LETTER[kind]}${value === null ? 'none' : value.replace(/-/g, '')}`;
}

/** Whether a value's token is one word of the index: letters, digits and dashes only. */
export const facetValueOk = (value: string | null) => value === null || /^[\p{L}\p{N}-]+$/u.test(value);

/** FTS5: tickets with any of `tokens` in their facets (each token a quoted string). */
const facetMatch = (tokens: readonly string[]) => `facets : (${tokens.map((t) => `"${t}"`).join(' OR ')})`;

/** PostgreSQL tsquery input: documents with any of `tokens` (quoted lexemes, not parsed into words). */
const facetLexemes = (tokens: readonly string[]) => `(${tokens.map((t) => `'${t}'`).join(' | ')})`;

/**
 * Facets of more values than this are left to the search row: the index steps through each value's
 * list of documents for every match (`-label:ui` over 100 projects is 100 labels).
 */
const MAX_FACET_TOKENS = 8;

/** The facets a query's top-level conditions and scope hold. */
export interface FacetTerms {
  /** Token lists a match must hold one token of each, and lists it must hold no token of. */
  pos: string[][];
  neg: string[][];
  /** Every top-level condition besides the words is one of `pos` or `neg`, exactly. */
  restAll: boolean;
  /** The scope is one of `pos` (a few projects). */
  scope: boolean;
}

/**
 * The facets of the top level's conditions (`rest`, the top level without its words) and of
 * the scope, each term or its negation, of at most MAX_FACET_TOKENS values; `facets` holds the
 * tokens of each term that names facets (compile.ts). Null when none.
 */
export function facetTermsOf(
  rest: QueryNode,
  facets: Map<QueryNode, string[]>,
  /** The projects in scope (null: every project). */
  projectIds: string[] | null,
): FacetTerms | null {
  const out: FacetTerms = { pos: [], neg: [], restAll: true, scope: false };
  const fits = (tokens: string[] | undefined): tokens is string[] =>
    tokens !== undefined && tokens.length > 0 && tokens.length <= MAX_FACET_TOKENS;
  for (const item of rest.kind === 'and' ? rest.items : [rest]) {
    const tokens = facets.get(item.kind === 'not' ? item.item : item);
    if (fits(tokens)) (item.kind === 'not' ? out.neg : out.pos).push(tokens);
    else out.restAll = false;
  }
  const scoped = projectIds?.filter(facetValueOk).map((id) => facetToken('project', id));
  if (scoped && scoped.length === projectIds?.length && fits(scoped)) {
    out.pos.push(scoped);
    out.scope = true;
  }
  return out.pos.length + out.neg.length === 0 ? null : out;
}

/**
 * FTS5: `words` (a match expression) ANDed with the facets (null: none). The search row still tests
 * every condition; the facets leave out, inside FTS5, the matches that fail them.
 */
export function withFacets(words: string, terms: FacetTerms | null): string {
  if (!terms) return words;
  let expr = `(${words})`;
  for (const p of terms.pos) expr = `${expr} AND (${facetMatch(p)})`;
  for (const n of terms.neg) expr = `(${expr}) NOT (${facetMatch(n)})`;
  return expr;
}

/**
 * PostgreSQL: the facets as tsquery input (null: none), to AND (`&&`) with the words' query; built
 * apart from the words, since `to_tsquery` would parse the tokens into words.
 */
export function facetQuery(terms: FacetTerms | null): string | null {
  if (!terms) return null;
  return [...terms.pos.map(facetLexemes), ...terms.neg.map((n) => `!${facetLexemes(n)}`)].join(' & ');
}

/** PostgreSQL: the tsquery of `words` (to_tsquery input) and of the facets' query (facetQuery; null: none). */
export function wordsWithFacets(words: string, facets: string | null): RawBuilder<unknown> {
  return facets
    ? sql`(to_tsquery('simple', ${words}) && cast(${facets} as tsquery))`
    : sql`to_tsquery('simple', ${words})`;
}
