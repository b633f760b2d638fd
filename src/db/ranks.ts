/** The ranks of freshly numbered lists (board ranks: docs/decisions/033-board-ranks.md). */
import { generateKeyBetween } from 'fractional-indexing';

/** The digits of rank keys, in their order. */
export const DIGITS = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/**
 * The rank of the i-th item of a freshly numbered list: 'a0', 'a1', … 'az', 'b00', … — the keys
 * `generateNKeysBetween(null, null, n)` makes, computed from the index alone (the migration, the restore
 * of old backups, rebalancing).
 */
export function rankForIndex(i: number): string {
  let rest = i;
  for (let len = 1; len <= 26; len++) {
    const capacity = 62 ** len;
    if (rest < capacity) {
      let digits = '';
      for (let k = 0; k < len; k++) {
        digits = DIGITS[rest % 62] + digits;
        rest = Math.floor(rest / 62);
      }
      return String.fromCharCode(97 + len - 1) + digits;
    }
    rest -= capacity;
  }
  throw new RangeError(`No rank for index ${i}`);
}

/** True for a key the rank scheme can place items around (a backup's ranks are checked with it). */
export function isValidRank(rank: string): boolean {
  if (rank.length === 0 || rank.length > 200) return false;
  try {
    generateKeyBetween(rank, null);
    return true;
  } catch {
    return false;
  }
}
