import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';
import type { Client } from './factories.js';
import { multipartBody } from './files.js';

/** The import tests' fixtures: each source's export format, written for these tests. */
export const fixtures = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'imports');
export const fixture = (name: string) => fs.readFileSync(path.join(fixtures, name));

/** POST /api/projects/:id/imports with the file and the fields. */
export function sendImport(
  c: Client,
  projectId: string,
  data: Buffer,
  fields: Record<string, string>,
  filename = 'export.csv',
) {
  const { payload, headers } = multipartBody(
    [{ filename, contentType: 'application/octet-stream', data }],
    fields,
  );
  return c.req({ method: 'POST', url: `/api/projects/${projectId}/imports`, payload, headers });
}

export async function ticketsOf(c: Client, projectId: string) {
  const res = await c.get(`/api/projects/${projectId}/tickets`);
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as Record<string, any>[];
}

export async function fullTicket(c: Client, projectId: string, ticketId: string) {
  const res = await c.get(`/api/projects/${projectId}/tickets/${ticketId}`);
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
}

export async function commentsOf(c: Client, projectId: string, ticketId: string) {
  const res = await c.get(`/api/projects/${projectId}/tickets/${ticketId}/comments`);
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as {
    content: string;
    author: { id: string | null; name: string; avatar: string | null };
    createdAt: string;
  }[];
}

export const byTitle = (list: Record<string, any>[], title: string) => {
  const found = list.find((x) => x.title === title);
  if (!found) throw new Error(`no ticket titled ${title}`);
  return found;
};

/** The project's labels and sprints: an import refused must not have made any. */
export async function namesOf(c: Client, projectId: string) {
  const labels = (await c.get(`/api/projects/${projectId}/labels`)).json() as { name: string }[];
  const sprints = (await c.get(`/api/projects/${projectId}/sprints`)).json() as { name: string }[];
  return { labels: labels.map((l) => l.name), sprints: sprints.map((s) => s.name) };
}
