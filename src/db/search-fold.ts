/**
 * Latin letters with accents (U+00C0..U+024F) and their base letters: PostgreSQL's `docket_fold`
 * (migration 040) removes accents with translate() over this table, and the query words are folded
 * with the same table (src/domain/search/fold.ts), so both sides see the same words. Changing it
 * means rebuilding the index in a new migration.
 */
export function accentTable(): { from: string; to: string } {
  let from = '';
  let to = '';
  for (let c = 0xc0; c <= 0x24f; c++) {
    const ch = String.fromCodePoint(c);
    const base = ch.normalize('NFKD').replace(/\p{M}+/gu, '');
    if (base.length === 1 && base !== ch && /[A-Za-z]/.test(base)) {
      from += ch;
      to += base;
    }
  }
  return { from, to };
}
