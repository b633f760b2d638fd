import argon2 from 'argon2';
import type { PasswordHashing } from '../config.js';

const SETTINGS = {
  // OWASP's first Argon2id setting: 46 MiB, 1 iteration, 1 lane (as strong as its 19 MiB, 2
  // iterations). Above glibc's largest mmap threshold (32 MiB), the working memory is mapped for
  // each hash and given back when it ends; 19 MiB blocks stayed in the allocator's arenas, about
  // 80 MB of resident memory for good after a few concurrent sign-ins (issue 16, docs/performance.md).
  standard: { type: argon2.argon2id, memoryCost: 47_104, timeCost: 1, parallelism: 1 },
  // The cheapest Argon2id allows, for tests: hashing is not what they test, and the suite hashes thousands.
  test: { type: argon2.argon2id, memoryCost: 1024, timeCost: 1, parallelism: 1 },
} as const;
let options: (typeof SETTINGS)[PasswordHashing] = SETTINGS.standard;

/**
 * Chooses the hashing setting of new passwords for this process (buildApp calls it from Config).
 * Stored hashes carry their own parameters, so hashes of either setting keep verifying.
 */
export function setPasswordHashing(setting: PasswordHashing) {
  if (SETTINGS[setting] !== options) dummyHash = null;
  options = SETTINGS[setting];
}

export const hashPassword = (password: string): Promise<string> => argon2.hash(password, options);

let dummyHash: Promise<string> | null = null;

/**
 * Verifies a password. With no stored hash it still spends the same time, so that the answer
 * does not reveal whether the account exists.
 */
export async function verifyPassword(hash: string | null | undefined, password: string): Promise<boolean> {
  if (!hash) {
    dummyHash ??= hashPassword('dummy-password-for-timing');
    await argon2.verify(await dummyHash, password).catch(() => false);
    return false;
  }
  try {
    return await argon2.verify(hash, password);
  } catch {
    return false;
  }
}
