import type { Db } from '../db/connect.js';

/**
 * Where a cached read comes from: the database, and for a request, its view, which folds in the
 * other processes' changes once per request (the request then answers as of its start for their
 * writes; this process's own writes count at once, always).
 */
export interface ReadSource {
  db: Db;
  readView?: { refreshed?: boolean };
}

/**
 * Answers of the hottest reads (session lookup, project access, the full ticket read, the ticket
 * list as JSON text), each kept with the *scopes* it shows (src/db/changes.ts): a project's
 * records, the users, sessions and keys, settings. A write drops, lazily, only the entries whose
 * scopes it changed: this process's writes as they commit (a client never reads past its own
 * write), other processes' commits from the change log (PostgreSQL) or as a change of everything
 * (SQLite's other processes, the CLI) at the first read after them, at most EXTERNAL_CHECK_MS late
 * (src/db/connect.ts). Reads inside a transaction never use it: they may see that transaction's
 * uncommitted rows. Decision 047.
 *
 * Values are shared between requests: callers must not change what they get.
 */
export class ReadCache {
  readonly #entries = new Map<
    string,
    { value: unknown; size: number; scopes: readonly string[]; at: number; used: boolean }
  >();
  #size = 0;
  #hits = 0;
  #misses = 0;

  constructor(
    /** Budget for the kept values and their keys, in estimated bytes (DOCKET_READ_CACHE_MB). */
    readonly maxSize = 16 * 1024 * 1024,
  ) {}

  /**
   * The value kept under `key` while none of its scopes changed, else `compute()`'s, kept with the
   * scopes `scopesOf` names for it.
   */
  async get<T>(
    from: ReadSource,
    key: string,
    compute: () => Promise<T>,
    /** The scopes the value shows (src/db/changes.ts): a change to any of them drops it. */
    scopesOf: (value: T) => readonly string[],
    /** The value's size in bytes (a JSON text: its length); small records are counted as 256. */
    sizeOf: (value: T) => number = () => 256,
  ): Promise<T> {
    const changes = from.db.changes;
    if (!changes || this.maxSize === 0) return compute();
    if (!from.readView?.refreshed) {
      const refreshing = changes.refresh();
      if (refreshing) await refreshing;
      if (from.readView) from.readView.refreshed = true;
    }
    const { tracker } = changes;
    const hit = this.#entries.get(key);
    if (hit) {
      if (!tracker.changedSince(hit.scopes, hit.at)) {
        // Marked, not moved: moving an entry to the end of the map on every hit (delete and set)
        // costs V8 several microseconds in rehashing, more than the rest of a cached read.
        hit.used = true;
        this.#hits++;
        return hit.value as T;
      }
      this.#entries.delete(key);
      this.#size -= hit.size;
    }
    this.#misses++;
    const at = tracker.seq;
    const value = await compute();
    const scopes = scopesOf(value);
    // A write during compute() changed what the value shows: it may already be stale, keep nothing.
    if (tracker.changedSince(scopes, at)) return value;
    // Keys, the map entry and the string headers: about 100 bytes on top of the value.
    const size = sizeOf(value) + key.length + 100;
    if (size > this.maxSize / 4) return value;
    const old = this.#entries.get(key);
    if (old) this.#size -= old.size;
    this.#entries.delete(key);
    this.#entries.set(key, { value, size, scopes, at, used: false });
    this.#size += size;
    if (this.#size > this.maxSize) this.#evict();
    return value;
  }

  /**
   * Second chance ("clock"), an approximation of least recently used: from the oldest entry on,
   * one used since it was last passed goes to the end unmarked, one unused is dropped, until the
   * kept values fit the budget again.
   */
  #evict() {
    for (const [k, e] of this.#entries) {
      if (this.#size <= this.maxSize) break;
      this.#entries.delete(k);
      if (e.used) {
        e.used = false;
        this.#entries.set(k, e);
      } else {
        this.#size -= e.size;
      }
    }
  }

  /** Entries kept (some may be stale, dropped when next asked for). */
  get size() {
    return this.#entries.size;
  }

  /** Estimated bytes kept. */
  get bytes() {
    return this.#size;
  }

  /** Answers served from the cache and computed, since the start. */
  get stats() {
    return { hits: this.#hits, misses: this.#misses };
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
