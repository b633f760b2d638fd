import { type Compilable, type CompiledQuery, type Kysely, PostgresAdapter } from 'kysely';
import type { Database } from '../db/types.js';

/**
 * Queries on the hottest paths, built and compiled once per dialect instead of on every request
 * (Kysely's builder and compiler cost more than SQLite's execution of these queries). Build the
 * query with `arg(i)` where the i-th argument goes; `runPrepared` substitutes the values.
 *
 * On PostgreSQL each is also a named prepared statement on every connection that runs it: the SQL
 * ends with `/*docket:prepare <name>*\/`, which the database seam turns into the driver's named
 * statement (src/db/connect.ts), so the server parses and plans it once per connection rather than
 * on each run (planning the full ticket read cost 1.5 ms, more than running it).
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
    const built = build(db).compile();
    query =
      adapter instanceof PostgresAdapter ? { ...built, sql: `${built.sql} ${preparedMarker(name)}` } : built;
    byName.set(name, query);
  }
  const parameters = query.parameters.map((p) =>
    typeof p === 'string' && p.startsWith(MARK) ? args[Number(p.slice(MARK.length))] : p,
  );
  const result = await db.executeQuery<R>({ ...query, parameters } as CompiledQuery<R>);
  return result.rows;
}

/** The comment that names a prepared statement (PostgreSQL; read by the database seam). */
export const preparedMarker = (name: string) => `/*docket:prepare ${name}*/`;
