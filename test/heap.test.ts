import v8 from 'node:v8';
import { afterAll, describe, expect, it } from 'vitest';
import {
  BUSY_SHARE,
  collectAndCompact,
  type IdleSample,
  idleCompactionPolicy,
  QUIET_SECONDS,
  SLACK_BYTES,
} from '../src/heap.js';

// Importing src/heap.ts sets V8's --optimize-for-size for the process: the worker runs other files
// after this one (vitest.config.ts, decision 061), so the setting is taken back afterwards.
afterAll(() => v8.setFlagsFromString('--no-optimize-for-size'));

const MB = 1024 * 1024;
const busy: IdleSample = { busy: 0.9, heapTotal: 100 * MB, heapUsed: 60 * MB };
const quiet: IdleSample = { busy: 0.001, heapTotal: 100 * MB, heapUsed: 60 * MB };

/** The policy's answers to a sequence of seconds. */
const run = (samples: IdleSample[]) => {
  const step = idleCompactionPolicy();
  return samples.map(step);
};

describe('collecting the heap once a busy spell ends (decision 052)', () => {
  it('collects once, after QUIET_SECONDS quiet seconds follow a busy one', () => {
    const quiets = Array.from({ length: QUIET_SECONDS + 3 }, () => quiet);
    const answers = run([busy, busy, ...quiets]);
    expect(answers.filter(Boolean)).toHaveLength(1);
    expect(answers.indexOf(true)).toBe(2 + QUIET_SECONDS - 1);
  });

  it('never collects a server that was never busy', () => {
    expect(run(Array.from({ length: 10 }, () => quiet)).some(Boolean)).toBe(false);
  });

  it('starts counting the quiet again when load comes back before the collection', () => {
    const quiets = Array.from({ length: QUIET_SECONDS }, () => quiet);
    const answers = run([busy, ...quiets.slice(1), busy, ...quiets]);
    // The first quiet spell is one second short; the second is whole.
    expect(answers.filter(Boolean)).toHaveLength(1);
    expect(answers.at(-1)).toBe(true);
  });

  it('collects again after the next busy spell, not before', () => {
    const spell = [busy, ...Array.from({ length: QUIET_SECONDS }, () => quiet)];
    const answers = run([...spell, quiet, quiet, ...spell]);
    expect(answers.filter(Boolean)).toHaveLength(2);
  });

  it('leaves a heap alone that holds less than SLACK_BYTES beyond its use', () => {
    const tight = { ...quiet, heapTotal: quiet.heapUsed + SLACK_BYTES - 1 };
    expect(run([busy, ...Array.from({ length: QUIET_SECONDS + 2 }, () => tight)]).some(Boolean)).toBe(false);
  });

  it('looks again each quiet second when the heap first looks full (garbage counts as used)', () => {
    const full = { ...quiet, heapUsed: quiet.heapTotal - SLACK_BYTES + 1 };
    const answers = run([busy, ...Array.from({ length: QUIET_SECONDS + 3 }, () => full), quiet, quiet]);
    expect(answers.filter(Boolean)).toHaveLength(1);
    expect(answers.at(-2)).toBe(true);
  });

  it('counts a second at the busy share as quiet, one above it as load', () => {
    const edge = { ...quiet, busy: BUSY_SHARE };
    expect(run([edge, ...Array.from({ length: QUIET_SECONDS + 1 }, () => quiet)]).some(Boolean)).toBe(false);
    const above = { ...quiet, busy: BUSY_SHARE + 0.01 };
    expect(run([above, ...Array.from({ length: QUIET_SECONDS }, () => quiet)]).some(Boolean)).toBe(true);
  });
});

describe('the collection once a busy spell ends', () => {
  it('gives back the pages a load left with a few live objects each, which a plain collection keeps', () => {
    const heap = () => v8.getHeapStatistics();
    // A load's leftovers: one object in three stays live, spread over every page the load filled.
    const kept: { n: number; s: string }[] = [];
    let garbage: { n: number; s: string }[] | null = [];
    for (let i = 0; i < 300_000; i++) {
      const o = { n: i, s: `${'x'.repeat(100)}${i}` };
      if (i % 3 === 0) kept.push(o);
      else garbage.push(o);
    }
    garbage = null;
    collectAndCompact();
    const after = heap();
    expect(kept).toHaveLength(100_000);
    // Reserved beyond what is used: compacted, the pages the dead two thirds held are gone.
    expect(after.total_heap_size - after.used_heap_size).toBeLessThan(40 * MB);
    expect(after.used_heap_size).toBeLessThan(after.total_heap_size);
  });
});
