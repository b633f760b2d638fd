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
    readonly name: string,
    private readonly limit: number,
    private readonly windowMs: number,
  ) {}

  /**
   * Counts a hit. Answers 0 when it is within the limit, or the seconds until the key may try again,
   * in which case the hit is taken back (a refused try does not lengthen the wait of the next one).
   */
  async hit(key: string, now = Date.now()): Promise<number> {
    return (await this.check(key, now))?.retryAfter ?? 0;
  }

  /**
   * Counts a hit; null when it is within the limit, else the refusal: the hit is taken back and the
   * window's refusals counted, in one statement, so that the first one of a window is known.
   */
  async check(key: string, now = Date.now()): Promise<Refusal | null> {
    const k = this.key(key);
    const resetAt = now + this.windowMs;
    const row = await this.db.kysely
      .insertInto('rate_limits')
      .values({ key: k, count: 1, reset_at: resetAt })
      .onConflict((oc) =>
        oc.column('key').doUpdateSet({
          count: sql`case when rate_limits.reset_at <= ${now} then 1 else rate_limits.count + 1 end`,
          refused: sql`case when rate_limits.reset_at <= ${now} then 0 else rate_limits.refused end`,
          reset_at: sql`case when rate_limits.reset_at <= ${now} then ${resetAt} else rate_limits.reset_at end`,
        }),
      )
      .returning(['count', 'reset_at'])
      .executeTakeFirstOrThrow();
    if (row.count <= this.limit) return null;
    const refused = await this.db.kysely
      .updateTable('rate_limits')
      .set({ count: sql`count - 1`, refused: sql`refused + 1` })
      .where('key', '=', k)
      .where('reset_at', '>', now)
      .returning('refused')
      .executeTakeFirst();
    return {
      limit: this.name,
      key,
      retryAfter: Math.max(1, Math.ceil((Number(row.reset_at) - now) / 1000)),
      first: Number(refused?.refused ?? 0) === 1,
    };
  }

  /** Counts a hit, or refuses it with 429 `Rate limit exceeded` and `retryAfter`. */
  async take(key: string): Promise<void> {
    const refusal = await this.check(key);
    if (refusal) throw new RateLimited(refusal);
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

/** A request a counter refused. */
export interface Refusal {
  /** The counter's name: `login-account`, `login-address`, `register`, `password-reset`, … */
  limit: string;
  /** What it counts: an address, `user:<id>`, `name:<login>`. */
  key: string;
  retryAfter: number;
  /** The first refusal of this key in this window: the one the audit log records (decision 058). */
  first: boolean;
}

/** 429 `Rate limit exceeded` with `Retry-After`, carrying the refusal for the audit log. */
export class RateLimited extends AppError {
  constructor(readonly refusal: Refusal) {
    super(429, ERR.rateLimit, { retryAfter: refusal.retryAfter });
  }
}

/** Deletes the counters whose window has ended (app.ts runs it every few minutes). */
export async function pruneRateLimits(db: Db, now = Date.now()): Promise<void> {
  await db.kysely.deleteFrom('rate_limits').where('reset_at', '<=', now).execute();
}
