import type { Db } from '../db/connect.js';

/**
 * Where a cached read comes from: the database, and for a request, its view, which reads the
 * other processes' commit counter once per request (the request then answers as of its start for
 * their writes; this process's own writes count at once, always).
 */
export interface ReadSource {
  db: Db;
  readView?: { external?: number };
}

/**
 * Answers of the hottest reads (session lookup, project access, the full ticket read, the ticket
 * list as JSON text), kept while the database has not changed at all: every entry belongs to the
 * database generation read before it was computed (Db.changes), and the first read that sees
 * another generation drops them all. Any write anywhere invalidates everything, whatever the write
 * and whoever made it: this process's writes at once (a client never reads past its own write), the
 * commits of other processes (the CLI, another Docket on the same database) within
 * EXTERNAL_CHECK_MS (src/db/connect.ts). Reads inside a transaction never use it: they may see that
 * transaction's uncommitted rows.
 *
 * Values are shared between requests: callers must not change what they get.
 */
export class ReadCache {
  readonly #entries = new Map<string, { value: unknown; size: number }>();
  /** The generation the entries belong to: this process's write count and the external counter. */
  #local = -1;
  #external = -1;
  #size = 0;
  /** Look-ups answered from the cache, and computed (/metrics reads both). */
  hits = 0;
  misses = 0;

  constructor(
    /** Budget for the kept values and their keys, in estimated bytes (DOCKET_READ_CACHE_MB). */
    readonly maxSize = 16 * 1024 * 1024,
  ) {}

  /** The value kept under `key` for the database's current generation, else `compute()`'s, kept. */
  async get<T>(
    from: ReadSource,
    key: string,
    compute: () => Promise<T>,
    /** The value's size in bytes (a JSON text: its length); small records are counted as 256. */
    sizeOf: (value: T) => number = () => 256,
  ): Promise<T> {
    const changes = from.db.changes;
    if (!changes) return compute();
    const seen = from.readView?.external ?? changes.external();
    const external = typeof seen === 'number' ? seen : await seen;
    if (from.readView) from.readView.external = external;
    const local = changes.local();
    if (local !== this.#local || external !== this.#external) this.#reset(local, external);
    const hit = this.#entries.get(key);
    if (hit) {
      // Most recently used last: eviction takes from the front.
      this.#entries.delete(key);
      this.#entries.set(key, hit);
      this.hits++;
      return hit.value as T;
    }
    this.misses++;
    const value = await compute();
    // A write during compute() moved the generation on: the value may already be stale, keep nothing.
    if (this.#local !== local || this.#external !== external || changes.local() !== local) return value;
    // Keys, the map entry and the string headers: about 100 bytes on top of the value.
    const size = sizeOf(value) + key.length + 100;
    if (size > this.maxSize / 4) return value;
    this.#entries.set(key, { value, size });
    this.#size += size;
    for (const [k, e] of this.#entries) {
      if (this.#size <= this.maxSize) break;
      this.#entries.delete(k);
      this.#size -= e.size;
    }
    return value;
  }

  get size() {
    return this.#entries.size;
  }

  #reset(local: number, external: number) {
    this.#entries.clear();
    this.#size = 0;
    this.#local = local;
    this.#external = external;
  }
}

const caches = new WeakMap<Db, ReadCache>();

/** The read cache of a database connection (`bytes`: its budget, given once by buildApp). */
export function readCache(db: Db, bytes?: number): ReadCache {
  let cache = caches.get(db);
  if (!cache) {
    cache = new ReadCache(bytes);
    caches.set(db, cache);
  }
  return cache;
}
