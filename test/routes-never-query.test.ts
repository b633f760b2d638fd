import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * Routes call use cases in src/domain, which query; a route never reaches the database itself
 * (docs/ARCHITECTURE.md, "A request's way through"): no query builder, no SQL, no database handle.
 */
const routes = path.resolve(import.meta.dirname, '../src/server/routes');
const QUERYING = [
  /\.kysely\b/,
  /\b(selectFrom|insertInto|updateTable|deleteFrom|executeTakeFirst|execute)\(/,
  /\bsql`/,
  /from '(kysely|pg|better-sqlite3)'/,
  /from '\.\.\/\.\.\/db\//,
];

describe('routes', () => {
  const files = fs.readdirSync(routes).filter((f) => f.endsWith('.ts'));

  it('are read from src/server/routes', () => {
    expect(files.length).toBeGreaterThan(20);
  });

  it('never query the database', () => {
    const found: string[] = [];
    for (const file of files) {
      const lines = fs.readFileSync(path.join(routes, file), 'utf8').split('\n');
      lines.forEach((line, i) => {
        if (QUERYING.some((re) => re.test(line))) found.push(`${file}:${i + 1}: ${line.trim()}`);
      });
    }
    expect(found).toEqual([]);
  });
});
