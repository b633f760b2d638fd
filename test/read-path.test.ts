import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readCache } from '../src/domain/read-cache.js';
import { createTestApp, dialect, type TestApp } from './helpers/app.js';
import { columnsOf, makeProject, type ProjectOut } from './helpers/board.js';
import { type Client, signUp } from './helpers/factories.js';

/**
 * The uncached full read (issue 47): one statement on either database, whatever the column's size,
 * with its `order` counted through the column's blocks (PostgreSQL, migration 090) or from the
 * column's ranks kept in memory (SQLite, src/domain/column-ranks.ts), and that order the ticket's
 * place in its column after creates, moves and deletions.
 */
let t: TestApp;
let owner: Client;
let p: ProjectOut;
let columns: { id: string }[];
const ids: string[] = [];

beforeAll(async () => {
  t = await createTestApp();
  owner = await signUp(t.app);
  p = await makeProject(owner, { name: 'Read path' });
  columns = await columnsOf(owner, p.id);
  // More than one block (PostgreSQL cuts a column's blocks at 200 tickets): 260 in the first column.
  for (let i = 0; i < 280; i++) {
    const r = await owner.post(`/api/projects/${p.id}/tickets`, {
      title: `Ticket ${i}`,
      columnId: columns[i < 260 ? 0 : 1].id,
    });
    expect(r.statusCode, r.body).toBe(201);
    ids.push(r.json().id);
  }
});
afterAll(async () => t.close());

const db = () => t.app.services.db;

/** Each ticket's place in the board's own list (a window over the column's ranks). */
async function listedOrders(): Promise<Map<string, { columnId: string; order: number }>> {
  const res = await owner.get(`/api/projects/${p.id}/tickets`);
  expect(res.statusCode).toBe(200);
  return new Map(
    (res.json() as { id: string; columnId: string; order: number }[]).map((x) => [
      x.id,
      { columnId: x.columnId, order: x.order },
    ]),
  );
}

/** Full reads of the tickets, each the first since the last change (uncached), and the statements. */
async function fullReads(of: readonly string[]) {
  const out = new Map<string, { columnId: string; order: number }>();
  const before = db().statements();
  for (const id of of) {
    const res = await owner.get(`/api/projects/${p.id}/tickets/${id}`);
    expect(res.statusCode).toBe(200);
    const body = res.json();
    out.set(id, { columnId: body.columnId, order: body.order });
  }
  return { out, statements: db().statements() - before };
}

describe('the uncached full read', () => {
  it("answers each ticket's place in its column after creates, moves and deletions", async () => {
    const check = async () => {
      const listed = await listedOrders();
      const { out } = await fullReads(ids.filter((id) => listed.has(id)));
      for (const [id, got] of out) expect(got, id).toEqual(listed.get(id));
    };
    await check();
    // Moves within the column and across, to its start, middle and end; a deletion.
    const moves: [number, number, number][] = [
      [5, 0, 250],
      [250, 0, 0],
      [100, 1, 3],
      [270, 0, 130],
      [7, 0, 199],
      [130, 1, 0],
    ];
    for (const [i, col, order] of moves) {
      const res = await owner.patch(`/api/projects/${p.id}/tickets/${ids[i]}`, {
        columnId: columns[col].id,
        order,
      });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json().order).toBe(order);
    }
    expect((await owner.del(`/api/projects/${p.id}/tickets/${ids[42]}`)).statusCode).toBe(200);
    ids.splice(42, 1);
    await check();
  });

  it('costs one statement a read, whatever the size of the column', async () => {
    // A change to the project first: nothing of it is kept.
    expect(
      (await owner.patch(`/api/projects/${p.id}/tickets/${ids[0]}`, { title: 'Changed' })).statusCode,
    ).toBe(200);
    const sample = ids.slice(0, 60);
    const { statements } = await fullReads(sample);
    // SQLite reads each of the two columns' ranks once (their first reads after the project's
    // first few); PostgreSQL counts in the read's own statement. A reading of the change log
    // (PostgreSQL, at most one a few milliseconds) may add its own.
    expect(statements).toBeLessThanOrEqual(sample.length + (dialect === 'sqlite' ? 2 : 3));
    const cached = db().statements();
    await fullReads(sample);
    expect(db().statements() - cached).toBeLessThanOrEqual(dialect === 'sqlite' ? 0 : 2);
    if (dialect === 'sqlite') expect(readCache(db()).size).toBeGreaterThan(sample.length);
  });
});
