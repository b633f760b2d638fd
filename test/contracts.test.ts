import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contractBreach } from '../src/shared/contracts.js';
import { EVENT_PAYLOADS, EVENT_TYPES, eventEnvelopeOut } from '../src/shared/events.js';
import { ticketFullOut, ticketListItemOut } from '../src/shared/tickets.js';
import { createTestApp, type TestApp } from './helpers/app.js';
import { addMember, columnsOf, makeProject, makeTicket } from './helpers/board.js';
import { signUp } from './helpers/factories.js';

const src = path.resolve(import.meta.dirname, '../src');

/** Every .ts/.tsx file under a folder of src/, with its text. */
function sources(dir: string): { file: string; text: string }[] {
  return fs
    .readdirSync(path.join(src, dir), { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && /\.tsx?$/.test(e.name))
    .map((e) => {
      const file = path.join(e.parentPath, e.name);
      return { file: path.relative(src, file), text: fs.readFileSync(file, 'utf8') };
    });
}

const EVENT_PREFIXES =
  /^'((?:ticket|label|project|user|database|column|sprint|member|comment|attachment|link|notification|template)\.[a-z.]+)'$/;

/** Quoted strings that look like event types (`'ticket.moved'`), by file. */
function eventTypeLiterals(dir: string) {
  const out: { file: string; type: string }[] = [];
  for (const { file, text } of sources(dir)) {
    for (const m of text.matchAll(/'[a-z]+\.[a-z.]+'/g)) {
      const hit = EVENT_PREFIXES.exec(m[0]);
      if (hit) out.push({ file, type: hit[1] });
    }
  }
  return out;
}

describe('events: one list of types, used by the server and the web app', () => {
  it('the web app handles only types the server emits', () => {
    const unknown = eventTypeLiterals('web').filter((l) => !(EVENT_TYPES as string[]).includes(l.type));
    expect(unknown).toEqual([]);
  });

  // That every type of the list is emitted (no dead types) is observed, not read from the sources:
  // test/events-emitted.test.ts walks the API and records what the app delivers.

  it('the envelope union knows every type and refuses one it does not', () => {
    for (const type of EVENT_TYPES) expect(EVENT_PAYLOADS[type]).toBeDefined();
    const ok = eventEnvelopeOut.safeParse({
      type: 'ticket.deleted',
      data: { id: 'x' },
      tabId: null,
      timestamp: 't',
    });
    expect(ok.success).toBe(true);
    const bad = eventEnvelopeOut.safeParse({
      type: 'sprint.settings.updated',
      data: {},
      tabId: null,
      timestamp: 't',
    });
    expect(bad.success).toBe(false);
  });

  it('finds a payload with a field outside its schema', () => {
    expect(contractBreach(EVENT_PAYLOADS['ticket.deleted'], { id: 'a' })).toBeNull();
    expect(contractBreach(EVENT_PAYLOADS['ticket.deleted'], { id: 'a', secret: 'x' })).toMatch(/outside/);
    expect(contractBreach(EVENT_PAYLOADS['ticket.deleted'], {})).not.toBeNull();
  });
});

describe('answers: declared by every route and kept', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => t.close());

  it('every operation in /api/openapi.json that answers JSON declares its success schema', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/api/openapi.json' })).json() as {
      paths: Record<string, Record<string, { responses?: Record<string, { content?: object }> }>>;
    };
    // Answers that are not JSON: files, event streams, the backup download, the MCP endpoint, the CSV export.
    const notJson = new Set([
      'get /uploads/{kind}/{name}',
      'get /api/projects/{projectId}/events',
      'get /api/projects/events',
      'get /api/users/events',
      'post /api/admin/database/export',
      'post /api/mcp',
      'get /api/mcp',
      'delete /api/mcp',
      'get /api/notifications/unsubscribe',
      'get /metrics',
      // Single sign-on: browser navigations, answered with redirects.
      'get /api/auth/oidc/start',
      'get /api/auth/oidc/callback',
      'get /api/projects/{projectId}/tickets.csv',
    ]);
    const missing: string[] = [];
    let operations = 0;
    for (const [route, methods] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(methods)) {
        const name = `${method} ${route}`;
        operations++;
        if (notJson.has(name)) continue;
        const success = Object.entries(op.responses ?? {}).find(([code]) => code.startsWith('2'));
        if (!success?.[1].content) missing.push(name);
      }
    }
    expect(missing).toEqual([]);
    expect(operations).toBeGreaterThan(70);
  });

  it('the pre-serialised ticket list and full read parse with their declared schemas', async () => {
    const owner = await signUp(t.app, { name: 'Olga' });
    const other = await signUp(t.app);
    const p = await makeProject(owner);
    await addMember(owner, p.id, other);
    const cols = await columnsOf(owner, p.id);
    const label = (await owner.post(`/api/projects/${p.id}/labels`, { name: 'ui' })).json();
    const parent = await makeTicket(owner, p.id, { title: 'Parent', type: 'Epic' });
    const child = await makeTicket(owner, p.id, {
      title: 'Child',
      type: 'Subtask',
      parentId: parent.id,
      assigneeId: other.userId,
      labelIds: [label.id],
      storyPoints: 3,
      dueDate: '2026-12-24',
      columnId: cols[1].id,
    });
    const link = await owner.post(`/api/projects/${p.id}/tickets/${child.id}/links`, {
      targetTicketId: parent.id,
      linkType: 'blocks',
    });
    expect(link.statusCode).toBe(201);

    const list = await owner.get(`/api/projects/${p.id}/tickets`);
    expect(list.statusCode).toBe(200);
    expect(list.json()).toHaveLength(2);
    expect(contractBreach(ticketListItemOut.array(), list.json())).toBeNull();
    for (const ref of [child.id, child.key, parent.id]) {
      const full = await owner.get(`/api/projects/${p.id}/tickets/${ref}`);
      expect(full.statusCode).toBe(200);
      expect(contractBreach(ticketFullOut, full.json())).toBeNull();
    }
    expect((await owner.get(`/api/projects/${p.id}/tickets/${child.id}`)).json().links).toHaveLength(1);
  });
});
