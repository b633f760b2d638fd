import { accentTable } from '../../db/search-fold.js';

const { from, to } = accentTable();
const MAP = new Map([...from].map((c, i) => [c, to[i]]));

/** The words of `text` as PostgreSQL's docket_fold() makes them: accents out, lower case, space-separated. */
export function pgFold(text: string): string {
  let out = '';
  for (const c of text) out += MAP.get(c) ?? c;
  return out
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}
