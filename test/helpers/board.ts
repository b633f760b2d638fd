import { sql } from 'kysely';
import { expect } from 'vitest';
import type { Db } from '../../src/db/connect.js';
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

/**
 * PostgreSQL: every column's total kept by migration 089's triggers (`column_ticket_counts`) is the
 * number of tickets it holds (a column without a row holds none). SQLite keeps no totals.
 */
export async function expectColumnTotalsKept(db: Db): Promise<void> {
  if (db.dialect !== 'postgres') return;
  const wrong = await sql<{ id: string; kept: number; held: number }>`
    select c.id, coalesce(k.n, 0) as kept, (select count(*) from tickets t where t.column_id = c.id)::int as held
    from columns c left join column_ticket_counts k on k.column_id = c.id
    where coalesce(k.n, 0) <> (select count(*) from tickets t where t.column_id = c.id)`.execute(db.kysely);
  expect(wrong.rows).toEqual([]);
  const columns = await db.kysely
    .selectFrom('columns')
    .select((e) => e.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  expect(Number(columns.n)).toBeGreaterThan(0);
}
