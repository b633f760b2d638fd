import type { Compilable, CompiledQuery, Kysely } from 'kysely';
import type { Database } from '../db/types.js';

/**
 * Queries on the hottest read paths, built and compiled once per dialect instead of on every
 * request (Kysely's builder and compiler cost more than SQLite's execution of these queries).
 * Build the query with `arg(i)` where the i-th argument goes; `runPrepared` substitutes the values.
 */
const MARK = '\u0000docket-arg-';

/** Placeholder for the i-th argument of a prepared query (typed as any value it stands for). */
export const arg = <T = string>(i: number): T => `${MARK}${i}` as unknown as T;

const compiled = new WeakMap<object, Map<string, CompiledQuery>>();

export async function runPrepared<R>(
  db: Kysely<Database>,
  name: string,
  build: (db: Kysely<Database>) => Compilable<R>,
  args: readonly unknown[],
): Promise<R[]> {
  // One cache per dialect adapter: a transaction shares its database's adapter.
  const adapter = db.getExecutor().adapter;
  let byName = compiled.get(adapter);
  if (!byName) {
    byName = new Map();
    compiled.set(adapter, byName);
  }
  let query = byName.get(name);
  if (!query) {
    query = build(db).compile();
    byName.set(name, query);
  }
  const parameters = query.parameters.map((p) =>
    typeof p === 'string' && p.startsWith(MARK) ? args[Number(p.slice(MARK.length))] : p,
  );
  const result = await db.executeQuery<R>({ ...query, parameters } as CompiledQuery<R>);
  return result.rows;
}
