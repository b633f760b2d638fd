/**
 * The board's and the backlog's filters, sort and grouping in the address
 * (`?q=…&type=bug,story&priority=…&assignee=me,none&label=ui,backend&view=…&sprint=…&sort=…&group=…`),
 * so that a filtered page can be shared and survives a reload. Lists are comma-separated (each value
 * encoded on its own, so a comma inside a label name survives); empty filters are left out.
 */
import { PRIORITIES, TICKET_TYPES } from '../../shared/enums.js';

const SCALARS = { text: 'q', view: 'view', sprint: 'sprint', sort: 'sort', group: 'group' } as const;
const LISTS = { assignee: 'assignee', type: 'type', priority: 'priority', label: 'label' } as const;
type Scalar = keyof typeof SCALARS;
type List = keyof typeof LISTS;
export type AddressFilters = { [K in Scalar]?: string } & { [K in List]?: string[] };

const MAX_VALUES = 50;
const MAX_LENGTH = 200;

/** Types and priorities in their canonical spelling (`type=bug` is Bug); unknown ones are dropped. */
const canonical: Partial<Record<List, readonly string[]>> = { type: TICKET_TYPES, priority: PRIORITIES };

const decode = (s: string) => {
  try {
    return decodeURIComponent(s.replace(/\+/g, ' '));
  } catch {
    return '';
  }
};

/** The raw (still encoded) value of each key of a query string. */
function rawParams(search: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const pair of search.replace(/^\?/, '').split('&')) {
    if (!pair) continue;
    const at = pair.indexOf('=');
    const key = decode(at < 0 ? pair : pair.slice(0, at));
    if (!out.has(key)) out.set(key, at < 0 ? '' : pair.slice(at + 1));
  }
  return out;
}

/** The filters named in a query string, or null when it names none. */
export function filtersFromSearch(search: string): AddressFilters | null {
  const params = rawParams(search);
  const out: AddressFilters = {};
  for (const [field, key] of Object.entries(SCALARS) as [Scalar, string][]) {
    const v = decode(params.get(key) ?? '').slice(0, MAX_LENGTH);
    if (v) out[field] = v;
  }
  for (const [field, key] of Object.entries(LISTS) as [List, string][]) {
    const known = canonical[field];
    const values = (params.get(key) ?? '')
      .split(',')
      .map((v) => decode(v).trim().slice(0, MAX_LENGTH))
      .map((v) => (known ? (known.find((k) => k.toLowerCase() === v.toLowerCase()) ?? '') : v))
      .filter(Boolean);
    if (values.length) out[field] = [...new Set(values)].slice(0, MAX_VALUES);
  }
  return Object.keys(out).length ? out : null;
}

/**
 * The query string (without `?`) of the filters; scalar values equal to their default (the board's
 * default sprint choice, the backlog's board order) are left out.
 */
export function searchOfFilters(f: AddressFilters, defaults: Partial<Record<Scalar, string>> = {}): string {
  const parts: string[] = [];
  for (const [field, key] of Object.entries(SCALARS) as [Scalar, string][]) {
    const v = f[field];
    if (v && v !== defaults[field]) parts.push(`${key}=${encodeURIComponent(v)}`);
  }
  for (const [field, key] of Object.entries(LISTS) as [List, string][]) {
    const v = f[field];
    if (v?.length) parts.push(`${key}=${v.map(encodeURIComponent).join(',')}`);
  }
  return parts.join('&');
}

/** Puts the query string in the address when it differs (replaced: Back leaves the page, not a filter). */
export function replaceSearch(want: string) {
  if (want === window.location.search.replace(/^\?/, '')) return;
  window.history.replaceState(
    window.history.state,
    '',
    `${window.location.pathname}${want ? `?${want}` : ''}`,
  );
}
