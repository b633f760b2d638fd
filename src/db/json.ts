import { type Expression, type Kysely, PostgresAdapter, type RawBuilder, sql } from 'kysely';

/**
 * JSON built by the database, for reads that fetch a record and its lists in one statement (the
 * full ticket read). The two databases spell it differently; this is the seam's one place for it.
 */

/**
 * `(select <json array of [values…] per row, in order> from …)`: a JSON array of arrays, `[]` when
 * the subquery has no row. `from` is the subquery's FROM … WHERE … text (values, joins, filters);
 * `order` its ORDER BY list.
 */
export function jsonRows(
  db: Kysely<any>,
  values: readonly Expression<unknown>[],
  from: RawBuilder<unknown>,
  order: RawBuilder<unknown>,
): RawBuilder<unknown> {
  const list = sql.join(values);
  if (db.getExecutor().adapter instanceof PostgresAdapter) {
    return sql`(select coalesce(json_agg(json_build_array(${list}) order by ${order}), '[]'::json) ${from})`;
  }
  return sql`(select json_group_array(json_array(${list}) order by ${order}) ${from})`;
}

/** A `jsonRows` column as read back: text on SQLite, already parsed on PostgreSQL. */
export function parseJsonRows<T extends unknown[]>(value: unknown): T[] {
  if (typeof value === 'string') return JSON.parse(value) as T[];
  return Array.isArray(value) ? (value as T[]) : [];
}
