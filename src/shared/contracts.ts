import type { ZodType } from 'zod';

/** JSON text with object keys sorted, so that two equal values read the same whatever their key order. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  );
}

/**
 * Why `value` breaks the contract `schema`, or null when it keeps it: it must parse, and parsing
 * must neither drop a field (one the schema lacks) nor change a value.
 */
export function contractBreach(schema: ZodType, value: unknown): string | null {
  const parsed = schema.safeParse(value);
  if (!parsed.success) return JSON.stringify(parsed.error.issues).slice(0, 4000);
  if (canonical(parsed.data) !== canonical(value)) {
    return `fields outside the schema in ${canonical(value).slice(0, 2000)}`;
  }
  return null;
}
