import { type Kysely, sql } from 'kysely';
import { expect } from 'vitest';
import type { Client } from './factories.js';

const enc = encodeURIComponent;

export interface SearchPage {
  items: { key: string; projectKey: string; title: string }[];
  total: number;
  nextCursor: string | null;
}

/** GET /api/search as `c`, expected to answer 200. */
export async function search(c: Client, q: string, extra = ''): Promise<SearchPage> {
  const res = await c.get(`/api/search?q=${enc(q)}${extra}`);
  expect(res.statusCode, `${q}: ${res.body}`).toBe(200);
  return res.json() as SearchPage;
}

/** Every page of `q` at `limit`, following the cursors, and the total (the same on every page). */
export async function walk(c: Client, q: string, limit: number) {
  const seen: string[] = [];
  let cursor: string | null = null;
  let total = -1;
  do {
    const page: SearchPage = await search(c, q, `&limit=${limit}${cursor ? `&cursor=${enc(cursor)}` : ''}`);
    if (total >= 0) expect(page.total, q).toBe(total);
    total = page.total;
    seen.push(...page.items.map((i) => i.key));
    cursor = page.nextCursor;
  } while (cursor);
  return { seen, total };
}

/**
 * PostgreSQL: the schema as before migration 094 (no facets in the documents, nor their functions
 * and triggers), so that a test can migrate again; the triggers it replaced keep its bodies until then.
 */
export async function undoPostgresFacets(k: Kysely<any>) {
  for (const f of ['docket_ticket_search_labels()', 'docket_ticket_search_labels_changed()'])
    await sql.raw(`drop function ${f} cascade`).execute(k);
  await sql`drop function docket_ticket_facets(text, text, text, text, text, text)`.execute(k);
  await sql`update ticket_search set doc = ts_filter(doc, '{a,b,c,d}')`.execute(k);
}
