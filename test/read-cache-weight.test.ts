import v8 from 'node:v8';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChangeTracker } from '../src/db/changes.js';
import type { Db } from '../src/db/connect.js';
import { ReadCache, readCache, stringBytes, weigh } from '../src/domain/read-cache.js';
import { collectAndCompact } from '../src/heap.js';
import { createTestApp, type TestApp } from './helpers/app.js';
import { makeProject, makeTicket } from './helpers/board.js';
import { type Client, signUp } from './helpers/factories.js';

/**
 * The read cache weighs its entries by the bytes they hold (issue 47, decision 062): a full read by
 * its JSON's bytes, records by their fields, each entry with its key and its own record; and what
 * it counts is what the heap holds.
 */
const tracked = () => ({
  db: { changes: { tracker: new ChangeTracker(), refresh: () => {} } } as unknown as Db,
});

describe('the weight of what the read cache keeps', () => {
  it('weighs strings by their characters, two bytes each once one is past U+00FF', () => {
    expect(stringBytes('')).toBe(16);
    expect(stringBytes('x'.repeat(100))).toBe(16 + 104);
    expect(stringBytes(`${'x'.repeat(99)}→`)).toBe(16 + 200);
    expect(weigh({ a: 'xx', b: 1, c: null })).toBe(24 + 3 * 8 + stringBytes('xx'));
  });

  it('counts what the heap holds for full reads and records, within a fifth', () => {
    const heapUsed = () => {
      collectAndCompact();
      return v8.getHeapStatistics().used_heap_size;
    };
    const measure = (make: (i: number) => unknown) => {
      const cache = new ReadCache(1024 * 1024 * 1024);
      const from = tracked();
      const before = heapUsed();
      return (async () => {
        for (let i = 0; i < 4000; i++) {
          const value = make(i);
          await cache.get(
            from,
            `ticket:01a2245b-c8a5-73d4-aa43-${String(i).padStart(12, '0')}:01a22457-64c6-74af-9f6b-5dcededeea4f`,
            async () => value,
            () => [`project:01a22457-63bc-72ff-af7a-9d5247802bbd`, 'users'],
          );
        }
        const grown = heapUsed() - before;
        return { grown, counted: cache.bytes, keep: cache };
      })();
    };
    return (async () => {
      // A full read as it is kept: its JSON text, and the keys of other projects it links to.
      const ticket = (i: number) => ({
        json: JSON.stringify({
          id: `01a2245b-c8a5-73d4-aa43-${String(i).padStart(12, '0')}`,
          title: `Fix the board (${i})`,
          description: 'Seeded ticket.\n\n- step one: open the login page\n- step two: look at it'.repeat(8),
          labels: [{ id: 'x', name: 'perf-label-01', color: '#0EA5E9' }],
        }),
        foreign: [],
      });
      const full = await measure(ticket);
      expect(full.grown / full.counted).toBeGreaterThan(0.8);
      expect(full.grown / full.counted).toBeLessThan(1.25);
      // A record as the access look-ups keep it.
      const access = (i: number) => ({
        project: {
          id: `01a22457-63bc-72ff-af7a-${String(i).padStart(12, '0')}`,
          key: `P${i}`,
          name: `Project ${i}`,
          description: null,
          color: `#${i.toString(16).padStart(6, '0')}`,
          ticket_counter: i,
          members_may_delete: 1,
          created_at: new Date(Date.UTC(2026, 0, 1) + i).toISOString(),
          updated_at: new Date(Date.UTC(2026, 0, 2) + i).toISOString(),
        },
        // A string of its own, as each row read from the database brings.
        memberRole: ['member', 'admin', 'owner'][i % 3].split('').join(''),
      });
      const records = await measure(access);
      expect(records.grown / records.counted).toBeGreaterThan(0.8);
      expect(records.grown / records.counted).toBeLessThan(1.25);
    })();
  });
});

describe('a full read in the cache', () => {
  let t: TestApp;
  let owner: Client;
  beforeAll(async () => {
    t = await createTestApp();
    owner = await signUp(t.app);
  });
  afterAll(async () => t.close());

  it('weighs its JSON bytes, with its key and entry', async () => {
    const p = await makeProject(owner, { name: 'Weighed' });
    const first = await makeTicket(owner, p.id, { title: 'First' });
    const plain = await makeTicket(owner, p.id, {
      title: 'Weighed in bytes',
      description: 'A description of some length, with **Markdown**.'.repeat(10),
    });
    const wide = await makeTicket(owner, p.id, {
      title: 'Weighed → in bytes',
      description: 'A description of some length, with an arrow → here.'.repeat(10),
    });
    const cache = readCache(t.app.services.db);
    // The session and access answers kept first.
    expect((await owner.get(`/api/projects/${p.id}/tickets/${first.id}`)).statusCode).toBe(200);
    const weight = async (id: string) => {
      const before = cache.bytes;
      const res = await owner.get(`/api/projects/${p.id}/tickets/${id}`);
      expect(res.statusCode).toBe(200);
      return { grown: cache.bytes - before, body: res.body };
    };
    // One byte a character, as its JSON's UTF-8 bytes, and the key and entry (about 200 bytes).
    const a = await weight(plain.id);
    expect(a.grown).toBeGreaterThanOrEqual(Buffer.byteLength(a.body));
    expect(a.grown).toBeLessThanOrEqual(Buffer.byteLength(a.body) + 400);
    // Two bytes a character once one is past U+00FF, as V8 holds the text.
    const b = await weight(wide.id);
    expect(b.grown).toBeGreaterThanOrEqual(2 * b.body.length);
    expect(b.grown).toBeLessThanOrEqual(2 * b.body.length + 400);
  });
});
