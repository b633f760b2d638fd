/**
 * Board ranks (docs/decisions/033-board-ranks.md): a move lands exactly where it was asked, writes
 * the moved row only, long keys are rebalanced without changing any order, bulk writes take a
 * constant number of statements, and the migration and old backups keep every order.
 */
import fs from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { generateNKeysBetween } from 'fractional-indexing';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrateToLatest } from '../src/db/migrate.js';
import { BLOCK_MAX, BLOCK_TARGET } from '../src/db/migrations/090_column_rank_blocks.js';
import { isValidRank, rankForIndex } from '../src/db/ranks.js';
import { backupStream } from '../src/domain/backup/export.js';
import { restoreBackup } from '../src/domain/backup/restore.js';
import { REBALANCE_LENGTH, rebalance } from '../src/domain/board-ranks.js';
import { newId } from '../src/domain/ids.js';
import { listTicketsOf } from '../src/domain/ticket-reads.js';
import { createTestApp, databaseAt, dialect, type TestApp } from './helpers/app.js';
import { columnsOf, expectDerivedKept, makeProject, makeTicket } from './helpers/board.js';
import { type Client, signUp } from './helpers/factories.js';
import { undoPostgresFacets } from './helpers/search.js';

let t: TestApp;
let owner: Client;
beforeAll(async () => {
  t = await createTestApp();
  await signUp(t.app); // the first account is a system administrator
  owner = await signUp(t.app);
});
afterAll(async () => t.close());

type Item = { id: string; columnId: string; order: number };
const db = () => t.app.services.db;

/** The board as the list answers it: ticket ids per column, in order (and the orders checked). */
async function board(projectId: string, columnIds: string[]) {
  const list = (await owner.get(`/api/projects/${projectId}/tickets`)).json() as Item[];
  const out = columnIds.map((c) => list.filter((x) => x.columnId === c));
  for (const col of out) expect(col.map((x) => x.order)).toEqual(col.map((_, i) => i));
  return out.map((col) => col.map((x) => x.id));
}

describe('ranks', () => {
  it('rankForIndex gives the keys generateNKeysBetween makes, in order', () => {
    const keys = generateNKeysBetween(null, null, 5000);
    expect(keys.map((_, i) => rankForIndex(i))).toEqual(keys);
    for (const k of keys.slice(0, 100)) expect(isValidRank(k)).toBe(true);
    expect([...keys].sort()).toEqual(keys);
    expect(isValidRank('a0V')).toBe(true);
    expect(isValidRank('a00')).toBe(false);
    expect(isValidRank('')).toBe(false);
  });

  it('puts a moved ticket exactly at the asked place, in any column, as a model of the board does', async () => {
    const p = await makeProject(owner);
    const cols = (await columnsOf(owner, p.id)).map((c) => c.id);
    const model: string[][] = cols.map(() => []);
    for (let i = 0; i < 9; i++) {
      const col = i % cols.length;
      const tk = await makeTicket(owner, p.id, { columnId: cols[col] });
      model[col].push(tk.id);
    }
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.record({ ticket: fc.nat(8), column: fc.nat(2), order: fc.option(fc.nat(10), { nil: null }) }),
          {
            minLength: 4,
            maxLength: 12,
          },
        ),
        async (moves) => {
          for (const m of moves) {
            const all = model.flat();
            const id = all[m.ticket % all.length];
            const from = model.findIndex((c) => c.includes(id));
            const to = m.column;
            const body: Record<string, unknown> = { columnId: cols[to] };
            if (m.order !== null) body.order = m.order;
            if (from === to && m.order === null) delete body.columnId;
            const res = await owner.patch(`/api/projects/${p.id}/tickets/${id}`, body);
            expect(res.statusCode, res.body).toBe(200);
            // The model: out of its column, then into the target at min(order, length) (the end by default).
            if (from !== to || m.order !== null) {
              model[from].splice(model[from].indexOf(id), 1);
              const at = Math.min(m.order ?? model[to].length, model[to].length);
              model[to].splice(at, 0, id);
            }
            expect(res.json().order).toBe(model[to].indexOf(id));
            expect(res.json().columnId).toBe(cols[to]);
          }
          expect(await board(p.id, cols)).toEqual(model);
          // The full read computes the same order as the list.
          const some = model.flat()[0];
          const full = (await owner.get(`/api/projects/${p.id}/tickets/${some}`)).json();
          expect(full.order).toBe(model.find((c) => c.includes(some))?.indexOf(some));
        },
      ),
      { numRuns: 8 },
    );
  });

  it('writes only the moved row and the event names the moved ticket only', async () => {
    const p = await makeProject(owner);
    const [todo, doing] = (await columnsOf(owner, p.id)).map((c) => c.id);
    const tickets = [];
    for (let i = 0; i < 6; i++) tickets.push(await makeTicket(owner, p.id, { columnId: todo }));
    const before = await db()
      .kysely.selectFrom('tickets')
      .select(['id', 'rank', 'updated_at'])
      .where('project_id', '=', p.id)
      .execute();
    const res = await owner.patch(`/api/projects/${p.id}/tickets/${tickets[5].id}`, {
      columnId: doing,
      order: 0,
    });
    expect(res.statusCode).toBe(200);
    const res2 = await owner.patch(`/api/projects/${p.id}/tickets/${tickets[4].id}`, { order: 0 });
    expect(res2.json().order).toBe(0);
    const after = await db()
      .kysely.selectFrom('tickets')
      .select(['id', 'rank', 'updated_at'])
      .where('project_id', '=', p.id)
      .execute();
    const changed = after.filter((a) => {
      const b = before.find((x) => x.id === a.id);
      return b?.rank !== a.rank;
    });
    expect(changed.map((c) => c.id).sort()).toEqual([tickets[4].id, tickets[5].id].sort());
    const events = await db()
      .kysely.selectFrom('events')
      .select(['type', 'data'])
      .where('project_id', '=', p.id)
      .where('type', '=', 'ticket.moved')
      .orderBy('id')
      .execute();
    expect(events.map((e) => JSON.parse(e.data).id)).toEqual([tickets[5].id, tickets[4].id]);
  });

  it("moves a ticket in as few statements as its place needs: on PostgreSQL its lock and its column's in one", async () => {
    const p = await makeProject(owner);
    const [todo, doing] = (await columnsOf(owner, p.id)).map((c) => c.id);
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await makeTicket(owner, p.id, { columnId: todo })).id);
    // The fewest statements of three like requests (a session's refresh may add one to any request).
    const count = async (bodies: Record<string, unknown>[]) => {
      let n = Number.POSITIVE_INFINITY;
      for (const body of bodies) {
        const before = db().statements();
        const res = await owner.patch(`/api/projects/${p.id}/tickets/${ids[0]}`, body);
        expect(res.statusCode, res.body).toBe(200);
        if ('order' in body) expect(res.json().order).toBe(body.order);
        n = Math.min(n, db().statements() - before);
      }
      return n;
    };
    const pg = dialect === 'postgres';
    // A rename: access, the ticket, its update and history, the full read, the commit.
    const rename = await count([{ title: 'One' }, { title: 'Two' }, { title: 'Three' }]);
    // A move within the column as the board sends it (its column named), and with its order only:
    // the neighbours' read in place of the history, and on SQLite the column's read.
    const within = [3, 1, 2].map((order) => ({ columnId: todo, order }));
    expect(await count(within)).toBe(rename + (pg ? 0 : 1));
    expect(await count([{ order: 0 }, { order: 4 }, { order: 2 }])).toBe(rename);
    // To another column: the old status's name, its history and its notices to watchers too.
    const across = [doing, todo, doing].map((columnId) => ({ columnId, order: 0 }));
    expect(await count(across)).toBe(rename + (pg ? 3 : 4));
    // A column that is not the project's is still a 400, and a ticket that is not there a 404.
    const bad = await owner.patch(`/api/projects/${p.id}/tickets/${ids[1]}`, { columnId: newId(), order: 0 });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().details[0].path).toBe('columnId');
    expect((await owner.patch(`/api/projects/${p.id}/tickets/${newId()}`, { order: 0 })).statusCode).toBe(
      404,
    );
    expect(await board(p.id, [todo, doing])).toEqual([ids.slice(1), [ids[0]]]);
  });

  it('rebalances keys grown long by inserts at one spot, keeping every order', async () => {
    const p = await makeProject(owner);
    const [todo] = (await columnsOf(owner, p.id)).map((c) => c.id);
    const model: string[] = [];
    for (let i = 0; i < 4; i++) model.push((await makeTicket(owner, p.id, { columnId: todo })).id);
    // Always between the first two: each key is longer than the last.
    for (let i = 0; i < 260; i++) {
      const id = model[model.length - 1 - (i % 2)];
      const res = await owner.patch(`/api/projects/${p.id}/tickets/${id}`, { order: 1 });
      expect(res.statusCode, res.body).toBe(200);
      // The answer's order comes from the neighbours' reading, after a rebalance too.
      expect(res.json().order).toBe(1);
      model.splice(model.indexOf(id), 1);
      model.splice(1, 0, id);
    }
    const ranks = await db()
      .kysely.selectFrom('tickets')
      .select('rank')
      .where('column_id', '=', todo)
      .execute();
    for (const r of ranks) expect(r.rank.length).toBeLessThanOrEqual(REBALANCE_LENGTH);
    expect((await board(p.id, [todo]))[0]).toEqual(model);
  });

  it('places, moves and reorders columns by rank', async () => {
    const p = await makeProject(owner);
    const c = await owner.post(`/api/projects/${p.id}/columns`, { name: 'Review', order: 1 });
    expect(c.json().order).toBe(1);
    const moved = await owner.patch(`/api/projects/${p.id}/columns/${c.json().id}`, { order: 3 });
    expect(moved.json().order).toBe(3);
    const names = (await columnsOf(owner, p.id)).map((x) => x.name);
    expect(names).toEqual(['To Do', 'In Progress', 'Done', 'Review']);
    const first = await owner.patch(`/api/projects/${p.id}/columns/${c.json().id}`, { order: 0 });
    expect(first.json().order).toBe(0);
    expect((await columnsOf(owner, p.id)).map((x) => x.order)).toEqual([0, 1, 2, 3]);
  });
});

describe("a column's blocks (migration 090, PostgreSQL)", () => {
  it.runIf(dialect === 'postgres')(
    'finds every place through blocks that are cut and joined as tickets come, move and go',
    async () => {
      const p = await makeProject(owner);
      const cols = (await columnsOf(owner, p.id)).map((c) => c.id);
      const [a, b, c] = cols;
      const model: string[][] = cols.map(() => []);
      // Past BLOCK_MAX tickets one create at a time: the insert trigger cuts the block.
      for (let i = 0; i < BLOCK_MAX + 30; i++)
        model[0].push((await makeTicket(owner, p.id, { columnId: a })).id);
      // And 450 in one statement (as a restore or an import writes them) into an empty column.
      const k = db().kysely;
      const proto = await k
        .selectFrom('tickets')
        .selectAll()
        .where('id', '=', model[0][0])
        .executeTakeFirstOrThrow();
      const top = Number(
        (
          await k
            .selectFrom('tickets')
            .select((e) => e.fn.max('number').as('n'))
            .where('project_id', '=', p.id)
            .executeTakeFirstOrThrow()
        ).n,
      );
      const rows = Array.from({ length: 450 }, (_, i) => ({
        ...proto,
        id: newId(),
        number: top + 1 + i,
        column_id: b,
        rank: rankForIndex(i),
      }));
      await k.insertInto('tickets').values(rows).execute();
      model[1].push(...rows.map((r) => r.id));
      await expectDerivedKept(db());
      const blocksOf = async (col: string) =>
        Number(
          (
            await k
              .selectFrom('column_rank_blocks')
              .select((e) => e.fn.countAll().as('n'))
              .where('column_id', '=', col)
              .executeTakeFirstOrThrow()
          ).n,
        );
      expect(await blocksOf(a)).toBeGreaterThan(1);
      expect(await blocksOf(b)).toBeGreaterThan(3);
      expect(await board(p.id, cols)).toEqual(model);

      // Moves to random places of random columns, the answered order checked against the model;
      // places at the blocks' edges, the ends and past the end included.
      let seed = 7;
      const random = (n: number) => {
        seed = (seed * 1103515245 + 12345) % 2 ** 31;
        return seed % n;
      };
      for (let i = 0; i < 240; i++) {
        const all = model[0].concat(model[1], model[2]);
        const id = all[random(all.length)];
        const from = model.findIndex((col) => col.includes(id));
        const to = random(3);
        const length = model[to].length - (from === to ? 1 : 0);
        const order =
          i % 8 === 0 ? length + random(3) : i % 8 === 1 ? BLOCK_TARGET * random(5) : random(length + 1);
        const res = await owner.patch(`/api/projects/${p.id}/tickets/${id}`, { columnId: cols[to], order });
        expect(res.statusCode, res.body).toBe(200);
        model[from].splice(model[from].indexOf(id), 1);
        model[to].splice(Math.min(order, model[to].length), 0, id);
        expect(res.json().order).toBe(model[to].indexOf(id));
        if (i % 60 === 59) {
          await expectDerivedKept(db());
          expect(await board(p.id, cols)).toEqual(model);
        }
      }
      // A place far past the end (past 32-bit integers too): the end.
      const far = await owner.patch(`/api/projects/${p.id}/tickets/${model[1][0]}`, { order: 2 ** 40 });
      expect(far.statusCode, far.body).toBe(200);
      model[1].push(model[1].shift() as string);
      expect(far.json().order).toBe(model[1].length - 1);
      // Deletes that empty blocks: they join the blocks before them.
      const gone = model[1].filter((_, i) => i % 5 !== 0);
      expect((await owner.del(`/api/projects/${p.id}/tickets`, { ticketIds: gone })).statusCode).toBe(200);
      model[1] = model[1].filter((id) => !gone.includes(id));
      await expectDerivedKept(db());
      // A bulk move (one statement, a row trigger per ticket, the blocks settled at its end).
      const movers = model[0].slice(0, 150);
      const bulk = await owner.patch(`/api/projects/${p.id}/tickets`, {
        ticketIds: movers,
        updates: { columnId: c },
      });
      expect(bulk.statusCode, bulk.body).toBe(200);
      model[0] = model[0].slice(150);
      model[2].push(...movers);
      await expectDerivedKept(db());
      expect(await board(p.id, cols)).toEqual(model);
      // A rebalance rewrites every rank of the column twice.
      await k.transaction().execute(async (tx) => {
        await rebalance(tx, { table: 'tickets', scope: 'column_id', id: c }, null);
      });
      await expectDerivedKept(db());
      expect(await board(p.id, cols)).toEqual(model);
      // A column's deletion moves its tickets to the end of another.
      const removed = await owner.del(`/api/projects/${p.id}/columns/${c}`, { moveTicketsTo: a });
      expect(removed.statusCode, removed.body).toBe(200);
      model[0].push(...model[2]);
      await expectDerivedKept(db());
      expect(await blocksOf(c)).toBe(0);
      expect(await board(p.id, [a, b])).toEqual(model.slice(0, 2));
    },
  );
});

describe('bulk writes in bulk', () => {
  it('updates and deletes 100 tickets in a constant number of statements', async () => {
    const p = await makeProject(owner);
    const cols = (await columnsOf(owner, p.id)).map((c) => c.id);
    const label = (
      await owner.post(`/api/projects/${p.id}/labels`, { name: 'bulk', color: '#0EA5E9' })
    ).json();
    const ids: string[] = [];
    for (let i = 0; i < 100; i++) ids.push((await makeTicket(owner, p.id, { columnId: cols[i % 2] })).id);
    const count = async (fn: () => Promise<unknown>) => {
      const before = db().statements();
      await fn();
      return db().statements() - before;
    };
    const update = await count(async () => {
      const res = await owner.patch(`/api/projects/${p.id}/tickets`, {
        ticketIds: ids,
        updates: { priority: 'High', columnId: cols[2], labelIds: [label.id] },
      });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json().updated).toBe(100);
    });
    const list = (await owner.get(`/api/projects/${p.id}/tickets?columnId=${cols[2]}`)).json() as Item[];
    expect(list.map((x) => x.id)).toEqual(ids);
    const small = await count(async () => {
      const res = await owner.patch(`/api/projects/${p.id}/tickets`, {
        ticketIds: ids.slice(0, 2),
        updates: { priority: 'Low', columnId: cols[0], labelIds: [] },
      });
      expect(res.statusCode, res.body).toBe(200);
    });
    // The same statements for 2 tickets and for 100 (a few more for the session look-up and
    // the per-500 chunks at most), never one per ticket.
    expect(update).toBeLessThanOrEqual(small + 4);
    expect(update).toBeLessThan(40);
    const history = await db()
      .kysely.selectFrom('ticket_history')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('ticket_id', 'in', ids)
      .where('field', '=', 'status')
      .executeTakeFirstOrThrow();
    expect(Number(history.n)).toBe(100 + 2);
    const del = await count(async () => {
      const res = await owner.del(`/api/projects/${p.id}/tickets`, { ticketIds: ids });
      expect(res.statusCode, res.body).toBe(200);
    });
    // Constant too: the trash's snapshot of the 100 tickets reads each dependent table once and
    // writes them in two inserts (decision 048), 11 statements that were not there before.
    expect(del).toBeLessThan(32);
  });
});

describe('the migration to ranks', () => {
  it('turns positions into ranks in the same order, columns included', async () => {
    const { db: d, kysely: k, drop } = await databaseAt('002_sprint_started_at');
    try {
      const now = new Date().toISOString();
      const user = newId();
      await k
        .insertInto('users')
        .values({
          id: user,
          username: 'mig',
          email: null,
          name: null,
          password_hash: 'x',
          is_system_admin: 1,
          is_active: 1,
          must_change_password: 0,
          avatar: null,
          created_at: now,
          updated_at: now,
        })
        .execute();
      const project = newId();
      await k
        .insertInto('projects')
        .values({
          id: project,
          name: 'M',
          key: 'MIG',
          description: null,
          color: '#000',
          ticket_counter: 70,
          sprint_counter: 0,
          created_at: now,
          updated_at: now,
        })
        .execute();
      // Columns out of insertion order; tickets with positions 0..69 shuffled.
      const cols = [newId(), newId()];
      await k
        .insertInto('columns')
        .values([
          { id: cols[0], project_id: project, name: 'B', position: 1, created_at: now },
          { id: cols[1], project_id: project, name: 'A', position: 0, created_at: now },
        ])
        .execute();
      const positions = Array.from({ length: 70 }, (_, i) => i).sort(() => Math.random() - 0.5);
      const ids = positions.map(() => newId());
      await k
        .insertInto('tickets')
        .values(
          positions.map((pos, i) => ({
            id: ids[i],
            project_id: project,
            number: i + 1,
            title: `T${i}`,
            type: 'Task',
            priority: 'Medium',
            column_id: cols[0],
            position: pos,
            reporter_id: user,
            created_at: now,
            updated_at: now,
          })),
        )
        .execute();
      expect(await migrateToLatest(d)).toContain('003_board_ranks');
      const byRank = await d.kysely
        .selectFrom('tickets')
        .select(['id', 'rank'])
        .where('column_id', '=', cols[0])
        .orderBy('rank')
        .execute();
      const byPosition = ids.map((id, i) => ({ id, pos: positions[i] })).sort((a, b) => a.pos - b.pos);
      expect(byRank.map((r) => r.id)).toEqual(byPosition.map((r) => r.id));
      expect(byRank.map((r) => r.rank)).toEqual(byPosition.map((_, i) => rankForIndex(i)));
      const colRanks = await d.kysely.selectFrom('columns').select(['name']).orderBy('rank').execute();
      expect(colRanks.map((c) => c.name)).toEqual(['A', 'B']);
    } finally {
      await drop();
    }
  });

  it.runIf(dialect === 'postgres')(
    "counts each column's tickets and cuts its blocks when it migrates a database that has tickets (migrations 089, 090)",
    async () => {
      const p = await makeProject(owner);
      const cols = await columnsOf(owner, p.id);
      for (let i = 0; i < 7; i++) await makeTicket(owner, p.id, { columnId: cols[i % 2].id });
      for (let i = 0; i < BLOCK_MAX + 20; i++) await makeTicket(owner, p.id, { columnId: cols[2].id });
      // Back to the schema before migration 089, the tickets kept, then migrated again (091 to 094
      // too, as migrations apply in order).
      const db = t.app.services.db;
      const k = db.kysely as never as import('kysely').Kysely<any>;
      await sql`drop table column_rank_blocks, column_rank_blocks_unsettled, column_ticket_counts, ticket_label_columns`.execute(
        k,
      );
      for (const f of [
        'column_counts_added',
        'column_counts_removed',
        'column_counts_moved',
        'rank_blocks_settle_noted',
        'label_columns_added',
        'label_columns_removed',
        'label_columns_changed',
        'label_columns_moved',
      ])
        await sql.raw(`drop function docket_${f}() cascade`).execute(k);
      await sql`drop function docket_rank_blocks_rebuild(text), docket_rank_blocks_settle(text, text), docket_rank_blocks_recut(text, text)`.execute(
        k,
      );
      await sql`drop index ticket_search_title_idx`.execute(k);
      await undoPostgresFacets(k);
      const later = [
        '089_column_ticket_counts',
        '090_column_rank_blocks',
        '091_label_columns',
        '092_search_titles',
        '093_search_facets',
        '094_search_facets_postgres',
      ];
      await k.deleteFrom('kysely_migration').where('name', 'in', later).execute();
      expect(await migrateToLatest(db)).toEqual(later);
      await expectDerivedKept(db);
      const totals = await db.kysely
        .selectFrom('column_ticket_counts')
        .select(['column_id', 'n'])
        .where(
          'column_id',
          'in',
          cols.map((c) => c.id),
        )
        .orderBy('n', 'desc')
        .execute();
      expect(totals.map((r) => r.n)).toEqual([BLOCK_MAX + 20, 4, 3]);
      const blocks = await db.kysely
        .selectFrom('column_rank_blocks')
        .select('n')
        .where('column_id', '=', cols[2].id)
        .orderBy('lo')
        .execute();
      expect(blocks.map((b) => b.n)).toEqual([74, 73, 73]);
      // And the triggers are back: a create at the end answers its order from them, a move its place.
      expect((await makeTicket(owner, p.id, { columnId: cols[1].id })).order).toBe(3);
      const list = (await owner.get(`/api/projects/${p.id}/tickets?columnId=${cols[2].id}`)).json() as Item[];
      const moved = await owner.patch(`/api/projects/${p.id}/tickets/${list[5].id}`, { order: 150 });
      expect(moved.json().order).toBe(150);
      const after = (
        await owner.get(`/api/projects/${p.id}/tickets?columnId=${cols[2].id}`)
      ).json() as Item[];
      expect(after[150].id).toBe(list[5].id);
      await expectDerivedKept(db);
    },
  );
});

describe('backups of the position format', () => {
  it('restores a version-1 backup (positions) with every order kept', async () => {
    const p = await makeProject(owner);
    const cols = (await columnsOf(owner, p.id)).map((c) => c.id);
    for (let i = 0; i < 6; i++) await makeTicket(owner, p.id, { columnId: cols[i % 2] });
    await owner.patch(`/api/projects/${p.id}/columns/${cols[2]}`, { order: 0 });
    const expected = (await owner.get(`/api/projects/${p.id}/tickets`)).json() as Item[];
    const expectedCols = await columnsOf(owner, p.id);
    // Today's export, written back as version 1: positions 0..n-1 instead of ranks.
    let text = '';
    for await (const piece of backupStream(t.app.services)) text += piece;
    const doc = JSON.parse(text);
    doc.version = 1;
    const toPositions = (rows: Record<string, unknown>[], scope: string) => {
      const groups = new Map<string, Record<string, unknown>[]>();
      for (const r of rows) groups.set(String(r[scope]), [...(groups.get(String(r[scope])) ?? []), r]);
      for (const g of groups.values()) {
        g.sort((a, b) => (String(a.rank) < String(b.rank) ? -1 : 1));
        g.forEach((r, i) => {
          r.position = i;
          delete r.rank;
        });
      }
    };
    toPositions(doc.data.tickets, 'column_id');
    toPositions(doc.data.columns, 'project_id');
    const file = path.join(t.config.dataDir, 'v1.json');
    fs.writeFileSync(file, JSON.stringify(doc));
    await restoreBackup(t.app.services, file);
    const rows = await t.app.services.db.kysely
      .selectFrom('tickets')
      .select(['id', 'column_id'])
      .where('project_id', '=', p.id)
      .execute();
    expect(rows.length).toBe(expected.length);
    // Orders as the API computes them from the restored ranks.
    const project = await t.app.services.db.kysely
      .selectFrom('projects')
      .selectAll()
      .where('id', '=', p.id)
      .executeTakeFirstOrThrow();
    const { items } = await listTicketsOf({ ...t.app.services, actor: null } as never, project, {});
    expect(items.map((x) => [x.id, x.columnId, x.order])).toEqual(
      expected.map((x) => [x.id, x.columnId, x.order]),
    );
    const colRows = await t.app.services.db.kysely
      .selectFrom('columns')
      .select('id')
      .where('project_id', '=', p.id)
      .orderBy('rank')
      .execute();
    expect(colRows.map((c) => c.id)).toEqual(expectedCols.map((c) => c.id));
  });
});
