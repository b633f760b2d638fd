import type { Db } from '../db/connect.js';
import type { Services } from './context.js';
import { RateLimited, WindowCounter } from './rate-limit.js';

/**
 * Password attempts: sign-ins, credential checks and every current-password confirmation (e-mail,
 * password and account changes, administrators' confirmations) share one count per account and one
 * per client address (docs/decisions/035-security.md).
 *
 * An attempt is counted when it starts, before the password hash is checked, and taken back only
 * when it succeeds: attempts sent in parallel all count, so the 11th of 30 parallel attempts is
 * refused without a hash check. The account is the user (whether named by username or e-mail), or
 * the name given when no user has it.
 */
export class AttemptLimiter {
  private readonly accounts: WindowCounter;
  private readonly addresses: WindowCounter;

  constructor(db: Db, accountLimit: number, addressLimit: number, windowMs: number) {
    this.accounts = new WindowCounter(db, 'login-account', accountLimit, windowMs);
    this.addresses = new WindowCounter(db, 'login-address', addressLimit, windowMs);
  }

  /**
   * Counts an attempt, or refuses it with 429 when the address or the account is over its limit.
   * The address is counted first, so that a blocked address adds no counter per name it tries.
   */
  async begin(account: string, address: string | null): Promise<Attempt> {
    const byAddress = address ? await this.addresses.check(address) : null;
    if (byAddress) throw new RateLimited(byAddress);
    const byAccount = await this.accounts.check(account);
    if (byAccount) {
      if (address) await this.addresses.remove(address);
      throw new RateLimited(byAccount);
    }
    let done = false;
    return {
      succeeded: async () => {
        if (done) return;
        done = true;
        await this.accounts.remove(account);
        if (address) await this.addresses.remove(address);
      },
    };
  }
}

export interface Attempt {
  /** The password was right: the attempt does not count (never call it inside a transaction). */
  succeeded(): Promise<void>;
}

const limiters = new WeakMap<object, AttemptLimiter>();

/** The app's limiter (one per database connection; the counts live in the database). */
export function attemptLimiter(s: Services): AttemptLimiter {
  let l = limiters.get(s.db);
  if (!l) {
    const c = s.config;
    l = new AttemptLimiter(s.db, c.loginLimit, c.loginAddressLimit, c.registerWindowSeconds * 1000);
    limiters.set(s.db, l);
  }
  return l;
}

/** The account key of a user. */
export const userAccount = (userId: string) => `user:${userId}`;
/** The account key of a login name that names no user. */
export const nameAccount = (login: string) => `name:${login.trim().toLowerCase()}`;
