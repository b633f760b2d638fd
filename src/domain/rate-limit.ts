/**
 * A fixed-window counter per key, kept in memory. Used for registration attempts per address and
 * password attempts per account and per address (src/domain/attempts.ts). Each instance counts on
 * its own.
 */
export class WindowCounter {
  private readonly hits = new Map<string, { count: number; resetAt: number }>();

  constructor(
    private readonly limit: number,
    private readonly windowMs: number,
  ) {}

  /** Seconds until the key may try again, or 0 when it is below the limit. */
  blockedFor(key: string, now = Date.now()): number {
    const h = this.hits.get(key);
    if (!h || h.resetAt <= now) return 0;
    return h.count >= this.limit ? Math.max(1, Math.ceil((h.resetAt - now) / 1000)) : 0;
  }

  add(key: string, now = Date.now()): void {
    const h = this.hits.get(key);
    if (!h || h.resetAt <= now) {
      if (this.hits.size > 100_000) this.prune(now);
      this.hits.set(key, { count: 1, resetAt: now + this.windowMs });
    } else {
      h.count++;
    }
  }

  reset(key: string): void {
    this.hits.delete(key);
  }

  /** Takes back one counted attempt (it succeeded). */
  remove(key: string, now = Date.now()): void {
    const h = this.hits.get(key);
    if (!h || h.resetAt <= now) return;
    if (h.count <= 1) this.hits.delete(key);
    else h.count--;
  }

  private prune(now: number) {
    for (const [k, h] of this.hits) if (h.resetAt <= now) this.hits.delete(k);
  }
}
