import type { Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../src/db/types.js';
import { transact } from '../src/domain/context.js';
import { LogFollower } from '../src/events/follower.js';
import type { NewEvent, StoredEvent } from '../src/events/types.js';
import { createTestApp, type TestApp } from './helpers/app.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t.close());

/** The app's database, with every read of the event log counted (the real queries still run). */
function countingDb() {
  const counter = { logReads: 0 };
  const real = t.app.services.db;
  const kysely = new Proxy(real.kysely, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver);
      if (prop !== 'selectFrom') return typeof value === 'function' ? value.bind(target) : value;
      return (from: unknown) => {
        if (from === 'events') counter.logReads++;
        return (value as (f: unknown) => unknown).call(target, from);
      };
    },
  }) as Kysely<Database>;
  return { db: { ...real, kysely }, counter };
}

const event = (n: number): NewEvent =>
  ({ scope: 'user', type: 'user.updated', userId: 'nobody', data: { id: `u${n}` } }) as NewEvent;

/** Writes events in one transaction as instance `origin`, handing them to `published` after commit. */
async function write(origin: string, events: NewEvent[], published: (e: StoredEvent[]) => void) {
  const config = { ...t.app.services.config, checkContracts: false };
  await transact({ ...t.app.services, config, events: { origin, published } }, async (_tx, emit) => {
    for (const e of events) emit(e);
  });
}

/** A follower on the counting database, as instance `me`, collecting what it delivers. */
async function follow() {
  const { db, counter } = countingDb();
  const delivered: StoredEvent[] = [];
  const follower = new LogFollower({
    db,
    log: t.app.services.log,
    origin: 'me',
    deliver: (e) => {
      delivered.push(...e);
    },
    sqlitePollMs: 60_000,
    pgPollMs: 60_000,
  });
  await follower.start();
  await until(() => !(follower as unknown as { reading: boolean }).reading);
  return { follower, delivered, counter };
}

async function until(check: () => boolean) {
  const deadline = Date.now() + 5000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setImmediate(r));
  }
}

describe('the log follower of one instance', () => {
  it("delivers this instance's committed events from memory, once and in id order, without reading the log", async () => {
    const { follower, delivered, counter } = await follow();
    const readsAfterStart = counter.logReads;
    await write('me', [event(1), event(2)], (e) => follower.offer(e));
    await write('me', [event(3)], (e) => follower.offer(e));
    await until(() => delivered.length === 3);
    expect(delivered.map((e) => (e.data as { id: string }).id)).toEqual(['u1', 'u2', 'u3']);
    const ids = delivered.map((e) => e.id);
    expect([...ids].sort((a, b) => a - b)).toEqual(ids);
    expect(counter.logReads).toBe(readsAfterStart);
    await follower.stop();
  });

  it("reads the log for another instance's events that come before its own, and delivers each once", async () => {
    const { follower, delivered, counter } = await follow();
    const readsBefore = counter.logReads;
    // Another instance commits (its events are not offered here), then this one.
    await write('other', [event(10), event(11)], () => {});
    await write('me', [event(12)], (e) => follower.offer(e));
    await until(() => delivered.length === 3);
    expect(delivered.map((e) => (e.data as { id: string }).id)).toEqual(['u10', 'u11', 'u12']);
    expect(counter.logReads).toBeGreaterThan(readsBefore);
    // Offering an event already read from the log does not deliver it again.
    follower.offer([delivered[2]]);
    follower.wake();
    await until(() => !(follower as unknown as { reading: boolean }).reading);
    expect(delivered).toHaveLength(3);
    await follower.stop();
  });
});
