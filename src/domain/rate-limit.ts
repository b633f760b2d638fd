import { sql } from 'kysely';
import type { Db } from '../db/connect.js';
import { ERR } from '../shared/errors.js';
import { AppError } from './errors.js';

/**
 * A fixed-window counter per key, kept in the database (table `rate_limits`, migration 063), so that
 * every instance on one database counts together (docs/decisions/042-several-instances.md). Used for
 * registration attempts per address and password attempts per account and per address
 * (src/domain/attempts.ts).
 *
 * A hit is one atomic upsert that starts a new window when the old one has ended and answers the
 * count: hits sent at once on several instances are all counted, none is lost to a read-then-write.
 */
export class WindowCounter {
  constructor(
    private readonly db: Db,
    /** The keys' prefix: counters of different limits never share a row. */
    private readonly name: string,
    private readonly limit: number,
    private readonly windowMs: number,
  ) {}

  /**
   * Counts a hit. Answers 0 when it is within the limit, or the seconds until the key may try again,
   * in which case the hit is taken back (a refused try does not lengthen the wait of the next one).
   */
  async hit(key: string, now = Date.now()): Promise<number> {
    const k = this.key(key);
    const resetAt = now + this.windowMs;
    const row = await this.db.kysely
      .insertInto('rate_limits')
      .values({ key: k, count: 1, reset_at: resetAt })
      .onConflict((oc) =>
        oc.column('key').doUpdateSet({
          count: sql`case when rate_limits.reset_at <= ${now} then 1 else rate_limits.count + 1 end`,
          reset_at: sql`case when rate_limits.reset_at <= ${now} then ${resetAt} else rate_limits.reset_at end`,
        }),
      )
      .returning(['count', 'reset_at'])
      .executeTakeFirstOrThrow();
    if (row.count <= this.limit) return 0;
    await this.remove(key, now);
    return Math.max(1, Math.ceil((Number(row.reset_at) - now) / 1000));
  }

  /** Counts a hit, or refuses it with 429 `Rate limit exceeded` and `retryAfter`. */
  async take(key: string): Promise<void> {
    const wait = await this.hit(key);
    if (wait > 0) throw new AppError(429, ERR.rateLimit, { retryAfter: wait });
  }

  /** Takes back one counted hit of the current window (the attempt succeeded, or was refused). */
  async remove(key: string, now = Date.now()): Promise<void> {
    await this.db.kysely
      .updateTable('rate_limits')
      .set({ count: sql`count - 1` })
      .where('key', '=', this.key(key))
      .where('reset_at', '>', now)
      .where('count', '>', 0)
      .execute();
  }

  private key(key: string) {
    return `${this.name}:${key}`;
  }
}

/** Deletes the counters whose window has ended (app.ts runs it every few minutes). */
export async function pruneRateLimits(db: Db, now = Date.now()): Promise<void> {
  await db.kysely.deleteFrom('rate_limits').where('reset_at', '<=', now).execute();
}
