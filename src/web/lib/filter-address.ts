/**
 * The board's filters in the address (`?q=…&type=…&priority=…&assignee=…&label=…&view=…&sprint=…`),
 * so that a filtered board can be shared and survives a reload. Empty filters are left out.
 */
const KEYS = {
  text: 'q',
  type: 'type',
  priority: 'priority',
  assignee: 'assignee',
  label: 'label',
  view: 'view',
  sprint: 'sprint',
} as const;
type Field = keyof typeof KEYS;
export type AddressFilters = Record<Field, string>;

/** The filters named in a query string, or null when it names none. */
export function filtersFromSearch(search: string): Partial<AddressFilters> | null {
  const params = new URLSearchParams(search);
  const out: Partial<AddressFilters> = {};
  for (const [field, key] of Object.entries(KEYS) as [Field, string][]) {
    const v = params.get(key);
    if (v) out[field] = v.slice(0, 200);
  }
  return Object.keys(out).length ? out : null;
}

/** The query string (without `?`) of the filters; the default sprint choice is left out. */
export function searchOfFilters(f: AddressFilters): string {
  const params = new URLSearchParams();
  for (const [field, key] of Object.entries(KEYS) as [Field, string][]) {
    const v = f[field];
    if (v && !(field === 'sprint' && v === 'default')) params.set(key, v);
  }
  return params.toString();
}
