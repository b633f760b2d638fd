import { READ_CACHE_DEFAULT_MB } from '../config.js';
import type { ChangeTracker } from '../db/changes.js';
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
 * What one kept entry costs besides its value, its key and its scopes, in bytes of V8's heap: the
 * entry record (five fields) and its slot in the Map's table, which doubles as it grows (measured
 * with test/read-cache-weight.test.ts).
 */
export const ENTRY_BYTES = 112;

/** Bytes of a string on V8's heap: a header, then one byte a character, or two if any is past U+00FF. */
export function stringBytes(s: string): number {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the one-byte range starts at U+0000
  const wide = /[^\u0000-\u00ff]/.test(s);
  return 16 + ((s.length * (wide ? 2 : 1) + 7) & ~7);
}

/**
 * Bytes a plain value (records of strings, numbers, booleans, nulls, arrays and objects, as the
 * cached look-ups keep) takes on V8's heap, estimated: objects with their fields in the object,
 * arrays with their element store, strings by stringBytes. Shared values are counted where they
 * appear.
 */
export function weigh(value: unknown): number {
  if (typeof value === 'string') return stringBytes(value);
  if (value === null || typeof value !== 'object') return 0; // small integers and constants are in place
  if (Buffer.isBuffer(value)) return value.byteLength + 96; // its bytes outside the heap, and its objects
  if (Array.isArray(value)) {
    let n = 32 + 8 * value.length;
    for (const v of value) n += typeof v === 'number' && !Number.isInteger(v) ? 16 : weigh(v);
    return n;
  }
  let n = 24;
  for (const k in value) {
    const v = (value as Record<string, unknown>)[k];
    n += 8 + (typeof v === 'number' && !Number.isInteger(v) ? 16 : weigh(v));
  }
  return n;
}

interface Entry {
  value: unknown;
  size: number;
  scopes: readonly string[];
  at: number;
  used: boolean;
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
 * Entries are weighed by the bytes they hold on the heap (the value, its key and scopes, the
 * entry itself: decision 062), and the least recently used go first when the budget is full.
 *
 * Values are shared between requests: callers must not change what they get.
 */
export class ReadCache {
  readonly #entries = new Map<string, Entry>();
  /** Scope lists, one per distinct list: most entries of a project show the same ones. */
  readonly #scopeLists = new Map<string, readonly string[]>();
  #size = 0;
  #hits = 0;
  #misses = 0;
  #evictions = 0;
  #dropped = 0;

  constructor(
    /** Budget for the kept entries, in bytes (DOCKET_READ_CACHE_MB). */
    readonly maxSize = READ_CACHE_DEFAULT_MB * 1024 * 1024,
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
    /** The value's bytes (a JSON text: stringBytes); by default weighed as a plain record. */
    sizeOf: (value: T) => number = weigh,
  ): Promise<T> {
    const changes = from.db.changes;
    if (!changes || this.maxSize === 0) return compute();
    const kept = await this.#kept(from, key);
    if (kept) {
      this.#hits++;
      return kept.value as T;
    }
    this.#misses++;
    const { tracker } = changes;
    const at = tracker.seq;
    const value = await compute();
    const scopes = scopesOf(value);
    // A write during compute() changed what the value shows: it may already be stale, keep nothing.
    if (tracker.changedSince(scopes, at)) return value;
    this.#keep(tracker, key, value, sizeOf(value), scopes, at);
    return value;
  }

  /**
   * The value kept under `key` while none of its scopes changed, or undefined; computes nothing,
   * counts nothing (a part of another answer: src/domain/column-ranks.ts).
   */
  async peek<T>(from: ReadSource, key: string): Promise<T | undefined> {
    if (!from.db.changes || this.maxSize === 0) return undefined;
    return (await this.#kept(from, key))?.value as T | undefined;
  }

  async #kept(from: ReadSource, key: string): Promise<Entry | undefined> {
    const changes = from.db.changes as NonNullable<Db['changes']>;
    if (!from.readView?.refreshed) {
      const refreshing = changes.refresh();
      if (refreshing) await refreshing;
      if (from.readView) from.readView.refreshed = true;
    }
    const hit = this.#entries.get(key);
    if (!hit) return undefined;
    if (!changes.tracker.changedSince(hit.scopes, hit.at)) {
      // Marked, not moved: moving an entry to the end of the map on every hit (delete and set)
      // costs V8 several microseconds in rehashing, more than the rest of a cached read.
      hit.used = true;
      return hit;
    }
    this.#entries.delete(key);
    this.#size -= hit.size;
    this.#dropped++;
    return undefined;
  }

  #keep(
    tracker: ChangeTracker,
    key: string,
    value: unknown,
    bytes: number,
    scopes: readonly string[],
    at: number,
  ) {
    const listKey = scopes.join(' ');
    let shared = this.#scopeLists.get(listKey);
    if (!shared) {
      // A few lists per project; bounded all the same.
      if (this.#scopeLists.size >= 10_000) this.#scopeLists.clear();
      shared = scopes;
      this.#scopeLists.set(listKey, shared);
    }
    const size = bytes + stringBytes(key) + ENTRY_BYTES;
    if (size > this.maxSize / 4) return;
    const old = this.#entries.get(key);
    if (old) this.#size -= old.size;
    this.#entries.delete(key);
    this.#entries.set(key, { value, size, scopes: shared, at, used: false });
    this.#size += size;
    if (this.#size > this.maxSize) this.#evict(tracker);
  }

  /**
   * Second chance ("clock"), an approximation of least recently used: from the oldest entry on,
   * one used since it was last passed goes to the end unmarked, one unused is dropped, until the
   * kept values fit the budget again. An entry whose scopes changed since is dropped as stale, not
   * counted as an eviction.
   */
  #evict(tracker: ChangeTracker) {
    for (const [k, e] of this.#entries) {
      if (this.#size <= this.maxSize) break;
      this.#entries.delete(k);
      if (tracker.changedSince(e.scopes, e.at)) {
        this.#size -= e.size;
        this.#dropped++;
      } else if (e.used) {
        e.used = false;
        this.#entries.set(k, e);
      } else {
        this.#size -= e.size;
        this.#evictions++;
      }
    }
  }

  /** Entries kept (some may be stale, dropped when next asked for). */
  get size() {
    return this.#entries.size;
  }

  /** Bytes kept, as weighed. */
  get bytes() {
    return this.#size;
  }

  /** Answers served from the cache and computed, since the start. */
  get stats() {
    return { hits: this.#hits, misses: this.#misses };
  }

  /**
   * Entries dropped since the start: `evictions` to make room (still valid, least recently used),
   * `stale` because a scope they show changed.
   */
  get drops() {
    return { evictions: this.#evictions, stale: this.#dropped };
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
