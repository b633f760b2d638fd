/**
 * Other instances' commits, as this instance's read cache learns of them (PostgreSQL, decisions
 * 047, 053 and 054). Every instance's commits leave their scopes in the change log
 * (`cache_changes`, written with the COMMIT by src/db/connect.ts). A worker thread
 * (src/db/change-log-worker.ts) reads the entries the other instances wrote, every couple of
 * milliseconds while requests come, and passes their scopes on through a message port; a request
 * drains that port synchronously and reads, in memory shared with the worker, how fresh that is.
 *
 * A request waits only when what is known is older than CHANGE_LOG_STALE_MS (after a quiet spell,
 * when the worker sleeps), never for a busy event loop: the worker's own loop does nothing else, so
 * its readings take a round trip however much the main thread has to send.
 */
import { once } from 'node:events';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { MessageChannel, type MessagePort, receiveMessageOnPort, Worker } from 'node:worker_threads';
import type pg from 'pg';
import { ALL, type ChangeTracker } from './changes.js';

/**
 * Another instance's commit reaches this instance's cached reads at most this late (ms). Requests
 * answer from what is known while it is this recent and wait for a reading when it is older.
 */
export const CHANGE_LOG_STALE_MS = 20;
/** A reader that answers nothing for this long is given up on: nothing is trusted meanwhile. */
const GIVE_UP_MS = 2_000;

/** The slots the two threads share: two clock readings (ms since the epoch) and counters. */
export const SLOT = {
  /** f64 (a hint, read and written plainly): when the main thread last asked for what is known. */
  wantedAt: 0,
  /** i64, µs (atomic): when (`clock`) the last finished reading started; every commit before it is known. */
  freshAs: 1,
  /** i32: readings started, and finished (one at a time, so in the order they started). */
  begun: 4,
  finished: 5,
  /** i32: bumped (and notified) to wake the reader. */
  asked: 6,
  /** i32: 1 when a reading is wanted at once (a forced refresh). */
  urgent: 7,
  /** i32: 1 when the reader is to stop. */
  stop: 8,
  /** i32: 1 while the reader sleeps for want of requests (a request then wakes it). */
  sleeping: 9,
  /** i32: messages the reader has posted (the main thread drains the port only when there are new ones). */
  posted: 10,
} as const;

export interface ChangeLogShared {
  buffer: SharedArrayBuffer;
}

export function sharedSlots(shared: ChangeLogShared) {
  const i64 = new BigInt64Array(shared.buffer, 0, 2);
  return {
    f64: new Float64Array(shared.buffer, 0, 2),
    i32: new Int32Array(shared.buffer),
    /** When the last finished reading started (ms on `clock`). */
    freshAs: () => Number(Atomics.load(i64, SLOT.freshAs)) / 1000,
    setFreshAs: (ms: number) => Atomics.store(i64, SLOT.freshAs, BigInt(Math.floor(ms * 1000))),
  };
}

type WaitAsync = (
  a: Int32Array,
  index: number,
  value: number,
  timeout?: number,
) => { async: boolean; value: Promise<string> | string };
/** `Atomics.waitAsync` (ES2024, in Node since 16), typed here: the project compiles against ES2023. */
export const waitAsync: WaitAsync = (a, index, value, timeout) =>
  (Atomics as unknown as { waitAsync: WaitAsync }).waitAsync(a, index, value, timeout);

/**
 * Milliseconds on the process's monotonic clock, the same in every thread (each thread's
 * `performance.timeOrigin` is sampled when it starts, so sums with it may disagree between threads).
 */
export const clock = () => Number(process.hrtime.bigint()) / 1e6;

/**
 * The reader's code: the compiled file beside this one in the built server; in the tests, which run
 * the TypeScript source, a bootstrap that registers tsx in the new thread and imports the source.
 */
function workerEntry(): string | URL {
  if (!workerEntry.source) return new URL('./change-log-worker.js', import.meta.url);
  // tsx's module API (its ESM build, beside the loader the package exports as its main entry).
  const tsx = new URL('./esm/api/index.mjs', pathToFileURL(createRequire(import.meta.url).resolve('tsx')))
    .href;
  const source = new URL('./change-log-worker.ts', import.meta.url).href;
  return `import(${JSON.stringify(tsx)}).then((t) => { t.register(); return import(${JSON.stringify(source)}); })`;
}
workerEntry.source = import.meta.url.endsWith('.ts');

interface Running extends ReturnType<typeof sharedSlots> {
  worker: Worker;
  port: MessagePort;
  /** Messages drained from the port so far. */
  drained: number;
}

export interface ChangeLogReader {
  /** After the migrations: starts reading the change log, if this database has one (true then). */
  start(): Promise<boolean>;
  /** See Db['changes'].refresh. */
  refresh(force?: boolean): void | Promise<void>;
  close(): Promise<void>;
}

export function changeLogReader(opts: {
  pool: pg.Pool;
  connectionString: string;
  schema?: string;
  /** This instance's entries, which it has announced already. */
  origin: string;
  tracker: ChangeTracker;
}): ChangeLogReader {
  const { pool, tracker } = opts;
  let running: Running | null = null;
  /** A reader starting again after the last one stopped. */
  let starting: Promise<void> | null = null;
  let closed = false;
  /** The log exists (the migrations made it): a reader that stopped is started again. */
  let logExists = false;

  /** Starts a reader that knows every entry up to `seen`, as read by a query started `at`. */
  const spawn = (seen: number, at: number) => {
    const buffer = new SharedArrayBuffer(64);
    const slots = sharedSlots({ buffer });
    slots.setFreshAs(at);
    slots.f64[SLOT.wantedAt] = clock();
    const { port1, port2 } = new MessageChannel();
    const worker = new Worker(workerEntry(), {
      ...(workerEntry.source ? { eval: true } : {}),
      workerData: {
        connectionString: opts.connectionString,
        schema: opts.schema,
        origin: opts.origin,
        seen,
        shared: { buffer },
        port: port2,
      },
      transferList: [port2],
      resourceLimits: { maxOldGenerationSizeMb: 16, maxYoungGenerationSizeMb: 2 },
    });
    worker.unref();
    const me: Running = { ...slots, worker, port: port1, drained: 0 };
    worker.on('error', () => {
      // Reported by the exit that follows.
    });
    worker.on('exit', () => {
      if (running !== me) return;
      // Nothing is known any more: everything changed, and a new reader starts at the next request.
      running = null;
      tracker.changed([ALL]);
    });
    running = me;
  };

  const start = async () => {
    const exists = await pool.query<{ t: string | null }>("select to_regclass('cache_changes')::text as t");
    if (!exists.rows[0].t) return false;
    const at = clock();
    const head = await pool.query<{ id: number | null }>('select max(id) as id from cache_changes');
    logExists = true;
    if (running || closed) return true;
    spawn(Number(head.rows[0].id ?? 0), at);
    tracker.changed([ALL]);
    return true;
  };

  const ask = (r: Running, urgent: boolean) => {
    if (urgent) Atomics.store(r.i32, SLOT.urgent, 1);
    Atomics.add(r.i32, SLOT.asked, 1);
    Atomics.notify(r.i32, SLOT.asked);
  };

  /**
   * Folds in the scopes the reader has passed on. Read `freshAs` before calling: the reader posts a
   * reading's scopes before it stores its time, so they cover it.
   */
  const drain = (r: Running) => {
    const posted = Atomics.load(r.i32, SLOT.posted);
    while (r.drained < posted) {
      const m = receiveMessageOnPort(r.port);
      if (!m) return;
      r.drained++;
      tracker.changed(m.message as string[]);
    }
  };

  /** Waits until `done()`, waking the reader; false when it answers nothing for GIVE_UP_MS. */
  const waitFor = async (r: Running, done: () => boolean, urgent: boolean) => {
    const until = clock() + GIVE_UP_MS;
    while (!done()) {
      const finished = Atomics.load(r.i32, SLOT.finished);
      if (done()) break;
      ask(r, urgent);
      const left = until - clock();
      if (left <= 0 || running !== r) return false;
      await waitAsync(r.i32, SLOT.finished, finished, Math.min(left, 100)).value;
    }
    return true;
  };

  /** Nothing can be known now (no reader, or one that does not answer): nothing is trusted. */
  const unknown = () => {
    tracker.changed([ALL]);
    if (logExists && !closed && !running)
      starting ??= start()
        .then(() => {})
        .catch(() => {})
        .finally(() => {
          starting = null;
        });
  };

  const refresh = (force?: boolean): void | Promise<void> => {
    const r = running;
    if (!r) return unknown();
    const now = clock();
    r.f64[SLOT.wantedAt] = now;
    if (force) {
      // A reading that starts after this call: every commit acknowledged before it is then known.
      const wanted = Atomics.load(r.i32, SLOT.begun) + 1;
      return waitFor(r, () => Atomics.load(r.i32, SLOT.finished) >= wanted, true).then((ok) =>
        ok ? drain(r) : unknown(),
      );
    }
    const fresh = r.freshAs();
    drain(r);
    // A sleeping reader is woken; one that reads already needs no call (a wake-up is a system call).
    if (Atomics.load(r.i32, SLOT.sleeping) === 1) ask(r, false);
    if (now - fresh <= CHANGE_LOG_STALE_MS) return;
    const since = now - CHANGE_LOG_STALE_MS;
    return waitFor(r, () => r.freshAs() >= since, false).then((ok) => (ok ? drain(r) : unknown()));
  };

  const close = async () => {
    closed = true;
    await starting;
    const r = running;
    running = null;
    if (!r) return;
    // The reader ends its connection and says so; one that does not within a second is stopped.
    const stopped = once(r.worker, 'message').catch(() => {});
    Atomics.store(r.i32, SLOT.stop, 1);
    ask(r, true);
    await Promise.race([stopped, new Promise((resolve) => setTimeout(resolve, 1_000).unref())]);
    await r.worker.terminate();
    r.port.close();
  };

  return { start, refresh, close };
}
