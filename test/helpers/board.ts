import { expect } from 'vitest';
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
