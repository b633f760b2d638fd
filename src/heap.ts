/**
 * V8's memory setting for the server and the command line, set before the rest is loaded (their
 * main.ts import this module first). By default V8 sizes its heap for throughput: under load it lets the heap grow
 * to several times what is live (460 MB resident with 60 MB live, in `npm run bench`).
 * `--optimize-for-size` keeps the young generation and the growth between collections small: the
 * same load then holds the server near 150 MB with no loss of throughput measured (decision 052,
 * docs/performance.md "Memory").
 *
 * And the server gives back, once a busy spell has ended, the heap the spell grew (`startIdleCompaction`).
 */
import { performance } from 'node:perf_hooks';
import v8 from 'node:v8';
import vm from 'node:vm';

v8.setFlagsFromString('--optimize-for-size');

/**
 * A full collection on demand. V8 gives it only to contexts made while `--expose-gc` is set: one
 * context is made for it, and the flag is cleared again so that nothing else gets a `gc` global.
 */
const fullCollection: () => void = (() => {
  v8.setFlagsFromString('--expose-gc');
  try {
    return vm.runInNewContext('gc') as () => void;
  } finally {
    v8.setFlagsFromString('--no-expose-gc');
  }
})();

/**
 * A full collection that also compacts: moves the live objects together and gives back the pages
 * they leave. A plain full collection frees the dead objects but keeps every page that still holds a
 * live one, and after a load most do (the read cache's texts and compiled code among the request's
 * garbage): 66 MB used of 94 to 111 MB reserved after `npm run bench`, against 72 to 75 MB when V8
 * happened to compact. V8 compacts on every full collection only while its flag says so: set for
 * this one and cleared again. Measured on a heap of 125 MB with a third of it live: plain, 43 MB
 * used of 126 reserved (43 ms); compacting, 43 of 60 (81 ms).
 */
export function collectAndCompact(): void {
  v8.setFlagsFromString('--compact-on-every-full-gc');
  try {
    fullCollection();
  } finally {
    v8.setFlagsFromString('--no-compact-on-every-full-gc');
  }
}

/** The event loop's share of busy time, sampled each second. */
export interface IdleSample {
  /** Event loop utilisation over the last second, 0..1. */
  busy: number;
  /** V8's heap: reserved and used, bytes. */
  heapTotal: number;
  heapUsed: number;
}

/** Busier than this (of the second), a second counts as load. */
export const BUSY_SHARE = 0.05;
/** Quiet seconds after load before the collection. */
export const QUIET_SECONDS = 2;
/** Heap reserved beyond what is used, bytes, below which a collection would give back too little. */
export const SLACK_BYTES = 8 * 1024 * 1024;

/**
 * Decides, second by second, when to collect: after at least one busy second, at the first quiet
 * second from the QUIET_SECONDS-th on where the heap holds SLACK_BYTES more than it uses; then not
 * again until the next busy second. "Used" counts the garbage the load left until V8 next collects,
 * so a heap that looks full when the load stops is looked at again each quiet second rather than
 * judged once. Returns the step function (true: collect now).
 */
export function idleCompactionPolicy(): (s: IdleSample) => boolean {
  let loaded = false;
  let quiet = 0;
  return (s) => {
    if (s.busy > BUSY_SHARE) {
      loaded = true;
      quiet = 0;
      return false;
    }
    if (!loaded || ++quiet < QUIET_SECONDS) return false;
    if (s.heapTotal - s.heapUsed < SLACK_BYTES) return false;
    loaded = false;
    return true;
  };
}

/**
 * Once a busy spell ends (two quiet seconds after a busy one), one full compacting collection
 * (collectAndCompact): V8 grows the heap with the load and gives it back only when its own memory
 * reducer judges the process idle, which a server that polls its outboxes and answers health checks
 * may never be (decision 052, "Amended"). The collection takes tens of milliseconds of a loop that
 * has nothing else to do.
 * Returns the stop function.
 */
export function startIdleCompaction(): () => void {
  const step = idleCompactionPolicy();
  let last = performance.eventLoopUtilization();
  const timer = setInterval(() => {
    const now = performance.eventLoopUtilization();
    const busy = performance.eventLoopUtilization(now, last).utilization;
    last = now;
    const h = v8.getHeapStatistics();
    if (step({ busy, heapTotal: h.total_heap_size, heapUsed: h.used_heap_size })) collectAndCompact();
  }, 1000);
  timer.unref();
  return () => clearInterval(timer);
}
