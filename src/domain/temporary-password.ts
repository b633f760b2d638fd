import { randomInt } from 'node:crypto';
import { PASSWORD_RULES } from '../shared/accounts.js';

// No look-alike characters (0/O, 1/l/I), so that a password read from a terminal is typed right.
const UPPER = 'ABCDEFGHJKLMNPQRSTUVWXYZ';
const LOWER = 'abcdefghijkmnopqrstuvwxyz';
const DIGITS = '23456789';
const ALL = UPPER + LOWER + DIGITS;

/** A random password of `length` characters that meets the password rules (about 5.8 bits a character). */
export function temporaryPassword(length = 20): string {
  const pick = (set: string) => set[randomInt(set.length)];
  const chars = [pick(UPPER), pick(LOWER), pick(DIGITS)];
  while (chars.length < length) chars.push(pick(ALL));
  for (let i = chars.length - 1; i > 0; i--) {
    const j = randomInt(i + 1);
    [chars[i], chars[j]] = [chars[j], chars[i]];
  }
  const password = chars.join('');
  if (!PASSWORD_RULES.every((r) => r.test(password))) throw new Error('generated password breaks the rules');
  return password;
}
