import { ERR } from '../shared/errors.js';
import type { Services } from './context.js';
import { AppError } from './errors.js';
import { WindowCounter } from './rate-limit.js';

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

  constructor(accountLimit: number, addressLimit: number, windowMs: number) {
    this.accounts = new WindowCounter(accountLimit, windowMs);
    this.addresses = new WindowCounter(addressLimit, windowMs);
  }

  /** Counts an attempt, or refuses it with 429 when the account or the address is over its limit. */
  begin(account: string, address: string | null): Attempt {
    const wait = Math.max(
      this.accounts.blockedFor(account),
      address ? this.addresses.blockedFor(address) : 0,
    );
    if (wait > 0) throw new AppError(429, ERR.rateLimit, { retryAfter: wait });
    this.accounts.add(account);
    if (address) this.addresses.add(address);
    let done = false;
    return {
      succeeded: () => {
        if (done) return;
        done = true;
        this.accounts.remove(account);
        if (address) this.addresses.remove(address);
      },
    };
  }
}

export interface Attempt {
  /** The password was right: the attempt does not count. */
  succeeded(): void;
}

const limiters = new WeakMap<object, AttemptLimiter>();

/** The instance's limiter (one per database connection, so one per app). */
export function attemptLimiter(s: Services): AttemptLimiter {
  let l = limiters.get(s.db);
  if (!l) {
    const c = s.config;
    l = new AttemptLimiter(c.loginLimit, c.loginAddressLimit, c.registerWindowSeconds * 1000);
    limiters.set(s.db, l);
  }
  return l;
}

/** The account key of a user. */
export const userAccount = (userId: string) => `user:${userId}`;
/** The account key of a login name that names no user. */
export const nameAccount = (login: string) => `name:${login.trim().toLowerCase()}`;
