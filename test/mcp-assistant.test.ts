import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './helpers/app.js';
import { type Client, signUp, unique } from './helpers/factories.js';
import { makePng, multipartBody } from './helpers/files.js';
import { call, connect, fails, ok, type Transport } from './helpers/mcp.js';

/**
 * Issue 20, "MCP for assistants": each row of its table, over both front doors (Streamable HTTP at
 * /api/mcp and the stdio server) with the official SDK client. The HTTP side of the dates and sprint
 * names rows is in test/dates-and-sprint-names.test.ts.
 */

let t: TestApp;
let baseUrl: string;
let owner: Client;
let apiKey: string;

beforeAll(async () => {
  t = await createTestApp();
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  baseUrl = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  await signUp(t.app, { username: unique('sysadmin') });
  owner = await signUp(t.app, { username: unique('ada'), name: 'Ada Assistant' });
  apiKey = (await owner.post('/api/me/mcp-key')).json().apiKey;
  // 215 tickets, 210 of them in the sprint "Big" (rows "list_tickets {limit: 200}" and "get_sprint of 210").
  await owner.post('/api/projects', { name: 'Paging', key: 'PG' });
  const big = (await owner.post('/api/projects/PG/sprints', { name: 'Big' })).json();
  for (let i = 1; i <= 215; i++) {
    const r = await owner.post('/api/projects/PG/tickets', {
      title: `Paged ${i}`,
      ...(i <= 210 ? { sprintId: big.id, storyPoints: 1 } : {}),
    });
    expect(r.statusCode).toBe(201);
  }
  // Row "search login": 25 matches in the project first by name, then one in the last, changed last.
  await owner.post('/api/projects', { name: 'Aardvark', key: 'AAX' });
  await owner.post('/api/projects', { name: 'Zulu', key: 'ZZX' });
  for (let i = 1; i <= 25; i++) await owner.post('/api/projects/AAX/tickets', { title: `login bug ${i}` });
  await owner.post('/api/projects/ZZX/tickets', { title: 'The login page is slow' });
}, 120_000);
afterAll(async () => t.close());

const keysOf = (r: { data: { tickets: { key: string }[] } }) => r.data.tickets.map((x) => x.key);

describe.each<Transport>(['http', 'stdio'])('assistant rows over %s', (kind) => {
  let c: McpClient;
  const KEY = kind === 'http' ? 'ASH' : 'ASS';
  const P = `/api/projects/${KEY}`;

  beforeAll(async () => {
    c = await connect(kind, baseUrl, apiKey);
    await owner.post('/api/projects', { name: `Assistant ${kind}`, key: KEY });
  });
  afterAll(async () => c?.close());

  describe('dates', () => {
    it('update_ticket and create_ticket refuse 2026-02-30; nothing is stored', async () => {
      const made = await ok(c, 'create_ticket', { projectKey: KEY, title: 'Due soon' });
      const refused = await fails(c, 'update_ticket', { key: made.data.key, dueDate: '2026-02-30' });
      expect(refused).toMatch(/dueDate: must be a real calendar date/);
      expect(
        await fails(c, 'create_ticket', { projectKey: KEY, title: 'x', startDate: '2026-04-31' }),
      ).toMatch(/startDate: must be a real calendar date/);
      expect((await owner.get(`${P}/tickets/${made.data.key}`)).json().dueDate).toBeNull();
      const leap = await ok(c, 'update_ticket', { key: made.data.key, dueDate: '2028-02-29' });
      expect(leap.data.dueDate).toBe('2028-02-29');
    });

    it('sprint tools refuse days that do not exist', async () => {
      expect(
        await fails(c, 'create_sprint', { projectKey: KEY, name: `Dates ${kind}`, startDate: '2026-02-30' }),
      ).toMatch(/startDate: must be a real calendar date/);
      const sprints = (await owner.get(`${P}/sprints`)).json();
      expect(sprints.some((s: { name: string }) => s.name === `Dates ${kind}`)).toBe(false);
    });
  });

  describe('paging', () => {
    it('list_tickets {limit: 200} on 215 tickets: the next page is reachable by cursor, and the text says how', async () => {
      const first = await ok(c, 'list_tickets', { projectKey: 'PG', limit: 200 });
      expect(first.data).toMatchObject({ total: 215, truncated: true, sort: 'board' });
      expect(first.data.tickets).toHaveLength(200);
      expect(first.data.nextCursor).toEqual(expect.any(String));
      const lines = first.text.split('\n');
      expect(lines[0]).toBe('Tickets 1-200 of 215, in board order (column, then position):');
      expect(lines.at(-1)).toBe(
        `More: 15 not shown. Call list_tickets again with the same arguments and cursor "${first.data.nextCursor}" for tickets 201-215 (or raise limit).`,
      );
      const second = await ok(c, 'list_tickets', {
        projectKey: 'PG',
        limit: 200,
        cursor: first.data.nextCursor,
      });
      expect(second.data).toMatchObject({ total: 215, truncated: false, nextCursor: null });
      expect(second.text.split('\n')[0]).toBe(
        'Tickets 201-215 of 215, in board order (column, then position):',
      );
      const all = new Set([...keysOf(first), ...keysOf(second)]);
      expect(all.size).toBe(215);
      // A cursor is tied to its filters.
      expect(
        await fails(c, 'list_tickets', {
          projectKey: 'PG',
          sprint: 'backlog',
          cursor: first.data.nextCursor,
        }),
      ).toMatch(/^This cursor belongs to other arguments of list_tickets/);
      expect(await fails(c, 'list_tickets', { projectKey: 'PG', cursor: 'garbage' })).toMatch(
        /^Invalid cursor/,
      );
    });

    it('list_tickets {search} across projects: most recently updated first, never project-name order, every match reachable', async () => {
      const first = await ok(c, 'list_tickets', { search: 'login' });
      expect(first.data).toMatchObject({ total: 26, truncated: true, sort: 'updated' });
      expect(first.data.tickets[0].key).toBe('ZZX-1');
      expect(first.text.split('\n')[0]).toBe('Tickets 1-20 of 26, most recently updated first:');
      const rest = await ok(c, 'list_tickets', { search: 'login', cursor: first.data.nextCursor });
      const keys = [...keysOf(first), ...keysOf(rest)];
      expect(new Set(keys).size).toBe(26);
      expect(keys).toContain('ZZX-1');
      const byCreation = await ok(c, 'list_tickets', { search: 'login', sort: 'created', limit: 1 });
      expect(keysOf(byCreation)).toEqual(['ZZX-1']);
      expect(await fails(c, 'list_tickets', { search: 'login', sort: 'board' })).toMatch(
        /^sort board needs projectKey/,
      );
    });

    it('get_sprint of 210 tickets takes a limit and pages; its totals count them all', async () => {
      const r = await ok(c, 'get_sprint', { projectKey: 'PG', sprintName: 'big', limit: 10 });
      expect(r.data.tickets).toHaveLength(10);
      expect(r.data).toMatchObject({ total: 210, ticketCount: 210, storyPoints: 210, truncated: true });
      expect(Buffer.byteLength(r.text)).toBeLessThan(3000);
      expect(r.text).toContain('More: 200 not shown.');
      const next = await ok(c, 'get_sprint', {
        projectKey: 'PG',
        sprintName: 'big',
        limit: 10,
        cursor: r.data.nextCursor,
      });
      expect(next.data.tickets.map((x: { key: string }) => x.key)).not.toContain(r.data.tickets[0].key);
      const byDefault = await ok(c, 'get_sprint', { projectKey: 'PG', sprintName: 'Big' });
      expect(byDefault.data.tickets).toHaveLength(50);
    });

    it('list_projects, list_users, list_members, list_labels and list_sprints page by cursor too', async () => {
      const p1 = await ok(c, 'list_projects', { limit: 1 });
      const p2 = await ok(c, 'list_projects', { limit: 1, cursor: p1.data.nextCursor });
      expect(p2.data.projects[0].key).not.toBe(p1.data.projects[0].key);
      const u1 = await ok(c, 'list_users', { limit: 1 });
      const u2 = await ok(c, 'list_users', { limit: 1, cursor: u1.data.nextCursor });
      expect(u2.data.users[0].username).not.toBe(u1.data.users[0].username);
      for (const name of ['alpha', 'beta', 'gamma'])
        await owner.post(`${P}/labels`, { name: `${name}-${kind}` });
      const l1 = await ok(c, 'list_labels', { projectKey: KEY, limit: 2 });
      expect(l1.data).toMatchObject({ total: 3, truncated: true });
      const l2 = await ok(c, 'list_labels', { projectKey: KEY, limit: 2, cursor: l1.data.nextCursor });
      expect(l2.data.labels.map((l: { name: string }) => l.name)).toEqual([`gamma-${kind}`]);
      const s1 = await ok(c, 'list_sprints', { projectKey: 'PG', limit: 1 });
      expect(s1.data).toMatchObject({ total: 1, truncated: false, nextCursor: null });
      const m1 = await ok(c, 'list_members', { projectKey: KEY, limit: 1 });
      expect(m1.data.members).toHaveLength(1);
    });
  });

  describe('the rest of a ticket', () => {
    it('list_comments, add_comment, update_comment and delete_comment', async () => {
      const tk = (await ok(c, 'create_ticket', { projectKey: KEY, title: 'Talked about' })).data.key;
      const first = await ok(c, 'add_comment', { ticketKey: tk, content: 'First **thought**' });
      expect(first.data).toMatchObject({
        by: owner.username,
        byName: 'Ada Assistant',
        content: 'First **thought**',
      });
      await ok(c, 'add_comment', { ticketKey: tk, content: 'Second' });
      await ok(c, 'add_comment', { ticketKey: tk, content: 'Third' });
      const page = await ok(c, 'list_comments', { ticketKey: tk, limit: 2 });
      expect(page.data.comments.map((x: { content: string }) => x.content)).toEqual([
        'First **thought**',
        'Second',
      ]);
      expect(page.data).toMatchObject({ total: 3, truncated: true });
      expect(page.text).toContain(`[${first.data.id}] ${owner.username} (Ada Assistant)`);
      const upd = await ok(c, 'update_comment', {
        ticketKey: tk,
        commentId: first.data.id,
        content: 'Edited',
      });
      expect(upd.data.content).toBe('Edited');
      await ok(c, 'delete_comment', { ticketKey: tk, commentId: first.data.id });
      const http = (await owner.get(`${P}/tickets/${tk}/comments`)).json();
      expect(http.map((x: { content: string }) => x.content)).toEqual(['Second', 'Third']);
      expect(await fails(c, 'delete_comment', { ticketKey: tk, commentId: first.data.id })).toBe(
        'Comment not found',
      );
      const got = await ok(c, 'get_ticket', { ticketKey: tk });
      expect(got.data.commentCount).toBe(2);
    });

    it('link_tickets and unlink_tickets', async () => {
      const a = (await ok(c, 'create_ticket', { projectKey: KEY, title: 'Blocker' })).data.key;
      const b = (await ok(c, 'create_ticket', { projectKey: KEY, title: 'Blocked' })).data.key;
      const r = await ok(c, 'link_tickets', { ticketKey: a, linkType: 'blocks', targetKey: b.toLowerCase() });
      expect(r.text).toBe(`Linked ${a} blocks ${b} Blocked`);
      const other = await ok(c, 'get_ticket', { ticketKey: b });
      expect(other.data.links).toEqual([
        { id: expect.any(String), linkType: 'is_blocked_by', key: a, title: 'Blocker' },
      ]);
      expect(await fails(c, 'link_tickets', { ticketKey: a, linkType: 'blocks', targetKey: b })).toBe(
        'Link already exists',
      );
      expect(
        await fails(c, 'unlink_tickets', { ticketKey: a, targetKey: b, linkType: 'duplicates' }),
      ).toMatch(/^Link not found: .* has no duplicates link to /);
      await ok(c, 'unlink_tickets', { ticketKey: b, targetKey: a });
      expect((await owner.get(`${P}/tickets/${a}`)).json().links).toEqual([]);
    });

    it('list_attachments gives names, sizes and links that download with the key', async () => {
      const tk = (await ok(c, 'create_ticket', { projectKey: KEY, title: 'With a file' })).data.key;
      const png = await makePng();
      const up = await owner.req({
        method: 'POST',
        url: `${P}/tickets/${tk}/attachments`,
        ...multipartBody([{ filename: 'shot.png', contentType: 'image/png', data: png }]),
      });
      expect(up.statusCode).toBe(201);
      const r = await ok(c, 'list_attachments', { ticketKey: tk });
      expect(r.data.attachments).toEqual([
        expect.objectContaining({
          filename: 'shot.png',
          mimeType: 'image/png',
          size: png.length,
          by: owner.username,
        }),
      ]);
      const url: string = r.data.attachments[0].url;
      expect(url.startsWith(`${baseUrl}/uploads/attachments/`)).toBe(true);
      expect(r.text).toContain(`shot.png (image/png, `);
      const file = await fetch(url, { headers: { authorization: `Bearer ${apiKey}` } });
      expect(file.status).toBe(200);
      expect(Buffer.from(await file.arrayBuffer()).equals(png)).toBe(true);
    });

    it('get_ticket_history says what changed, who changed it and when, newest first', async () => {
      const tk = (await ok(c, 'create_ticket', { projectKey: KEY, title: 'Changing' })).data.key;
      await ok(c, 'update_ticket', { ticketKey: tk, priority: 'high' });
      await ok(c, 'update_ticket', { ticketKey: tk, title: 'Changed' });
      const r = await ok(c, 'get_ticket_history', { ticketKey: tk, limit: 1 });
      expect(r.data.history).toEqual([
        { field: 'title', from: 'Changing', to: 'Changed', by: owner.username, at: expect.any(String) },
      ]);
      const rest = await ok(c, 'get_ticket_history', { ticketKey: tk, cursor: r.data.nextCursor, limit: 1 });
      expect(rest.data.history[0].field).toBe('priority');
      expect(r.text).toContain(`${owner.username}: title Changing → Changed`);
    });
  });

  describe('sprint settings', () => {
    it('a column after "Done": update_sprint_settings makes both count as done for complete_sprint', async () => {
      const key = `${KEY}D`;
      await ok(c, 'create_project', { projectKey: key, name: `Done columns ${kind}` });
      await ok(c, 'create_column', { projectKey: key, name: 'Archive' });
      const before = await ok(c, 'get_sprint_settings', { projectKey: key });
      expect(before.data).toMatchObject({ doneColumns: ['Archive'], doneColumnsChosen: false });
      expect(before.text).toContain('done columns Archive (none chosen: the last column)');
      await ok(c, 'create_sprint', { projectKey: key, name: 'S1' });
      for (let i = 0; i < 5; i++)
        await ok(c, 'create_ticket', { projectKey: key, title: `Done ${i}`, column: 'Done', sprint: 'S1' });
      await ok(c, 'create_ticket', { projectKey: key, title: 'Archived', column: 'Archive', sprint: 'S1' });
      await ok(c, 'create_ticket', { projectKey: key, title: 'Open', sprint: 'S1' });
      await ok(c, 'start_sprint', { projectKey: key, sprintName: 'S1' });
      const set = await ok(c, 'update_sprint_settings', {
        projectKey: key,
        doneColumns: ['done', 'Archive'],
      });
      expect(set.data).toMatchObject({ doneColumns: ['Done', 'Archive'], doneColumnsChosen: true });
      const http = (await owner.get(`/api/projects/${key}/sprints/settings`)).json();
      expect(http.doneColumnIds).toHaveLength(2);
      const done = await ok(c, 'complete_sprint', { projectKey: key, sprintName: 'S1' });
      expect(done.data).toMatchObject({ completedTicketCount: 6, incompleteTicketCount: 1 });
      expect(await fails(c, 'update_sprint_settings', { projectKey: key })).toMatch(/^Nothing to update/);
      expect(await fails(c, 'update_sprint_settings', { projectKey: key, defaultSprintDuration: 9 })).toMatch(
        /defaultSprintDuration: must be at most 4/,
      );
    });
  });

  describe('identities', () => {
    it('two "Alex Smith"s are told apart by username, and ids are accepted for people, sprints, labels and columns', async () => {
      const alex1 = await signUp(t.app, { username: unique(`alex${kind}a`), name: 'Alex Smith' });
      const alex2 = await signUp(t.app, { username: unique(`alex${kind}b`), name: 'Alex Smith' });
      for (const u of [alex1, alex2]) await owner.post(`${P}/members`, { userId: u.userId, role: 'member' });
      const tk = (
        await ok(c, 'create_ticket', { projectKey: KEY, title: 'Whose?', assignee: alex1.username })
      ).data.key;
      const list = await ok(c, 'list_tickets', { projectKey: KEY, assignee: alex1.username });
      expect(list.data.tickets).toEqual([
        expect.objectContaining({ key: tk, assignee: alex1.username, assigneeName: 'Alex Smith' }),
      ]);
      expect(list.text).toContain(`${tk} Whose? [task, medium] To Do · ${alex1.username} (Alex Smith)`);
      // The result round-trips: the assignee as shown is accepted as input.
      await ok(c, 'update_ticket', { ticketKey: tk, assignee: list.data.tickets[0].assignee });
      expect(await fails(c, 'update_ticket', { ticketKey: tk, assignee: 'Alex Smith' })).toMatch(
        new RegExp(`^Several members match "Alex Smith": .*${alex1.username}.*${alex2.username}`),
      );
      await ok(c, 'update_ticket', { ticketKey: tk, assignee: alex2.userId });
      expect((await owner.get(`${P}/tickets/${tk}`)).json().assigneeId).toBe(alex2.userId);
      const got = await ok(c, 'get_ticket', { ticketKey: tk });
      expect(got.data).toMatchObject({
        assignee: alex2.username,
        assigneeName: 'Alex Smith',
        reporter: owner.username,
      });
      expect(got.text).toContain(`assignee ${alex2.username} (Alex Smith)`);
      // Ids for sprint, label and column.
      const sprint = (await ok(c, 'create_sprint', { projectKey: KEY, name: `By id ${kind}` })).data;
      const label = (await owner.post(`${P}/labels`, { name: `id-label-${kind}` })).json();
      const column = (await owner.get(`${P}/columns`)).json()[1];
      const r = await ok(c, 'update_ticket', { ticketKey: tk, sprint: sprint.id, labels: [label.id] });
      expect(r.data).toMatchObject({ sprint: `By id ${kind}`, labels: [`id-label-${kind}`] });
      await ok(c, 'move_ticket', { ticketKey: tk, column: column.id });
      expect((await owner.get(`${P}/tickets/${tk}`)).json().columnId).toBe(column.id);
      expect((await ok(c, 'get_sprint', { projectKey: KEY, sprintName: sprint.id })).data.name).toBe(
        `By id ${kind}`,
      );
      const byLabel = await ok(c, 'list_tickets', { projectKey: KEY, label: label.id });
      expect(keysOf(byLabel)).toEqual([tk]);
      await ok(c, 'remove_member', { projectKey: KEY, userName: alex1.userId });
      const back = await ok(c, 'add_member', { projectKey: KEY, userName: alex1.userId });
      expect(back.data).toEqual({
        username: alex1.username,
        name: 'Alex Smith',
        role: 'member',
        id: alex1.userId,
      });
    });

    it('create_ticket {labels: ["front"]}: the reply names what "front" became; list_tickets filters by label', async () => {
      await owner.post(`${P}/labels`, { name: 'frontend' });
      const r = await ok(c, 'create_ticket', {
        projectKey: KEY,
        title: 'Styled',
        labels: ['front'],
        column: 'progress',
      });
      expect(r.data.labels).toEqual(['frontend']);
      expect(r.text).toContain('Resolved: column "progress" → In Progress; label "front" → frontend');
      const exact = await ok(c, 'create_ticket', { projectKey: KEY, title: 'Exact', labels: ['FRONTEND'] });
      expect(exact.text).not.toContain('Resolved');
      const byLabel = await ok(c, 'list_tickets', { projectKey: KEY, label: 'frontend' });
      expect(keysOf(byLabel).sort()).toEqual([r.data.key, exact.data.key].sort());
      expect(byLabel.text).not.toContain('Resolved');
    });

    it('keeps the resolved names of calls that overlap apart: each call has a client of its own', async () => {
      await owner.post(`${P}/labels`, { name: 'backend' });
      const [a, b] = await Promise.all([
        ok(c, 'create_ticket', { projectKey: KEY, title: 'Overlap A', labels: ['front'] }),
        ok(c, 'create_ticket', { projectKey: KEY, title: 'Overlap B', labels: ['back'] }),
      ]);
      expect(a.text).toContain('Resolved: label "front" → frontend');
      expect(a.text).not.toContain('backend');
      expect(b.text).toContain('Resolved: label "back" → backend');
      expect(b.text).not.toContain('frontend');
    });
  });

  describe('get_ticket', () => {
    it('shows an 11,407-character description whole and every field in its text', async () => {
      const description = `# Spec\n${'x'.repeat(11_397)}END`;
      expect(description.length).toBe(11_407);
      const made = await ok(c, 'create_ticket', {
        projectKey: KEY,
        title: 'Long one',
        description,
        environment: 'Staging',
        affectedVersion: '1.0',
        fixVersion: '1.1',
        estimate: '3d',
        startDate: '2026-03-02',
        dueDate: '2026-03-06',
        storyPoints: 8,
      });
      const r = await ok(c, 'get_ticket', { ticketKey: made.data.key });
      expect(r.data.description).toBe(description);
      expect(r.text.endsWith(`Description (Markdown, 11407 characters):\n${description}`)).toBe(true);
      for (const fact of [
        'estimate 3d',
        'start 2026-03-02',
        'due 2026-03-06',
        'environment Staging',
        'affected version 1.0',
        'fix version 1.1',
        '8 points',
        `reporter ${owner.username} (Ada Assistant)`,
        'created 20',
        'updated 20',
      ]) {
        expect(r.text, fact).toContain(fact);
      }
    });
  });

  describe('parameter names', () => {
    it('ticketKey and projectKey everywhere; the old key still works for now, with a note', async () => {
      const tk = (await ok(c, 'create_ticket', { projectKey: KEY, title: 'Named' })).data.key;
      const old = await ok(c, 'get_ticket', { key: tk });
      expect(old.data.key).toBe(tk);
      expect(old.text).toContain('Note: key is deprecated: use ticketKey');
      expect((await ok(c, 'get_project', { key: KEY })).text).toContain(
        'Note: key is deprecated: use projectKey',
      );
      expect(await fails(c, 'get_ticket', { key: tk, ticketKey: tk })).toBe(
        'Invalid arguments for get_ticket: give ticketKey only (key is its deprecated name)',
      );
      const { tools } = await c.listTools();
      for (const tool of tools) {
        const params = Object.keys(tool.inputSchema.properties ?? {});
        expect(params, tool.name).not.toContain('key');
        if (
          tool.name.includes('ticket') &&
          !tool.name.startsWith('list_') &&
          !tool.name.startsWith('create_') &&
          !tool.name.startsWith('search_')
        )
          expect(params, tool.name).toContain('ticketKey');
      }
    });
  });

  describe('catalogue', () => {
    it('the tool list is fixed for the connection: listChanged is not offered', () => {
      expect(c.getServerCapabilities()?.tools?.listChanged).not.toBe(true);
    });

    it('tools/list is at most 30 KB as the client receives it', async () => {
      const listed = await c.listTools();
      expect(listed.tools).toHaveLength(45);
      expect(Buffer.byteLength(JSON.stringify(listed))).toBeLessThanOrEqual(30 * 1024);
    });

    it('a read-only toolset lists and runs only the tools that change nothing', async () => {
      const ro = await connect(kind, baseUrl, apiKey, { readOnly: true });
      try {
        const { tools } = await ro.listTools();
        const names = tools.map((x) => x.name);
        expect(names).toContain('list_comments');
        expect(names).toContain('get_sprint_settings');
        expect(names).not.toContain('add_comment');
        expect(tools.every((x) => x.annotations?.readOnlyHint === true)).toBe(true);
        expect(await fails(ro, 'create_ticket', { projectKey: KEY, title: 'Nope' })).toBe(
          'create_ticket changes data: this connection has the read-only toolset',
        );
        expect((await ok(ro, 'list_tickets', { projectKey: 'PG', limit: 1 })).data.total).toBe(215);
      } finally {
        await ro.close();
      }
    });
  });

  describe('tool errors', () => {
    it('a NUL in search or in a title is an isError tool result naming the parameter, not a transport error', async () => {
      for (const args of [{ search: 'log\u0000in' }, { projectKey: KEY, search: 'log\u0000in' }]) {
        const r = await call(c, 'list_tickets', args);
        expect(r).toMatchObject({
          isError: true,
          text: 'Validation failed: search: Must not contain NUL characters',
        });
      }
      const r = await call(c, 'create_ticket', { projectKey: KEY, title: 'nul\u0000title' });
      expect(r).toMatchObject({
        isError: true,
        text: 'Validation failed: title: Must not contain NUL characters',
      });
      expect((await owner.get(`${P}/tickets?q=nul`)).json()).toEqual([]);
    });

    it('an unknown tool and bad arguments are isError results too', async () => {
      expect(await call(c, 'no_such_tool', {})).toMatchObject({
        isError: true,
        text: 'Unknown tool: no_such_tool',
      });
      expect(await call(c, 'get_ticket', { ticketKey: 42 })).toMatchObject({ isError: true });
    });
  });

  describe('sprint names', () => {
    it('create_sprint {name: "sprint 4"} while "Sprint 4" exists is refused; both stay addressable', async () => {
      await ok(c, 'create_sprint', { projectKey: KEY, name: 'Sprint 4' });
      expect(await fails(c, 'create_sprint', { projectKey: KEY, name: 'sprint 4' })).toBe(
        'Sprint already exists',
      );
      await ok(c, 'create_sprint', { projectKey: KEY, name: 'Sprint 40' });
      expect(
        await fails(c, 'update_sprint', { projectKey: KEY, sprintName: 'Sprint 40', name: 'SPRINT 4' }),
      ).toBe('Sprint already exists');
      const r = await ok(c, 'get_sprint', { projectKey: KEY, sprintName: 'sprint 4' });
      expect(r.data.name).toBe('Sprint 4');
    });
  });
});

describe('the server process', () => {
  it('never uses AsyncLocalStorage or async hooks: on Node 20 their first use slows every request after it', () => {
    // Measured: once an MCP call had run `AsyncLocalStorage.run`, promise hooks stayed on for the
    // whole process and cached ticket reads fell from about 24,000 to 18,000 a second.
    const offenders: string[] = [];
    const walk = (dir: string) => {
      for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
        const full = path.join(dir, e.name);
        if (e.isDirectory()) walk(full);
        else if (/\.tsx?$/.test(e.name) && /['"](node:)?async_hooks['"]/.test(fs.readFileSync(full, 'utf8')))
          offenders.push(full);
      }
    };
    walk(path.join(import.meta.dirname, '..', 'src'));
    expect(offenders).toEqual([]);
  });
});
