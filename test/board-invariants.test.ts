import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './helpers/app.js';
import { columnsOf, expectDerivedKept, makeProject } from './helpers/board.js';
import { type Client, signUp } from './helpers/factories.js';

let t: TestApp;
let owner: Client;
beforeAll(async () => {
  t = await createTestApp();
  await signUp(t.app); // the first account is a system administrator
  owner = await signUp(t.app);
});
afterAll(async () => t.close());

type Op =
  | { kind: 'create'; column: number }
  | { kind: 'move'; ticket: number; column: number | null; order: number | null }
  | { kind: 'delete'; ticket: number }
  | { kind: 'bulkMove'; tickets: number[]; column: number }
  | { kind: 'bulkDelete'; tickets: number[] }
  | { kind: 'columnMove'; column: number; order: number }
  | { kind: 'columnDelete'; column: number; to: number };

const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ kind: fc.constant('create' as const), column: fc.nat(4) }),
  fc.record({ kind: fc.constant('create' as const), column: fc.nat(4) }),
  fc.record({
    kind: fc.constant('move' as const),
    ticket: fc.nat(20),
    column: fc.option(fc.nat(4), { nil: null }),
    order: fc.option(fc.nat(8), { nil: null }),
  }),
  fc.record({ kind: fc.constant('delete' as const), ticket: fc.nat(20) }),
  fc.record({
    kind: fc.constant('bulkMove' as const),
    tickets: fc.array(fc.nat(20), { minLength: 1, maxLength: 4 }),
    column: fc.nat(4),
  }),
  fc.record({
    kind: fc.constant('bulkDelete' as const),
    tickets: fc.array(fc.nat(20), { minLength: 1, maxLength: 3 }),
  }),
  fc.record({ kind: fc.constant('columnMove' as const), column: fc.nat(4), order: fc.nat(5) }),
  fc.record({ kind: fc.constant('columnDelete' as const), column: fc.nat(4), to: fc.nat(4) }),
);

describe('board invariants', () => {
  it('keeps ticket and column orders 0..n-1, numbers unique and increasing, and never answers 500, whatever the operations', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 5, maxLength: 14 }), async (ops) => {
        const p = await makeProject(owner);
        const base = `/api/projects/${p.id}`;
        let highest = 0;
        for (const o of ops) {
          const cols = await columnsOf(owner, p.id);
          const tickets = (await owner.get(`${base}/tickets`)).json() as {
            id: string;
            number: number;
            columnId: string;
          }[];
          const pick = (i: number) => tickets[i % Math.max(tickets.length, 1)]?.id ?? 'missing';
          const col = (i: number) => cols[i % cols.length].id;
          let res: Awaited<ReturnType<Client['get']>>;
          switch (o.kind) {
            case 'create':
              res = await owner.post(`${base}/tickets`, { title: 'x', columnId: col(o.column) });
              expect(res.json().number).toBeGreaterThan(highest);
              // Last in its column (PostgreSQL counts it from the column's end: migration 089).
              expect(res.json().order).toBe(tickets.filter((x) => x.columnId === col(o.column)).length);
              highest = res.json().number;
              break;
            case 'move':
              res = await owner.patch(`${base}/tickets/${pick(o.ticket)}`, {
                ...(o.column === null ? {} : { columnId: col(o.column) }),
                ...(o.order === null ? {} : { order: o.order }),
              });
              break;
            case 'delete':
              res = await owner.del(`${base}/tickets/${pick(o.ticket)}`);
              break;
            case 'bulkMove':
              res = await owner.patch(`${base}/tickets`, {
                ticketIds: o.tickets.map(pick),
                updates: { columnId: col(o.column) },
              });
              break;
            case 'bulkDelete':
              res = await owner.del(`${base}/tickets`, { ticketIds: o.tickets.map(pick) });
              break;
            case 'columnMove':
              res = await owner.patch(`${base}/columns/${col(o.column)}`, { order: o.order });
              break;
            case 'columnDelete':
              res = await owner.del(`${base}/columns/${col(o.column)}`, { moveTicketsTo: col(o.to) });
              break;
          }
          expect(res.statusCode, `${JSON.stringify(o)}: ${res.body}`).toBeLessThan(500);
        }
        const cols = await columnsOf(owner, p.id);
        expect(cols.map((c) => c.order)).toEqual(cols.map((_, i) => i));
        const list = (await owner.get(`${base}/tickets`)).json() as {
          columnId: string;
          order: number;
          number: number;
        }[];
        for (const c of cols) {
          const orders = list.filter((x) => x.columnId === c.id).map((x) => x.order);
          expect(orders).toEqual(orders.map((_, i) => i));
        }
        const numbers = list.map((x) => x.number);
        expect(new Set(numbers).size).toBe(numbers.length);
        await expectDerivedKept(t.app.services.db);
      }),
      { numRuns: 12 },
    );
  });
});

describe('bad input', () => {
  const fields = [
    'title',
    'description',
    'type',
    'priority',
    'columnId',
    'assigneeId',
    'sprintId',
    'parentId',
    'storyPoints',
    'estimate',
    'startDate',
    'dueDate',
    'environment',
    'labelIds',
    'watcherIds',
    'order',
  ];
  const value = fc.oneof(
    fc.string({ maxLength: 30 }),
    fc.integer(),
    fc.double(),
    fc.boolean(),
    fc.constant(null),
    fc.array(fc.oneof(fc.string({ maxLength: 10 }), fc.integer()), { maxLength: 3 }),
    fc.constantFrom('NaN', '2026-02-30', '-1', 'none', '%', "'; drop table tickets; --", '9'.repeat(40)),
    fc.integer({ min: 2 ** 31, max: 2 ** 52 }),
  );
  const body = fc.dictionary(fc.constantFrom(...fields), value, { maxKeys: 5 });

  it('answers ticket creation and updates with anything but a 500', async () => {
    const p = await makeProject(owner);
    const created = await owner.post(`/api/projects/${p.id}/tickets`, { title: 'target' });
    await fc.assert(
      fc.asyncProperty(body, fc.boolean(), async (b, create) => {
        const res = create
          ? await owner.post(`/api/projects/${p.id}/tickets`, b)
          : await owner.patch(`/api/projects/${p.id}/tickets/${created.json().id}`, b);
        expect(res.statusCode, `${JSON.stringify(b)}: ${res.body}`).toBeLessThan(500);
        if (res.statusCode === 400) expect(res.json().error).toBe('Validation failed');
      }),
      { numRuns: 150 },
    );
  });

  it('answers list queries with anything but a 500', async () => {
    const p = await makeProject(owner);
    const keys = [
      'sprintId',
      'columnId',
      'type',
      'priority',
      'assigneeId',
      'labelId',
      'parentId',
      'q',
      'limit',
      'offset',
    ];
    await fc.assert(
      fc.asyncProperty(
        fc.dictionary(
          fc.constantFrom(...keys),
          fc.oneof(fc.string({ maxLength: 20 }), fc.integer().map(String)),
          { maxKeys: 4 },
        ),
        async (q) => {
          const res = await owner.get(`/api/projects/${p.id}/tickets?${new URLSearchParams(q)}`);
          expect(res.statusCode, `${JSON.stringify(q)}: ${res.body}`).toBeLessThan(500);
        },
      ),
      { numRuns: 100 },
    );
  });
});

describe('bad input elsewhere', () => {
  const value = fc.oneof(
    fc.string({ maxLength: 20 }),
    fc.integer(),
    fc.boolean(),
    fc.constant(null),
    fc.array(fc.string({ maxLength: 5 }), { maxLength: 2 }),
    fc.constantFrom('owner', 'ADMIN', '#12345G', 'blocks', 'is_blocked_by', 'x'.repeat(300)),
  );
  const body = (keys: string[]) => fc.dictionary(fc.constantFrom(...keys), value, { maxKeys: 4 });

  it('answers project, column, member, label, link and comment writes with anything but a 500', async () => {
    const p = await makeProject(owner);
    const base = `/api/projects/${p.id}`;
    const [col] = await columnsOf(owner, p.id);
    const ticket = (await owner.post(`${base}/tickets`, { title: 't' })).json();
    const label = (await owner.post(`${base}/labels`, { name: 'l' })).json();
    const me = (await owner.get(`${base}/members`)).json()[0];
    const targets: [string, string, string[]][] = [
      ['POST', '/api/projects', ['name', 'key', 'description', 'color']],
      ['PATCH', base, ['name', 'key', 'description', 'color']],
      ['POST', `${base}/columns`, ['name', 'order']],
      ['PATCH', `${base}/columns/${col.id}`, ['name', 'order']],
      ['DELETE', `${base}/columns/nope`, ['moveTicketsTo']],
      ['POST', `${base}/members`, ['userId', 'username', 'role']],
      ['PATCH', `${base}/members/${me.id}`, ['role']],
      ['POST', `${base}/labels`, ['name', 'color']],
      ['PATCH', `${base}/labels/${label.id}`, ['name', 'color']],
      ['POST', `${base}/tickets/${ticket.id}/links`, ['targetTicketId', 'linkType']],
      ['POST', `${base}/tickets/${ticket.id}/comments`, ['content']],
      ['PATCH', `${base}/tickets`, ['ticketIds', 'updates']],
      ['DELETE', `${base}/tickets`, ['ticketIds']],
    ];
    for (const [method, url, keys] of targets) {
      await fc.assert(
        fc.asyncProperty(body(keys), async (b) => {
          const res = await owner.req({ method: method as 'POST', url, payload: b as never });
          expect(res.statusCode, `${method} ${url} ${JSON.stringify(b)}: ${res.body}`).toBeLessThan(500);
        }),
        { numRuns: 25 },
      );
    }
  });
});
