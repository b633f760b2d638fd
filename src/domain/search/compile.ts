/**
 * The query AST (src/shared/search-query.ts) to SQL for both databases: names are resolved to ids
 * among the projects in scope (an unknown one is a 400 naming the term), then every node becomes a
 * boolean expression over the tickets alias `t` that is never NULL, so `-term` is its exact
 * complement.
 */
import { type RawBuilder, type SqlBool, sql } from 'kysely';
import {
  type FacetKind,
  type FacetTerms,
  facetQuery,
  facetTermsOf,
  facetToken,
  facetValueOk,
  withFacets,
} from '../../db/search-facets.js';
import { PRIORITIES, type Priority } from '../../shared/enums.js';
import { ERR } from '../../shared/errors.js';
import { doneColumnIds, parseTicketKey } from '../../shared/rules.js';
import {
  type DateValue,
  foldText,
  type ParsedQuery,
  type QueryNode,
  searchWords,
} from '../../shared/search-query.js';
import type { Tx } from '../context.js';
import { AppError } from '../errors.js';
import { pgFold } from './fold.js';

type Dialect = 'sqlite' | 'postgres';
type Bool = RawBuilder<SqlBool>;

/** Which projects a query looks into: ids, or null for every project (a system administrator). */
export interface Scope {
  projectIds: string[] | null;
  userId: string;
}

export interface CompiledQuery {
  where: Bool;
  /** The full-text match of the top level's plain words (null without), and the condition besides it. */
  topMatch: string | null;
  /**
   * SQLite: `topMatch` with the facets of the top level's other conditions (migration 093: project,
   * type, priority, assignee, reporter, label, each of a few values, or their negation), so that
   * FTS5 intersects them with the words; `rest` still holds them all. Else `topMatch`.
   */
  ftsMatch: string | null;
  /** The facets of the top level's other conditions and of the scope (null: none). */
  facetTerms: FacetTerms | null;
  /** PostgreSQL: `facetTerms` as tsquery input, to AND with `topMatch` (migration 094). */
  facetQuery: string | null;
  rest: Bool;
  /** True when the top level is its plain words alone (`rest` is then always true). */
  restEmpty: boolean;
  /** The full-text expression of the words outside negations (relevance), or null without words. */
  rankMatch: string | null;
  /** The ticket a ticket-key word names: put first under relevance. */
  keyTicketId: string | null;
  /**
   * True when `rest` reads only columns the search row copies (migration 086: every column but the
   * texts), so that it can be tested on the search row under the alias `t` instead of the ticket.
   */
  onSearchRow: boolean;
  /**
   * `rest` for the search row (when `onSearchRow`) under the alias `t` with its integer id as
   * `t.rid`: on SQLite its `label:` terms name the tickets by that id (ticket_search_labels,
   * migration 087), one B-tree descent per ticket instead of two. Elsewhere `rest` itself.
   */
  restOnRow: Bool;
  /** SQLite: the top level holds a `label:` term (not negated), which can drive a count on the search row. */
  labelDriven: boolean;
  /**
   * PostgreSQL: the query is one `label:` term of one name and conditions on the column alone
   * (`is:done`, `is:open`, `status:`, their negations and groups): the query as a condition on
   * `ticket_label_columns` (migration 091) under the alias `t`, whose matching rows are the matching
   * tickets, one row each (a label name is one label per project, and a ticket's labels are its
   * project's), counted from its index alone. Else null.
   */
  labelCount: Bool | null;
  /**
   * The whole query is `created<…` or `updated<…` (or `<=`): the column and the bound it is below.
   * Such a range often holds most tickets, whose exact count is every ticket minus the rest.
   */
  before: { column: 'created_at' | 'updated_at'; bound: string } | null;
}

/** A 400 in the validation shape naming the query term and its position. */
export function queryError(message: string, term: string, position: number, path = 'q'): AppError {
  return new AppError(400, ERR.validation, { details: [{ path, message, term, position }] });
}

const FALSE: Bool = sql<SqlBool>`1 = 0`;
const TRUE: Bool = sql<SqlBool>`1 = 1`;
const inList = (col: RawBuilder<unknown>, values: readonly (string | number)[]): Bool =>
  values.length === 0 ? FALSE : sql<SqlBool>`${col} in (${sql.join(values)})`;
const nn = (col: RawBuilder<unknown>, cond: Bool): Bool => sql<SqlBool>`(${col} is not null and ${cond})`;
const and = (items: Bool[]): Bool =>
  items.length === 0 ? TRUE : sql<SqlBool>`(${sql.join(items, sql` and `)})`;
const or = (items: Bool[]): Bool =>
  items.length === 0 ? FALSE : sql<SqlBool>`(${sql.join(items, sql` or `)})`;

const DAY_MS = 86_400_000;
const addDays = (day: string, n: number) =>
  new Date(Date.parse(`${day}T00:00:00Z`) + n * DAY_MS).toISOString().slice(0, 10);

/** The day a date term names, against today (UTC). */
function dayOf(v: DateValue, today: string): string {
  return v.kind === 'day' ? v.day : addDays(today, v.kind === 'relative' ? v.days : 0);
}

/** A full-text expression for each database from groups of words (AND); the last word of the query is a prefix. */
export interface TextTerm {
  text: string;
  phrase: boolean;
  prefix: boolean;
}

function tokensOf(dialect: Dialect, text: string): string[] {
  return dialect === 'postgres' ? pgFold(text).split(' ').filter(Boolean) : searchWords(foldText(text));
}

/** FTS5 MATCH text or a PostgreSQL tsquery, ANDing (or ORing) the terms; null when no term has a word. */
export function matchText(dialect: Dialect, terms: TextTerm[], joiner: 'and' | 'or' = 'and'): string | null {
  const parts: string[] = [];
  for (const t of terms) {
    const words = tokensOf(dialect, t.text);
    if (words.length === 0) continue;
    if (dialect === 'sqlite') {
      // Each word double-quoted (FTS5 strings); a multi-word term is a phrase (the words in order).
      const quoted = `"${words.join(' ').replace(/"/g, '""')}"`;
      parts.push(t.prefix && !t.phrase ? `${quoted}*` : quoted);
    } else {
      const q = words.map((w) => w.replace(/[^\p{L}\p{N}]/gu, ''));
      if (t.prefix && !t.phrase) q[q.length - 1] += ':*';
      parts.push(q.length > 1 ? `(${q.join(' <-> ')})` : q[0]);
    }
  }
  if (parts.length === 0) return null;
  if (dialect === 'sqlite') return parts.join(joiner === 'and' ? ' AND ' : ' OR ');
  return parts.join(joiner === 'and' ? ' & ' : ' | ');
}

/**
 * PostgreSQL: the title's part of a search document, whose words carry weight A (migration 040).
 * Migration 092 indexes this very expression with GIN: the first tier of relevance (decision 038,
 * "Title first") is found from that index.
 */
export const titleDoc = (doc: RawBuilder<unknown>) => sql`ts_filter(${doc}, '{a}')`;

/** SQLite: the FTS5 match of `match` in the title column alone. */
export const titleMatch = (match: string) => `title : (${match})`;

/** Tickets whose indexed text matches `match`. */
export function textMatch(dialect: Dialect, match: string): Bool {
  return dialect === 'sqlite'
    ? sql<SqlBool>`t.id in (select ticket_id from ticket_search_ids where id in (select rowid from ticket_fts where ticket_fts match ${match}))`
    : sql<SqlBool>`t.id in (select ticket_id from ticket_search where doc @@ to_tsquery('simple', ${match}))`;
}

const PRIORITY_RANK = new Map(PRIORITIES.map((p, i) => [p, i]));
function prioritiesFor(op: string, values: Priority[]): Priority[] {
  if (op === ':' || op === '=') return values;
  const r = PRIORITY_RANK.get(values[0]) ?? 0;
  return PRIORITIES.filter((p) => {
    const x = PRIORITY_RANK.get(p) ?? 0;
    return op === '>' ? x > r : op === '>=' ? x >= r : op === '<' ? x < r : x <= r;
  });
}

const cmp = (op: string) => sql.raw(op === ':' || op === '=' ? '=' : op);

/** Compiles a parsed query; resolves names with queries on `db`. */
export async function compileQuery(
  db: Tx,
  dialect: Dialect,
  parsed: ParsedQuery,
  scope: Scope,
  now = new Date(),
  path = 'q',
): Promise<CompiledQuery> {
  const today = now.toISOString().slice(0, 10);
  const inScope = <Q extends { where: (...a: any[]) => Q }>(q: Q, col: string): Q =>
    scope.projectIds === null
      ? q
      : scope.projectIds.length === 0
        ? q.where(sql<SqlBool>`1 = 0`)
        : q.where(col, 'in', scope.projectIds);
  let keyTicketId: string | null = null;
  let doneIds: string[] | null = null;
  // A condition on a column the search row does not copy (the description) needs the ticket's row.
  let readsText = false;
  // SQLite, compiling for the search row: labels by its integer id (CompiledQuery.restOnRow).
  let labelsByRow = false;
  // PostgreSQL, compiling for ticket_label_columns (CompiledQuery.labelCount).
  let labelsOnColumns = false;
  // The facet tokens (migrations 093 and 094) of each term that names facets, for CompiledQuery.facetTerms.
  const facets = new Map<QueryNode, string[]>();
  const facetsOf = (n: QueryNode, kind: FacetKind, values: (string | null)[]) => {
    if (values.every(facetValueOk))
      facets.set(
        n,
        values.map((v) => facetToken(kind, v)),
      );
  };

  // The last free word of the whole query is a prefix ("as you type").
  const lastWord = (() => {
    let last: QueryNode | null = null;
    const walk = (n: QueryNode | null) => {
      if (!n) return;
      if (n.kind === 'text') last = n;
      else if (n.kind === 'and' || n.kind === 'or') n.items.forEach(walk);
      else if (n.kind === 'not') walk(n.item);
    };
    walk(parsed.root);
    return last as QueryNode | null;
  })();
  const rankTerms: TextTerm[] = [];

  const unknown = (what: string, v: string, n: { raw: string; pos: number }) =>
    queryError(`Unknown ${what} '${v}' (in '${n.raw}' at position ${n.pos})`, n.raw, n.pos, path);

  /**
   * `me`, `none` (assignee only) or usernames (any case) as conditions on `column`; never NULL. The
   * users' ids (null: none) are pushed on `ids`.
   */
  const usersIn = async (
    values: string[],
    n: { raw: string; pos: number },
    column: string,
    allowNone: boolean,
    ids: (string | null)[],
  ) => {
    const c = sql.ref(column);
    const conds: Bool[] = [];
    for (const v of values) {
      const low = v.toLowerCase();
      if (low === 'me') {
        conds.push(nn(c, sql<SqlBool>`${c} = ${scope.userId}`));
        ids.push(scope.userId);
      } else if (low === 'none' && allowNone) {
        conds.push(sql<SqlBool>`${c} is null`);
        ids.push(null);
      } else {
        const u = await db
          .selectFrom('users')
          .select('id')
          .where(sql`lower(username)`, '=', low)
          .executeTakeFirst();
        if (!u) throw unknown('user', v, n);
        conds.push(nn(c, sql<SqlBool>`${c} = ${u.id}`));
        ids.push(u.id);
      }
    }
    return or(conds);
  };

  const compileNode = async (n: QueryNode, negated: boolean): Promise<Bool> => {
    switch (n.kind) {
      case 'and': {
        // Words side by side are one full-text match (the index intersects them itself).
        const words = n.items.filter(
          (i): i is Extract<QueryNode, { kind: 'text' }> => i.kind === 'text' && !i.key,
        );
        const rest = n.items.filter((i) => !(i.kind === 'text' && !i.key));
        const parts: Bool[] = [];
        if (words.length > 0) parts.push(textTerms(words, negated));
        for (const i of rest) parts.push(await compileNode(i, negated));
        return and(parts);
      }
      case 'or':
        return or(await Promise.all(n.items.map((i) => compileNode(i, negated))));
      case 'not':
        return sql<SqlBool>`not ${await compileNode(n.item, !negated)}`;
      case 'text': {
        const match = textTerms([n], negated);
        if (!n.key) return match;
        const key = parseTicketKey(n.key);
        const found = key
          ? await inScope(
              db
                .selectFrom('tickets as k')
                .innerJoin('projects as kp', 'kp.id', 'k.project_id')
                .select('k.id')
                .where('kp.key', '=', key.projectKey)
                .where('k.number', '=', key.number),
              'k.project_id',
            ).executeTakeFirst()
          : undefined;
        if (!found) return match;
        if (!negated) keyTicketId ??= found.id;
        return or([match, sql<SqlBool>`t.id = ${found.id}`]);
      }
      case 'field':
        return compileField(n);
    }
  };

  const textTerms = (nodes: Extract<QueryNode, { kind: 'text' }>[], negated: boolean): Bool => {
    const terms = nodes.map((x) => ({ text: x.text, phrase: x.phrase, prefix: x === lastWord }));
    if (!negated) rankTerms.push(...terms);
    const match = matchText(dialect, terms);
    return match === null ? TRUE : textMatch(dialect, match);
  };

  const col = (name: string) => sql.ref(`t.${name}`);

  const compileField = async (n: Extract<QueryNode, { kind: 'field' }>): Promise<Bool> => {
    switch (n.field) {
      case 'project': {
        const keys = n.values.map((v) => v.toUpperCase());
        const rows = await inScope(
          db.selectFrom('projects').select(['id', 'key']).where('key', 'in', keys),
          'id',
        ).execute();
        for (const k of keys) if (!rows.some((r) => r.key === k)) throw unknown('project', k, n);
        facetsOf(
          n,
          'project',
          rows.map((r) => r.id),
        );
        return inList(
          col('project_id'),
          rows.map((r) => r.id),
        );
      }
      case 'assignee':
      case 'reporter': {
        const ids: (string | null)[] = [];
        const cond = await usersIn(
          n.values,
          n,
          n.field === 'assignee' ? 't.assignee_id' : 't.reporter_id',
          n.field === 'assignee',
          ids,
        );
        facetsOf(n, n.field, ids);
        return cond;
      }
      case 'type':
        facetsOf(n, 'type', n.values);
        return inList(col('type'), n.values);
      case 'priority': {
        const values = prioritiesFor(n.op, n.values);
        facetsOf(n, 'priority', values);
        return inList(col('priority'), values);
      }
      case 'status': {
        const lows = n.values.map((v) => v.toLowerCase());
        const rows = await inScope(
          db.selectFrom('columns').select(['id', 'name']).where(sql`lower(name)`, 'in', lows),
          'project_id',
        ).execute();
        for (const v of n.values)
          if (!rows.some((r) => r.name.toLowerCase() === v.toLowerCase())) throw unknown('column', v, n);
        return inList(
          col('column_id'),
          rows.map((r) => r.id),
        );
      }
      case 'label': {
        const lows = n.values.map((v) => v.toLowerCase());
        const rows = await inScope(
          db.selectFrom('labels').select(['id', 'name']).where(sql`lower(name)`, 'in', lows),
          'project_id',
        ).execute();
        for (const v of n.values)
          if (!rows.some((r) => r.name.toLowerCase() === v.toLowerCase())) throw unknown('label', v, n);
        const ids = rows.map((r) => r.id);
        facetsOf(n, 'label', ids);
        if (labelsOnColumns) return inList(sql.ref('t.label_id'), ids);
        if (labelsByRow)
          return sql<SqlBool>`t.rid in (select row_id from ticket_search_labels where ${inList(sql.ref('label_id'), ids)})`;
        return sql<SqlBool>`t.id in (select ticket_id from ticket_labels where ${inList(sql.ref('label_id'), ids)})`;
      }
      case 'sprint': {
        const conds: Bool[] = [];
        const names: string[] = [];
        for (const v of n.values) {
          const low = v.toLowerCase();
          if (low === 'none') conds.push(sql<SqlBool>`t.sprint_id is null`);
          else if (low === 'active')
            conds.push(
              nn(
                col('sprint_id'),
                sql<SqlBool>`t.sprint_id in (select id from sprints where status = 'active')`,
              ),
            );
          else names.push(v);
        }
        if (names.length > 0) {
          const lows = names.map((v) => v.toLowerCase());
          const rows = await inScope(
            db.selectFrom('sprints').select(['id', 'name']).where(sql`lower(name)`, 'in', lows),
            'project_id',
          ).execute();
          for (const v of names)
            if (!rows.some((r) => r.name.toLowerCase() === v.toLowerCase())) throw unknown('sprint', v, n);
          conds.push(
            nn(
              col('sprint_id'),
              inList(
                col('sprint_id'),
                rows.map((r) => r.id),
              ),
            ),
          );
        }
        return or(conds);
      }
      case 'parent': {
        const ids: string[] = [];
        for (const v of n.values) {
          const key = parseTicketKey(v);
          const found = key
            ? await inScope(
                db
                  .selectFrom('tickets as k')
                  .innerJoin('projects as kp', 'kp.id', 'k.project_id')
                  .select('k.id')
                  .where('kp.key', '=', key.projectKey)
                  .where('k.number', '=', key.number),
                'k.project_id',
              ).executeTakeFirst()
            : undefined;
          if (!found) throw unknown('ticket', v, n);
          ids.push(found.id);
        }
        return nn(col('parent_id'), inList(col('parent_id'), ids));
      }
      case 'is':
        switch (n.value) {
          case 'unassigned':
            facetsOf(n, 'assignee', [null]);
            return sql<SqlBool>`t.assignee_id is null`;
          case 'watching':
            return sql<SqlBool>`t.id in (select ticket_id from ticket_watchers where user_id = ${scope.userId})`;
          default: {
            doneIds ??= await doneColumnsInScope(db, scope);
            const done = inList(col('column_id'), doneIds);
            return n.value === 'done' ? done : sql<SqlBool>`not ${done}`;
          }
        }
      case 'has':
        switch (n.value) {
          case 'attachment':
            return sql<SqlBool>`t.id in (select ticket_id from attachments)`;
          case 'comment':
            return sql<SqlBool>`t.id in (select ticket_id from comments)`;
          case 'description':
            readsText = true;
            return sql<SqlBool>`(t.description is not null and t.description <> '')`;
          case 'link':
            return sql<SqlBool>`(t.id in (select source_ticket_id from ticket_links) or t.id in (select target_ticket_id from ticket_links))`;
        }
        break;
      case 'points':
        if (n.value === null) return sql<SqlBool>`t.story_points is null`;
        return nn(col('story_points'), sql<SqlBool>`t.story_points ${cmp(n.op)} ${n.value}`);
      case 'created':
      case 'updated': {
        const c = col(`${n.field}_at`);
        const day = dayOf(n.value, today);
        const start = `${day}T00:00:00.000Z`;
        const next = `${addDays(day, 1)}T00:00:00.000Z`;
        switch (n.op) {
          case '>':
            return sql<SqlBool>`${c} >= ${next}`;
          case '>=':
            return sql<SqlBool>`${c} >= ${start}`;
          case '<':
            return sql<SqlBool>`${c} < ${start}`;
          case '<=':
            return sql<SqlBool>`${c} < ${next}`;
          default:
            return sql<SqlBool>`(${c} >= ${start} and ${c} < ${next})`;
        }
      }
      case 'due': {
        if (n.value.kind === 'none') return sql<SqlBool>`t.due_date is null`;
        return nn(col('due_date'), sql<SqlBool>`t.due_date ${cmp(n.op)} ${dayOf(n.value, today)}`);
      }
    }
    throw new Error('unreachable');
  };

  // The plain words of the top level: one full-text match that a search can drive from (the index
  // finds them; the other conditions filter what it found).
  type TextNode = Extract<QueryNode, { kind: 'text' }>;
  const plain = (n: QueryNode): n is TextNode => n.kind === 'text' && !n.key;
  const root = parsed.root;
  let top: TextNode[] = [];
  let restNode: QueryNode | null = root;
  if (root && plain(root)) {
    top = [root];
    restNode = null;
  } else if (root?.kind === 'and') {
    top = root.items.filter(plain);
    const others = root.items.filter((i) => !plain(i));
    restNode = others.length === 0 ? null : others.length === 1 ? others[0] : { kind: 'and', items: others };
  }
  const topTerms = top.map((x) => ({ text: x.text, phrase: x.phrase, prefix: x === lastWord }));
  const topMatch = matchText(dialect, topTerms);
  const rest = restNode ? await compileNode(restNode, false) : TRUE;
  const isLabel = (n: QueryNode): boolean => n.kind === 'field' && n.field === 'label';
  const hasLabel = (n: QueryNode): boolean =>
    isLabel(n) ||
    ((n.kind === 'and' || n.kind === 'or') && n.items.some(hasLabel)) ||
    (n.kind === 'not' && hasLabel(n.item));
  let restOnRow = rest;
  if (dialect === 'sqlite' && restNode && !readsText && hasLabel(restNode)) {
    labelsByRow = true;
    restOnRow = await compileNode(restNode, false);
    labelsByRow = false;
  }
  const labelDriven =
    dialect === 'sqlite' &&
    restNode !== null &&
    (isLabel(restNode) || (restNode.kind === 'and' && restNode.items.some(isLabel)));
  const onColumn = (n: QueryNode): boolean =>
    (n.kind === 'field' &&
      (n.field === 'status' || (n.field === 'is' && (n.value === 'done' || n.value === 'open')))) ||
    (n.kind === 'not' && onColumn(n.item)) ||
    ((n.kind === 'and' || n.kind === 'or') && n.items.every(onColumn));
  const oneLabel = (n: QueryNode) => n.kind === 'field' && n.field === 'label' && n.values.length === 1;
  let labelCount: Bool | null = null;
  if (
    dialect === 'postgres' &&
    top.length === 0 &&
    restNode !== null &&
    (oneLabel(restNode) ||
      (restNode.kind === 'and' &&
        restNode.items.filter(oneLabel).length === 1 &&
        restNode.items.every((i) => oneLabel(i) || onColumn(i))))
  ) {
    labelsOnColumns = true;
    labelCount = await compileNode(restNode, false);
    labelsOnColumns = false;
  }
  const where = topMatch ? and([textMatch(dialect, topMatch), rest]) : rest;
  const facetTerms = topMatch && restNode ? facetTermsOf(restNode, facets, scope.projectIds) : null;
  const ftsMatch = topMatch && (dialect === 'sqlite' ? withFacets(topMatch, facetTerms) : topMatch);
  // Relevance: the top-level words when they are all the words; else any of the words.
  const rankMatch = rankTerms.length === 0 ? topMatch : matchText(dialect, [...topTerms, ...rankTerms], 'or');
  let before: CompiledQuery['before'] = null;
  if (root?.kind === 'field' && (root.field === 'created' || root.field === 'updated'))
    if (root.op === '<' || root.op === '<=') {
      const day = dayOf(root.value, today);
      before = {
        column: root.field === 'created' ? 'created_at' : 'updated_at',
        // The same bound as the compiled condition (`<=` a day is `<` the next day's start).
        bound: `${root.op === '<' ? day : addDays(day, 1)}T00:00:00.000Z`,
      };
    }
  return {
    before,
    where,
    rest,
    restEmpty: restNode === null,
    topMatch,
    ftsMatch,
    facetTerms,
    facetQuery: dialect === 'postgres' ? facetQuery(facetTerms) : null,
    rankMatch,
    keyTicketId,
    onSearchRow: !readsText,
    restOnRow,
    labelDriven,
    labelCount,
  };
}

/** The done columns (chosen, else the last) of every project in scope. */
async function doneColumnsInScope(db: Tx, scope: Scope): Promise<string[]> {
  let cols = db
    .selectFrom('columns')
    .select(['id', 'project_id', 'rank'])
    .orderBy('project_id')
    .orderBy('rank');
  let settings = db.selectFrom('sprint_settings').select(['project_id', 'done_column_ids']);
  if (scope.projectIds !== null) {
    if (scope.projectIds.length === 0) return [];
    cols = cols.where('project_id', 'in', scope.projectIds);
    settings = settings.where('project_id', 'in', scope.projectIds);
  }
  const [colRows, settingRows] = await Promise.all([cols.execute(), settings.execute()]);
  const chosen = new Map(settingRows.map((s) => [s.project_id, JSON.parse(s.done_column_ids) as string[]]));
  const byProject = new Map<string, string[]>();
  for (const c of colRows) {
    const list = byProject.get(c.project_id) ?? [];
    list.push(c.id);
    byProject.set(c.project_id, list);
  }
  const out: string[] = [];
  for (const [pid, ids] of byProject) out.push(...doneColumnIds(ids, chosen.get(pid) ?? []));
  return out;
}
