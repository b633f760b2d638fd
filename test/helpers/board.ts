import { sql } from 'kysely';
import { expect } from 'vitest';
import type { Db } from '../../src/db/connect.js';
import { BLOCK_MAX, BLOCK_MIN } from '../../src/db/migrations/090_column_rank_blocks.js';
import type { Client } from './factories.js';

let keySeq = 0;
/** A fresh project key, unique within a run. */
export const newKey = (prefix = 'P') =>
  `${prefix}${(Date.now() % 100000).toString(36).toUpperCase()}${(keySeq++).toString(36).toUpperCase()}`.slice(
    0,
    10,
  );

export interface ProjectOut {
  id: string;
  key: string;
  name: string;
  color: string;
}

export async function makeProject(owner: Client, fields: Record<string, unknown> = {}): Promise<ProjectOut> {
  const res = await owner.post('/api/projects', { name: 'Project', key: newKey(), ...fields });
  expect(res.statusCode, res.body).toBe(201);
  return res.json();
}

export async function addMember(by: Client, projectId: string, user: Client, role = 'member') {
  const res = await by.post(`/api/projects/${projectId}/members`, { userId: user.userId, role });
  expect(res.statusCode, res.body).toBe(201);
  return res.json() as { id: string; role: string; userId: string };
}

export async function columnsOf(
  c: Client,
  projectId: string,
): Promise<{ id: string; name: string; order: number }[]> {
  const res = await c.get(`/api/projects/${projectId}/columns`);
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
}

export async function makeTicket(c: Client, projectId: string, fields: Record<string, unknown> = {}) {
  const res = await c.post(`/api/projects/${projectId}/tickets`, { title: 'A ticket', ...fields });
  expect(res.statusCode, res.body).toBe(201);
  return res.json();
}

/** PostgreSQL: rows of migration 091's ticket_label_columns that differ from the tickets' labels and columns. */
export async function labelColumnsOutOfStep(db: Db): Promise<unknown[]> {
  const rows = await sql`(select l.ticket_id, l.label_id, t.column_id from ticket_labels l
      join tickets t on t.id = l.ticket_id except select ticket_id, label_id, column_id from ticket_label_columns)
    union all (select ticket_id, label_id, column_id from ticket_label_columns
      except select l.ticket_id, l.label_id, t.column_id from ticket_labels l join tickets t on t.id = l.ticket_id)`.execute(
    db.kysely,
  );
  return rows.rows;
}

/**
 * PostgreSQL, the tables its triggers derive from the tickets: every column's total kept by
 * migration 089 (`column_ticket_counts`) is the number of tickets it holds (a column without a row
 * holds none), migration 090's blocks count what they hold, and migration 091's
 * `ticket_label_columns` holds each ticket's labels with its column. SQLite keeps none of them.
 */
export async function expectDerivedKept(db: Db): Promise<void> {
  if (db.dialect !== 'postgres') return;
  const wrong = await sql<{ id: string; kept: number; held: number }>`
    select c.id, coalesce(k.n, 0) as kept, (select count(*) from tickets t where t.column_id = c.id)::int as held
    from columns c left join column_ticket_counts k on k.column_id = c.id
    where coalesce(k.n, 0) <> (select count(*) from tickets t where t.column_id = c.id)`.execute(db.kysely);
  expect(wrong.rows).toEqual([]);
  // Migration 090's blocks: each counts the tickets ranked from its lo to the next block's, each
  // column with tickets has the first block (''), and every block is within bounds.
  const blocks = await sql<{ column_id: string; lo: string; kept: number; held: number }>`
    select b.column_id, b.lo, b.n as kept, (select count(*) from tickets t where t.column_id = b.column_id
      and t.rank >= b.lo and (nx.lo is null or t.rank < nx.lo))::int as held
    from column_rank_blocks b
      left join lateral (select lo from column_rank_blocks x where x.column_id = b.column_id and x.lo > b.lo
        order by x.lo limit 1) nx on true
    where b.n <> (select count(*) from tickets t where t.column_id = b.column_id
      and t.rank >= b.lo and (nx.lo is null or t.rank < nx.lo))
      or b.n > ${BLOCK_MAX} or (b.lo <> '' and b.n < ${BLOCK_MIN})`.execute(db.kysely);
  expect(blocks.rows).toEqual([]);
  const firstless = await sql<{ column_id: string }>`select distinct t.column_id from tickets t
    where not exists (select 1 from column_rank_blocks b where b.column_id = t.column_id and b.lo = '')`.execute(
    db.kysely,
  );
  expect(firstless.rows).toEqual([]);
  const unsettled = await db.kysely.selectFrom('column_rank_blocks_unsettled').selectAll().execute();
  expect(unsettled).toEqual([]);
  expect(await labelColumnsOutOfStep(db)).toEqual([]);
  const columns = await db.kysely
    .selectFrom('columns')
    .select((e) => e.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  expect(Number(columns.n)).toBeGreaterThan(0);
}
