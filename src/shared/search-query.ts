/**
 * The search query language (docs/search.md): one hand-written recursive-descent parser for the
 * API, the MCP tools and the web app. No zod here, so the web app's first load can carry it.
 *
 *   query    := orExpr*                      terms side by side are ANDed
 *   orExpr   := unary ('OR' unary)*
 *   unary    := '-' unary | primary
 *   primary  := '(' query ')' | phrase | fieldTerm | word
 *
 * Positions are 1-based character offsets into the query text.
 */
import { PRIORITIES, type Priority, TICKET_TYPES, type TicketType } from './enums.js';
import { parseTicketKey } from './rules.js';

export type CompareOp = ':' | '=' | '>' | '>=' | '<' | '<=';

/** A date value: an absolute day, a day relative to today (`-30d`, `+2w`), or `none`. */
export type DateValue = { kind: 'day'; day: string } | { kind: 'relative'; days: number } | { kind: 'none' };

export type FieldTerm =
  | { field: 'project'; values: string[] }
  | { field: 'assignee'; values: string[] }
  | { field: 'reporter'; values: string[] }
  | { field: 'type'; values: TicketType[] }
  | { field: 'priority'; op: CompareOp; values: Priority[] }
  | { field: 'status'; values: string[] }
  | { field: 'is'; value: 'open' | 'done' | 'unassigned' | 'watching' }
  | { field: 'label'; values: string[] }
  | { field: 'sprint'; values: string[] }
  | { field: 'points'; op: CompareOp; value: number | null }
  | { field: 'created' | 'updated' | 'due'; op: CompareOp; value: DateValue }
  | { field: 'parent'; values: string[] }
  | { field: 'has'; value: 'attachment' | 'link' | 'comment' | 'description' };

export type QueryNode =
  | { kind: 'and'; items: QueryNode[] }
  | { kind: 'or'; items: QueryNode[] }
  | { kind: 'not'; item: QueryNode }
  /** Free words (`phrase` false) or a quoted phrase; `key` when the word reads as a ticket key. */
  | { kind: 'text'; text: string; phrase: boolean; key: string | null; pos: number }
  | ({ kind: 'field'; pos: number; raw: string } & FieldTerm);

export const SORT_FIELDS = ['updated', 'created', 'priority', 'due', 'points', 'key'] as const;
export type SortField = (typeof SORT_FIELDS)[number];
export interface SortSpec {
  field: SortField;
  dir: 'asc' | 'desc';
}
/** Direction of `sort:<field>` without a suffix: newest, highest, biggest first; soonest due, lowest key. */
export const DEFAULT_SORT_DIR: Record<SortField, 'asc' | 'desc'> = {
  updated: 'desc',
  created: 'desc',
  priority: 'desc',
  due: 'asc',
  points: 'desc',
  key: 'asc',
};

export interface ParsedQuery {
  /** null for an empty query (every ticket). */
  root: QueryNode | null;
  sort: SortSpec[];
  /** True when a free word or phrase stands outside any negation (relevance applies). */
  hasText: boolean;
}

export const KNOWN_FIELDS = [
  'project',
  'assignee',
  'reporter',
  'type',
  'priority',
  'status',
  'is',
  'label',
  'sprint',
  'points',
  'created',
  'updated',
  'due',
  'parent',
  'has',
  'sort',
] as const;
type KnownField = (typeof KNOWN_FIELDS)[number];

export const IS_VALUES = ['open', 'done', 'unassigned', 'watching'] as const;
export const HAS_VALUES = ['attachment', 'link', 'comment', 'description'] as const;

export const QUERY_MAX_LENGTH = 1000;

// Saved views' layout choices (src/shared/search.ts holds their schemas).
export const VIEW_LAYOUTS = ['list', 'board'] as const;
export const VIEW_COLUMNS = [
  'key',
  'title',
  'type',
  'priority',
  'status',
  'assignee',
  'reporter',
  'sprint',
  'points',
  'due',
  'labels',
  'project',
  'created',
  'updated',
] as const;
export const VIEW_GROUPS = ['status', 'assignee', 'priority', 'sprint', 'project', 'type'] as const;
export const DEFAULT_VIEW_COLUMNS: (typeof VIEW_COLUMNS)[number][] = [
  'key',
  'title',
  'status',
  'assignee',
  'priority',
  'updated',
];
const MAX_TERMS = 60;
const MAX_DEPTH = 16;

/** A malformed query: the message names the term and its 1-based position. */
export class QueryError extends Error {
  constructor(
    message: string,
    readonly term: string,
    readonly position: number,
  ) {
    super(message);
  }
}

interface Token {
  kind: 'lparen' | 'rparen' | 'or' | 'and' | 'neg' | 'term';
  raw: string;
  pos: number;
}

const isSpace = (c: string) => c === ' ' || c === '\t' || c === '\n' || c === '\r' || c === '\u00a0';

/** Splits the text into parentheses, OR/AND, `-` prefixes and terms (quotes kept in the term). */
function tokenize(text: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i];
    if (isSpace(c)) {
      i++;
      continue;
    }
    if (c === '(' || c === ')') {
      out.push({ kind: c === '(' ? 'lparen' : 'rparen', raw: c, pos: i + 1 });
      i++;
      continue;
    }
    if (c === '-' && i + 1 < text.length && !isSpace(text[i + 1]) && text[i + 1] !== ')') {
      out.push({ kind: 'neg', raw: '-', pos: i + 1 });
      i++;
      continue;
    }
    const start = i;
    while (i < text.length && !isSpace(text[i]) && text[i] !== '(' && text[i] !== ')') {
      if (text[i] === '"') {
        const close = text.indexOf('"', i + 1);
        if (close < 0) throw new QueryError(`Unclosed quote at position ${i + 1}`, text.slice(i), i + 1);
        i = close + 1;
      } else i++;
    }
    const raw = text.slice(start, i);
    const kind = raw === 'OR' ? 'or' : raw === 'AND' ? 'and' : 'term';
    out.push({ kind, raw, pos: start + 1 });
  }
  return out;
}

/** The value list of a field term: comma-separated, each bare or quoted. */
function splitValues(raw: string, term: string, pos: number): string[] {
  const values: string[] = [];
  let cur = '';
  let quoted = false;
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i];
    if (c === '"') quoted = !quoted;
    else if (c === ',' && !quoted) {
      values.push(cur.trim());
      cur = '';
    } else cur += c;
  }
  values.push(cur.trim());
  if (values.some((v) => v === '')) {
    throw new QueryError(`Missing value in '${term}' at position ${pos}`, term, pos);
  }
  return values;
}

const FIELD_RE = /^([A-Za-z]+)(>=|<=|:|=|>|<)([\s\S]*)$/;
const DAY_RE = /^\d{4}-\d{2}-\d{2}$/;
const RELATIVE_RE = /^([+-])(\d{1,4})([dwmy])$/;
const UNIT_DAYS = { d: 1, w: 7, m: 30, y: 365 } as const;

function parseDate(v: string, fail: (m: string) => never): DateValue {
  const low = v.toLowerCase();
  if (low === 'none') return { kind: 'none' };
  if (low === 'today') return { kind: 'relative', days: 0 };
  if (DAY_RE.test(v)) {
    if (
      Number.isNaN(Date.parse(`${v}T00:00:00Z`)) ||
      new Date(`${v}T00:00:00Z`).toISOString().slice(0, 10) !== v
    )
      fail(`'${v}' is not a calendar date`);
    return { kind: 'day', day: v };
  }
  const m = RELATIVE_RE.exec(low);
  if (m) {
    const days = Number(m[2]) * UNIT_DAYS[m[3] as keyof typeof UNIT_DAYS];
    return { kind: 'relative', days: m[1] === '-' ? -days : days };
  }
  return fail(`'${v}' is not a date: use YYYY-MM-DD, today, or a day relative to today such as -30d or +2w`);
}

function oneOf<T extends string>(
  values: readonly T[],
  v: string,
  what: string,
  fail: (m: string) => never,
): T {
  const found = values.find((x) => x.toLowerCase() === v.toLowerCase());
  if (!found) fail(`Unknown ${what} '${v}'; known: ${values.join(', ')}`);
  return found as T;
}

/** Turns `name<op>value` into a field term, checking the operator and the value's form. */
function fieldTerm(
  name: KnownField,
  op: CompareOp,
  rest: string,
  raw: string,
  pos: number,
): FieldTerm | SortSpec[] {
  const fail = (m: string): never => {
    throw new QueryError(`${m} (in '${raw}' at position ${pos})`, raw, pos);
  };
  const values = splitValues(rest, raw, pos);
  const single = () => {
    if (values.length > 1) fail(`'${name}' takes one value`);
    return values[0];
  };
  const compares =
    name === 'priority' || name === 'points' || name === 'created' || name === 'updated' || name === 'due';
  if (op !== ':' && !compares)
    fail(`'${name}' takes ':' only; comparisons are for priority, points, created, updated and due`);
  if (op !== ':' && op !== '=' && values.length > 1) fail(`A comparison takes one value`);
  switch (name) {
    case 'project':
    case 'label':
    case 'status':
    case 'sprint':
    case 'parent':
      if (name === 'parent')
        for (const v of values) if (!parseTicketKey(v)) fail(`'${v}' is not a ticket key such as WEB-3`);
      return { field: name, values };
    case 'assignee':
    case 'reporter':
      return { field: name, values };
    case 'type':
      return { field: 'type', values: values.map((v) => oneOf(TICKET_TYPES, v, 'type', fail)) };
    case 'priority':
      return { field: 'priority', op, values: values.map((v) => oneOf(PRIORITIES, v, 'priority', fail)) };
    case 'is':
      return { field: 'is', value: oneOf(IS_VALUES, single(), "value for 'is'", fail) };
    case 'has':
      return { field: 'has', value: oneOf(HAS_VALUES, single(), "value for 'has'", fail) };
    case 'points': {
      const v = single();
      if (v.toLowerCase() === 'none') {
        if (op !== ':' && op !== '=') fail(`'none' cannot be compared`);
        return { field: 'points', op, value: null };
      }
      if (!/^\d{1,4}(\.\d{1,2})?$/.test(v)) fail(`'${v}' is not a number of points`);
      return { field: 'points', op, value: Number(v) };
    }
    case 'created':
    case 'updated':
    case 'due': {
      const value = parseDate(single(), fail);
      if (value.kind === 'none' && ((op !== ':' && op !== '=') || name !== 'due'))
        fail(`'none' is only for due:none`);
      return { field: name, op, value };
    }
    case 'sort':
      return values.map((v) => {
        const m = /^([a-z]+)(?:-(asc|desc))?$/i.exec(v);
        const field = m ? SORT_FIELDS.find((f) => f === m[1].toLowerCase()) : undefined;
        if (!m || !field)
          fail(`Unknown sort '${v}'; known: ${SORT_FIELDS.join(', ')}, each optionally with -asc or -desc`);
        return {
          field: field as SortField,
          dir: (m?.[2]?.toLowerCase() as 'asc' | 'desc') ?? DEFAULT_SORT_DIR[field as SortField],
        };
      });
  }
}

/** Parses a query; throws QueryError for a malformed one. */
export function parseQuery(text: string): ParsedQuery {
  if (text.length > QUERY_MAX_LENGTH)
    throw new QueryError(
      `The query is longer than ${QUERY_MAX_LENGTH} characters`,
      text.slice(QUERY_MAX_LENGTH),
      QUERY_MAX_LENGTH + 1,
    );
  const tokens = tokenize(text);
  if (tokens.filter((t) => t.kind === 'term').length > MAX_TERMS)
    throw new QueryError(`The query has more than ${MAX_TERMS} terms`, text, 1);
  const sort: SortSpec[] = [];
  let hasText = false;
  let i = 0;
  const peek = () => tokens[i];

  const parseSequence = (depth: number, negated: boolean): QueryNode | null => {
    const items: QueryNode[] = [];
    while (i < tokens.length && peek().kind !== 'rparen') {
      if (peek().kind === 'and') {
        if (
          items.length === 0 ||
          i + 1 >= tokens.length ||
          ['rparen', 'or', 'and'].includes(tokens[i + 1].kind)
        )
          throw new QueryError(`AND needs a term on both sides at position ${peek().pos}`, 'AND', peek().pos);
        i++;
        continue;
      }
      const node = parseOr(depth, negated);
      if (node) items.push(node);
    }
    if (items.length === 0) return null;
    return items.length === 1 ? items[0] : { kind: 'and', items };
  };

  const parseOr = (depth: number, negated: boolean): QueryNode | null => {
    if (peek().kind === 'or')
      throw new QueryError(`OR needs a term on both sides at position ${peek().pos}`, 'OR', peek().pos);
    const first = parseUnary(depth, negated);
    const items = first ? [first] : [];
    while (i < tokens.length && peek().kind === 'or') {
      const orTok = peek();
      i++;
      if (i >= tokens.length || ['rparen', 'or', 'and'].includes(peek().kind))
        throw new QueryError(`OR needs a term on both sides at position ${orTok.pos}`, 'OR', orTok.pos);
      const next = parseUnary(depth, negated);
      // Only a sort term parses to nothing, and it cannot be one side of an OR.
      if (!first || !next)
        throw new QueryError(`'sort' cannot be one side of OR (position ${orTok.pos})`, 'OR', orTok.pos);
      items.push(next);
    }
    if (items.length === 0) return null;
    return items.length === 1 ? items[0] : { kind: 'or', items };
  };

  const parseUnary = (depth: number, negated: boolean): QueryNode | null => {
    const tok = peek();
    if (tok.kind === 'neg') {
      i++;
      if (i >= tokens.length || ['rparen', 'or', 'and'].includes(peek().kind))
        throw new QueryError(`Nothing to negate after '-' at position ${tok.pos}`, '-', tok.pos);
      const inner = parseUnary(depth, true);
      return inner ? { kind: 'not', item: inner } : null;
    }
    return parsePrimary(depth, negated);
  };

  const parsePrimary = (depth: number, negated: boolean): QueryNode | null => {
    const tok = peek();
    if (tok.kind === 'lparen') {
      if (depth >= MAX_DEPTH)
        throw new QueryError(`Parentheses nested deeper than ${MAX_DEPTH}`, '(', tok.pos);
      i++;
      const inner = parseSequence(depth + 1, negated);
      if (i >= tokens.length) throw new QueryError(`Unclosed '(' at position ${tok.pos}`, '(', tok.pos);
      i++; // the ')'
      if (!inner) throw new QueryError(`Empty parentheses at position ${tok.pos}`, '()', tok.pos);
      return inner;
    }
    if (tok.kind === 'rparen') throw new QueryError(`Unexpected ')' at position ${tok.pos}`, ')', tok.pos);
    i++;
    const raw = tok.raw;
    if (
      raw.startsWith('"') &&
      raw.endsWith('"') &&
      raw.length >= 2 &&
      raw.indexOf('"', 1) === raw.length - 1
    ) {
      const phrase = raw.slice(1, -1).trim();
      if (!phrase) throw new QueryError(`Empty phrase at position ${tok.pos}`, raw, tok.pos);
      if (!negated) hasText = true;
      return { kind: 'text', text: phrase, phrase: true, key: null, pos: tok.pos };
    }
    const m = FIELD_RE.exec(raw);
    if (m && !raw.startsWith('"')) {
      const name = m[1].toLowerCase();
      const known = KNOWN_FIELDS.find((f) => f === name);
      if (!known)
        throw new QueryError(
          `Unknown field '${m[1]}' at position ${tok.pos}; known fields: ${KNOWN_FIELDS.join(', ')}`,
          raw,
          tok.pos,
        );
      if (m[3] === '') throw new QueryError(`Missing value in '${raw}' at position ${tok.pos}`, raw, tok.pos);
      const term = fieldTerm(known, m[2] as CompareOp, m[3], raw, tok.pos);
      if (Array.isArray(term)) {
        if (depth > 0 || negated)
          throw new QueryError(
            `'sort' stands on its own, outside parentheses, OR and '-' (position ${tok.pos})`,
            raw,
            tok.pos,
          );
        sort.push(...term);
        return null;
      }
      return { kind: 'field', pos: tok.pos, raw, ...term };
    }
    const word = raw.replace(/"/g, '');
    if (!negated) hasText = true;
    return { kind: 'text', text: word, phrase: false, key: parseTicketKey(word)?.key ?? null, pos: tok.pos };
  };

  const root = parseSequence(0, false);
  if (i < tokens.length) {
    const tok = tokens[i];
    throw new QueryError(`Unexpected ')' at position ${tok.pos}`, ')', tok.pos);
  }
  return { root, sort, hasText };
}

/** The words of a free-text term as the indexes see them: lower case, accents folded, letters and digits only. */
export function searchWords(text: string): string[] {
  return foldText(text)
    .split(/[^\p{L}\p{N}]+/u)
    .filter((w) => w.length > 0);
}

/** Lower case without accents: the one folding of indexed text and query words, on both databases. */
export function foldText(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase();
}
