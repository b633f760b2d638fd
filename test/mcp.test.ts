import type { AddressInfo } from 'node:net';
import type { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StoredEvent } from '../src/events/types.js';
import { createTestApp, type TestApp } from './helpers/app.js';
import { type Client, signUp, unique } from './helpers/factories.js';
import { connect, fails, ok, type Transport } from './helpers/mcp.js';

/**
 * Every tool of SPEC "Tool server operations", through the official SDK client, over both front
 * doors (Streamable HTTP at /api/mcp and the stdio server), against a listening Docket. Each effect
 * is checked through the HTTP API as another client would see it.
 */

const SPEC_TOOLS = [
  'get_ticket',
  'list_tickets',
  'create_ticket',
  'update_ticket',
  'move_ticket',
  'delete_ticket',
  'list_projects',
  'get_project',
  'create_project',
  'update_project',
  'delete_project',
  'list_sprints',
  'get_sprint',
  'create_sprint',
  'update_sprint',
  'start_sprint',
  'complete_sprint',
  'delete_sprint',
  'list_members',
  'add_member',
  'remove_member',
  'change_member_role',
  'list_users',
  'list_labels',
  'create_label',
  'update_label',
  'delete_label',
  'add_label_to_ticket',
  'remove_label_from_ticket',
  'list_columns',
  'create_column',
  'rename_column',
  'reorder_column',
  'delete_column',
  'search_tickets',
];

/** The tools for the rest of a ticket and the sprint settings (issue 20). */
const ISSUE_20_TOOLS = [
  'list_comments',
  'add_comment',
  'update_comment',
  'delete_comment',
  'link_tickets',
  'unlink_tickets',
  'list_attachments',
  'get_ticket_history',
  'get_sprint_settings',
  'update_sprint_settings',
];

let t: TestApp;
let baseUrl: string;
let owner: Client;
let apiKey: string;
const events: StoredEvent[] = [];

beforeAll(async () => {
  t = await createTestApp();
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  baseUrl = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  await signUp(t.app, { username: unique('sysadmin') }); // the first account is the system administrator
  owner = await signUp(t.app, { username: unique('olivia'), name: 'Olivia Owner' });
  apiKey = (await owner.post('/api/me/mcp-key')).json().apiKey;
  t.app.hub.subscribe((batch) => {
    events.push(...batch);
  });
});
afterAll(async () => t.close());

describe.each<Transport>(['http', 'stdio'])('tools over %s', (kind) => {
  let c: McpClient;
  const KEY = kind === 'http' ? 'MCPH' : 'MCPS';
  const P = `/api/projects/${KEY}`;
  let marta: Client;

  beforeAll(async () => {
    c = await connect(kind, baseUrl, apiKey);
    marta = await signUp(t.app, { username: unique(`marta${kind}`), name: `Marta ${kind} Member` });
  });
  afterAll(async () => c?.close());

  it('lists the 34 tools of SPEC, those of issue 20 and search_tickets, each with a description, schemas and annotations', async () => {
    const { tools } = await c.listTools();
    expect(tools.map((x) => x.name).sort()).toEqual([...SPEC_TOOLS, ...ISSUE_20_TOOLS].sort());
    // The hints as a client reads them: the MCP specification's defaults where the catalogue leaves one out.
    const hints = (a: (typeof tools)[number]['annotations']) => ({
      readOnly: a?.readOnlyHint ?? false,
      destructive: a?.readOnlyHint ? false : (a?.destructiveHint ?? true),
      idempotent: a?.readOnlyHint ? true : (a?.idempotentHint ?? false),
    });
    for (const tool of tools) {
      expect(tool.description, tool.name).toBeTruthy();
      expect(tool.outputSchema, tool.name).toBeTruthy();
      expect(tool.annotations, tool.name).toBeTruthy();
    }
    const byName = Object.fromEntries(tools.map((x) => [x.name, x]));
    expect(hints(byName.list_tickets.annotations)).toEqual({
      readOnly: true,
      destructive: false,
      idempotent: true,
    });
    expect(hints(byName.delete_project.annotations)).toEqual({
      readOnly: false,
      destructive: true,
      idempotent: true,
    });
    expect(hints(byName.create_ticket.annotations)).toEqual({
      readOnly: false,
      destructive: false,
      idempotent: false,
    });
    expect(hints(byName.update_ticket.annotations)).toEqual({
      readOnly: false,
      destructive: false,
      idempotent: true,
    });
    expect(hints(byName.delete_comment.annotations).destructive).toBe(true);
    expect(hints(byName.list_comments.annotations).readOnly).toBe(true);
    // SPEC: title is required (docs/decisions/058-trust-findings.md).
    expect(byName.create_ticket.inputSchema.required).toEqual(['projectKey', 'title']);
  });

  describe('projects', () => {
    it('create_project makes me the owner, accepting the key in lower case', async () => {
      const r = await ok(c, 'create_project', {
        name: `Tools ${kind}`,
        projectKey: KEY.toLowerCase(),
        description: 'Via MCP',
      });
      expect(r.text).toBe(`Created project ${KEY}: Tools ${kind}`);
      expect(r.data).toMatchObject({ key: KEY, name: `Tools ${kind}`, description: 'Via MCP' });
      const members = (await owner.get(`${P}/members`)).json();
      expect(members).toEqual([expect.objectContaining({ userId: owner.userId, role: 'owner' })]);
      await expect
        .poll(() =>
          events.some((e) => e.type === 'project.created' && (e.data as { key: string }).key === KEY),
        )
        .toBe(true);
    });

    it('get_project returns the columns with 1-based positions and the members', async () => {
      const r = await ok(c, 'get_project', { projectKey: KEY.toLowerCase() });
      expect(r.data.columns.map((x: { position: number; name: string }) => [x.position, x.name])).toEqual([
        [1, 'To Do'],
        [2, 'In Progress'],
        [3, 'Done'],
      ]);
      expect(r.data.members).toEqual([
        { username: owner.username, name: 'Olivia Owner', role: 'owner', id: owner.userId },
      ]);
      expect(r.text).toContain('1. To Do, 2. In Progress, 3. Done');
    });

    it('update_project changes fields and null clears the description', async () => {
      const r = await ok(c, 'update_project', {
        projectKey: KEY,
        name: `Tools ${kind} renamed`,
        color: '#112233',
      });
      expect(r.data).toMatchObject({ name: `Tools ${kind} renamed`, color: '#112233' });
      await ok(c, 'update_project', { projectKey: KEY, description: null });
      expect((await owner.get(P)).json()).toMatchObject({ name: `Tools ${kind} renamed`, description: null });
      expect(await fails(c, 'update_project', { projectKey: KEY })).toMatch(/^Nothing to update/);
    });

    it('list_projects says how many there are and whether the list was cut', async () => {
      await ok(c, 'create_project', { name: `Zz extra ${kind}`, projectKey: `${KEY}X` });
      const all = await ok(c, 'list_projects');
      expect(all.data.total).toBeGreaterThanOrEqual(2);
      expect(all.data.truncated).toBe(false);
      expect(all.data.projects.map((p: { key: string }) => p.key)).toContain(KEY);
      const cut = await ok(c, 'list_projects', { limit: 1 });
      expect(cut.data.projects).toHaveLength(1);
      expect(cut.data).toMatchObject({ total: all.data.total, truncated: true });
      expect(cut.text).toMatch(new RegExp(`^Projects 1-1 of ${all.data.total}, by name:`));
    });

    it('delete_project needs confirm: true, then removes the project', async () => {
      const refused = await fails(c, 'delete_project', { projectKey: `${KEY}X`, confirm: false });
      expect(refused).toMatch(/confirm: true/);
      expect((await owner.get(`${P}X`)).statusCode).toBe(200);
      const r = await ok(c, 'delete_project', { projectKey: `${KEY.toLowerCase()}x`, confirm: true });
      expect(r.text).toBe(`Deleted project ${KEY}X: Zz extra ${kind}`);
      expect((await owner.get(`${P}X`)).statusCode).toBe(404);
    });
  });

  describe('members and users', () => {
    it('list_users lists active users with the total, default limit 50', async () => {
      const r = await ok(c, 'list_users');
      expect(r.data.users.map((u: { username: string }) => u.username)).toContain(marta.username);
      expect(r.data.truncated).toBe(false);
      const cut = await ok(c, 'list_users', { limit: 1 });
      expect(cut.data).toMatchObject({ total: r.data.total, truncated: true });
    });

    it('add_member finds a user by partial display name, default role member', async () => {
      const r = await ok(c, 'add_member', { projectKey: KEY, userName: `marta ${kind}` });
      expect(r.data).toEqual({
        username: marta.username,
        name: `Marta ${kind} Member`,
        role: 'member',
        id: marta.userId,
      });
      const members = (await owner.get(`${P}/members`)).json();
      expect(members.find((m: { userId: string }) => m.userId === marta.userId).role).toBe('member');
    });

    it('change_member_role takes role names in any case', async () => {
      const r = await ok(c, 'change_member_role', {
        projectKey: KEY,
        userName: marta.username,
        role: 'ADMIN',
      });
      expect(r.data.role).toBe('admin');
      expect(r.text).toBe(`${marta.username} (Marta ${kind} Member) is now admin of ${KEY}`);
      const members = (await owner.get(`${P}/members`)).json();
      expect(members.find((m: { userId: string }) => m.userId === marta.userId).role).toBe('admin');
      expect(
        await fails(c, 'change_member_role', { projectKey: KEY, userName: marta.username, role: 'boss' }),
      ).toBe('Validation failed: role: Must be owner, admin or member');
    });

    it('remove_member removes the member; list_members lists the rest', async () => {
      await ok(c, 'remove_member', { projectKey: KEY, userName: `Marta ${kind}` });
      const list = await ok(c, 'list_members', { projectKey: KEY });
      expect(list.text).toBe(`1 member, owner, admins, members:\n${owner.username} (Olivia Owner): owner`);
      expect(list.data.members.map((m: { username: string }) => m.username)).toEqual([owner.username]);
      await ok(c, 'add_member', { projectKey: KEY, userName: marta.username, role: 'Member' });
      expect((await owner.get(`${P}/members`)).json()).toHaveLength(2);
    });

    it('lists the candidates when a user name is ambiguous, and an exact name wins', async () => {
      const stem = unique(`amb${kind}`);
      await signUp(t.app, { username: `${stem}_one` });
      await signUp(t.app, { username: `${stem}_two` });
      await signUp(t.app, { username: stem });
      const text = await fails(c, 'add_member', { projectKey: KEY, userName: `${stem}_` });
      expect(text).toBe(
        `Several users match "${stem}_": ${stem}_one, ${stem}_two. Use a longer or exact name.`,
      );
      const exact = await ok(c, 'add_member', { projectKey: KEY, userName: stem.toUpperCase() });
      expect(exact.data.username).toBe(stem);
      await ok(c, 'remove_member', { projectKey: KEY, userName: stem });
    });
  });

  describe('labels', () => {
    it('create_label, list_labels, update_label and delete_label', async () => {
      const r = await ok(c, 'create_label', { projectKey: KEY, name: 'frontend', color: '#ff0000' });
      expect(r.data).toMatchObject({ name: 'frontend', color: '#FF0000' });
      await ok(c, 'create_label', { projectKey: KEY, name: 'backend' });
      await ok(c, 'create_label', { projectKey: KEY, name: 'obsolete' });
      const upd = await ok(c, 'update_label', {
        projectKey: KEY,
        labelName: 'FRONT',
        name: 'ui',
        color: '#00ff00',
      });
      expect(upd.data).toMatchObject({ name: 'ui', color: '#00FF00' });
      expect(await fails(c, 'update_label', { projectKey: KEY, labelName: 'ui' })).toBe(
        'Nothing to update: give name or color.',
      );
      await ok(c, 'delete_label', { projectKey: KEY, labelName: 'obsol' });
      const list = await ok(c, 'list_labels', { projectKey: KEY });
      expect(list.data.labels.map((l: { name: string }) => l.name)).toEqual(['backend', 'ui']);
      expect((await owner.get(`${P}/labels`)).json().map((l: { name: string }) => l.name)).toEqual([
        'backend',
        'ui',
      ]);
      expect(await fails(c, 'create_label', { projectKey: KEY, name: 'x', color: 'red' })).toMatch(
        /^Validation failed: color: /,
      );
    });
  });

  describe('columns', () => {
    it('create_column at a 1-based position, rename_column and reorder_column', async () => {
      const r = await ok(c, 'create_column', { projectKey: KEY, name: 'Review', position: 3 });
      expect(r.data).toMatchObject({ position: 3, name: 'Review' });
      await ok(c, 'create_column', { projectKey: KEY, name: 'Parked' });
      await ok(c, 'rename_column', { projectKey: KEY, columnName: 'review', newName: 'Code review' });
      const moved = await ok(c, 'reorder_column', { projectKey: KEY, columnName: 'parked', position: 1 });
      expect(moved.data.position).toBe(1);
      const cols = (await owner.get(`${P}/columns`)).json();
      expect(cols.map((x: { name: string; order: number }) => [x.order, x.name])).toEqual([
        [0, 'Parked'],
        [1, 'To Do'],
        [2, 'In Progress'],
        [3, 'Code review'],
        [4, 'Done'],
      ]);
      const list = await ok(c, 'list_columns', { projectKey: KEY });
      expect(list.data.columns.map((x: { position: number }) => x.position)).toEqual([1, 2, 3, 4, 5]);
    });

    it('lists the candidates when a column name is ambiguous', async () => {
      expect(await fails(c, 'rename_column', { projectKey: KEY, columnName: 'o', newName: 'x' })).toBe(
        'Several columns match "o": To Do, In Progress, Code review, Done. Use a longer or exact name.',
      );
      expect(
        await fails(c, 'rename_column', { projectKey: KEY, columnName: 'nothing', newName: 'x' }),
      ).toMatch(/^Column not found: nothing \(known: Parked, To Do/);
    });
  });

  describe('tickets', () => {
    it('create_ticket defaults to a medium task in the first column', async () => {
      const r = await ok(c, 'create_ticket', { projectKey: KEY.toLowerCase(), title: 'Plain ticket' });
      expect(r.text).toBe(`Created ${KEY}-1: Plain ticket`);
      expect(r.data).toMatchObject({ key: `${KEY}-1`, type: 'task', priority: 'medium', column: 'Parked' });
      const http = (await owner.get(`${P}/tickets/${KEY}-1`)).json();
      expect(http).toMatchObject({ type: 'Task', priority: 'Medium', column: { name: 'Parked' } });
      await expect
        .poll(() =>
          events.some((e) => e.type === 'ticket.created' && (e.data as { key: string }).key === `${KEY}-1`),
        )
        .toBe(true);
    });

    it('create_ticket resolves every name and sets every field', async () => {
      const r = await ok(c, 'create_ticket', {
        projectKey: KEY,
        title: 'Full ticket',
        type: 'bug',
        priority: 'critical',
        description: 'It **breaks**',
        column: 'progr',
        assignee: `marta ${kind}`,
        storyPoints: 5,
        labels: ['ui', 'BACKEND'],
        parent: `${KEY.toLowerCase()}-1`,
        estimate: '2h',
        startDate: '2026-01-05',
        dueDate: '2026-01-09',
        environment: 'Production',
        affectedVersion: '1.2',
        fixVersion: '1.3',
      });
      expect(r.data).toMatchObject({
        key: `${KEY}-2`,
        type: 'bug',
        priority: 'critical',
        column: 'In Progress',
        assignee: marta.username,
        assigneeName: `Marta ${kind} Member`,
        storyPoints: 5,
        parent: `${KEY}-1`,
        estimate: '2h',
        dueDate: '2026-01-09',
      });
      expect([...r.data.labels].sort()).toEqual(['backend', 'ui']);
      const http = (await owner.get(`${P}/tickets/${KEY}-2`)).json();
      expect(http).toMatchObject({
        type: 'Bug',
        priority: 'Critical',
        description: 'It **breaks**',
        assigneeId: marta.userId,
        storyPoints: 5,
        estimate: '2h',
        startDate: '2026-01-05',
        dueDate: '2026-01-09',
        environment: 'Production',
        affectedVersion: '1.2',
        fixVersion: '1.3',
        column: { name: 'In Progress' },
      });
      expect(http.parentId).toBe((await owner.get(`${P}/tickets/${KEY}-1`)).json().id);
      expect(http.labels.map((l: { name: string }) => l.name).sort()).toEqual(['backend', 'ui']);
    });

    it('reports HTTP validation errors in words, naming the tool parameter', async () => {
      expect(await fails(c, 'create_ticket', { projectKey: KEY, title: 'Bad', storyPoints: 4 })).toBe(
        'Validation failed: storyPoints: Must be one of 1, 2, 3, 5, 8, 13, 21',
      );
      expect(await fails(c, 'create_ticket', { projectKey: KEY, title: '   ' })).toBe(
        'Validation failed: title: Must not be blank',
      );
      expect(
        await fails(c, 'create_ticket', { projectKey: KEY, title: 'Bad date', dueDate: '09/01/2026' }),
      ).toBe(
        'Invalid arguments for create_ticket: dueDate: must be a real calendar date in the form YYYY-MM-DD',
      );
      expect(
        await fails(c, 'create_ticket', { projectKey: KEY, title: 'Bad type', type: 'feature' }),
      ).toMatch(/type/);
      expect(await fails(c, 'create_project', { name: 'Bad key', projectKey: 'x' })).toBe(
        'Validation failed: projectKey: Must be 2-10 letters or digits',
      );
    });

    it('get_ticket reads a ticket by key in any case, with its links and counts', async () => {
      const one = (await owner.get(`${P}/tickets/${KEY}-1`)).json();
      const link = await owner.post(`${P}/tickets/${KEY}-2/links`, {
        targetTicketId: one.id,
        linkType: 'blocks',
      });
      expect(link.statusCode).toBe(201);
      expect((await owner.post(`${P}/tickets/${KEY}-2/comments`, { content: 'Seen' })).statusCode).toBe(201);
      const r = await ok(c, 'get_ticket', { ticketKey: `${KEY.toLowerCase()}-2` });
      expect(r.text.split('\n')[0]).toBe(`${KEY}-2: Full ticket`);
      expect(r.text).toContain('type bug · priority critical · column In Progress');
      expect(r.text).toContain(`links: blocks ${KEY}-1 Plain ticket`);
      expect(r.data).toMatchObject({
        key: `${KEY}-2`,
        environment: 'Production',
        fixVersion: '1.3',
        reporter: owner.username,
        reporterName: 'Olivia Owner',
        links: [{ id: link.json().id, linkType: 'blocks', key: `${KEY}-1`, title: 'Plain ticket' }],
        commentCount: 1,
        attachmentCount: 0,
      });
      const back = await ok(c, 'get_ticket', { ticketKey: `${KEY}-1` });
      expect(back.data.links).toEqual([
        { id: link.json().id, linkType: 'is_blocked_by', key: `${KEY}-2`, title: 'Full ticket' },
      ]);
    });

    it('update_ticket changes fields, replaces labels, and null clears', async () => {
      const r = await ok(c, 'update_ticket', {
        ticketKey: `${KEY}-2`,
        title: 'Full ticket, edited',
        priority: 'low',
        type: 'story',
        labels: ['ui'],
        assignee: null,
        storyPoints: null,
        parent: null,
        description: null,
        fixVersion: null,
      });
      expect(r.text).toMatch(new RegExp(`^Updated ${KEY}-2 \\(`));
      expect(r.data).toMatchObject({
        title: 'Full ticket, edited',
        priority: 'low',
        type: 'story',
        labels: ['ui'],
        assignee: null,
        storyPoints: null,
        parent: null,
        description: null,
        fixVersion: null,
      });
      const http = (await owner.get(`${P}/tickets/${KEY}-2`)).json();
      expect(http).toMatchObject({
        title: 'Full ticket, edited',
        priority: 'Low',
        type: 'Story',
        assigneeId: null,
        storyPoints: null,
        parentId: null,
        description: null,
        fixVersion: null,
        environment: 'Production',
      });
      expect(http.labels.map((l: { name: string }) => l.name)).toEqual(['ui']);
      expect(await fails(c, 'update_ticket', { ticketKey: `${KEY}-2` })).toMatch(/^Nothing to update/);
    });

    it('add_label_to_ticket and remove_label_from_ticket keep the other labels', async () => {
      const add = await ok(c, 'add_label_to_ticket', { ticketKey: `${KEY}-2`, labelName: 'back' });
      expect(add.data).toEqual({ key: `${KEY}-2`, labels: ['ui', 'backend'], changed: true });
      const again = await ok(c, 'add_label_to_ticket', { ticketKey: `${KEY}-2`, labelName: 'backend' });
      expect(again.data.changed).toBe(false);
      await ok(c, 'remove_label_from_ticket', { ticketKey: `${KEY}-2`, labelName: 'UI' });
      const http = (await owner.get(`${P}/tickets/${KEY}-2`)).json();
      expect(http.labels.map((l: { name: string }) => l.name)).toEqual(['backend']);
    });

    it('move_ticket puts the ticket at the end of the target column', async () => {
      await ok(c, 'create_ticket', { projectKey: KEY, title: 'Third', column: 'To Do' });
      await ok(c, 'create_ticket', { projectKey: KEY, title: 'Fourth', column: 'To Do' });
      const r = await ok(c, 'move_ticket', { ticketKey: `${KEY}-1`, column: 'to do' });
      expect(r.text).toBe(`Moved ${KEY}-1 to To Do`);
      const todo = (await owner.get(`${P}/columns`)).json().find((x: { name: string }) => x.name === 'To Do');
      const inTodo = (await owner.get(`${P}/tickets?columnId=${todo.id}`)).json();
      expect(inTodo.map((x: { key: string; order: number }) => [x.key, x.order])).toEqual([
        [`${KEY}-3`, 0],
        [`${KEY}-4`, 1],
        [`${KEY}-1`, 2],
      ]);
      await expect
        .poll(() =>
          events.some((e) => e.type === 'ticket.moved' && (e.data as { id: string }).id === r.data.id),
        )
        .toBe(true);
      // Moving to the column it is in keeps it at the end.
      await ok(c, 'move_ticket', { ticketKey: `${KEY}-3`, column: 'To Do' });
      const again = (await owner.get(`${P}/tickets?columnId=${todo.id}`)).json();
      expect(again.map((x: { key: string }) => x.key)).toEqual([`${KEY}-4`, `${KEY}-1`, `${KEY}-3`]);
      expect(await fails(c, 'move_ticket', { ticketKey: `${KEY}-3` })).toBe('Give column, sprint, or both.');
    });

    it('list_tickets filters by names, type and priority, and says when the list is cut', async () => {
      const all = await ok(c, 'list_tickets', { projectKey: KEY });
      expect(all.data).toMatchObject({ total: 4, truncated: false });
      const todo = await ok(c, 'list_tickets', { projectKey: KEY, column: 'to do' });
      expect(todo.data.tickets.map((x: { key: string }) => x.key)).toEqual([
        `${KEY}-4`,
        `${KEY}-1`,
        `${KEY}-3`,
      ]);
      const stories = await ok(c, 'list_tickets', { projectKey: KEY, type: 'story', priority: 'low' });
      expect(stories.data.tickets.map((x: { key: string }) => x.key)).toEqual([`${KEY}-2`]);
      await ok(c, 'update_ticket', { ticketKey: `${KEY}-4`, assignee: marta.username });
      const mine = await ok(c, 'list_tickets', { projectKey: KEY, assignee: `Marta ${kind}` });
      expect(mine.data.tickets).toEqual([
        expect.objectContaining({
          key: `${KEY}-4`,
          assignee: marta.username,
          assigneeName: `Marta ${kind} Member`,
        }),
      ]);
      const cut = await ok(c, 'list_tickets', { projectKey: KEY, limit: 2 });
      expect(cut.data).toMatchObject({ total: 4, truncated: true });
      expect(cut.data.tickets).toHaveLength(2);
      expect(cut.text.split('\n')[0]).toBe('Tickets 1-2 of 4, in board order (column, then position):');
      const found = await ok(c, 'list_tickets', { projectKey: KEY, search: 'EDITED' });
      expect(found.data.tickets.map((x: { key: string }) => x.key)).toEqual([`${KEY}-2`]);
      const everywhere = await ok(c, 'list_tickets', { column: 'code review' });
      expect(everywhere.data.total).toBe(0);
    });

    it('delete_ticket deletes into the trash', async () => {
      await ok(c, 'create_ticket', { projectKey: KEY, title: 'Doomed' });
      const r = await ok(c, 'delete_ticket', { ticketKey: `${KEY}-5` });
      expect(r.text).toBe(`Deleted ${KEY}-5: Doomed`);
      expect((await owner.get(`${P}/tickets/${KEY}-5`)).statusCode).toBe(404);
      expect(await fails(c, 'get_ticket', { ticketKey: `${KEY}-5` })).toBe(`Ticket not found: ${KEY}-5`);
      const trash = (await owner.get(`${P}/trash?ticket=${KEY}-5`)).json();
      expect(trash.items.map((x: { title: string }) => x.title)).toEqual(['Doomed']);
    });

    it('delete_column moves its tickets to the named column', async () => {
      await ok(c, 'create_ticket', { projectKey: KEY, title: 'Parked one', column: 'Parked' });
      const r = await ok(c, 'delete_column', {
        projectKey: KEY,
        columnName: 'parked',
        moveTicketsTo: 'done',
      });
      expect(r.data).toMatchObject({ name: 'Parked', movedTo: 'Done' });
      expect((await owner.get(`${P}/tickets/${KEY}-6`)).json().column.name).toBe('Done');
      expect((await owner.get(`${P}/columns`)).json().map((x: { name: string }) => x.name)).toEqual([
        'To Do',
        'In Progress',
        'Code review',
        'Done',
      ]);
    });
  });

  describe('sprints', () => {
    it('create_sprint, list_sprints, get_sprint and update_sprint (null clears)', async () => {
      const r = await ok(c, 'create_sprint', {
        projectKey: KEY,
        name: 'Sprint 1',
        goal: 'Ship it',
        startDate: '2026-02-02',
        endDate: '2026-02-13',
        budget: 20,
      });
      expect(r.data).toMatchObject({ name: 'Sprint 1', status: 'planning', goal: 'Ship it', budget: 20 });
      const http = (await owner.get(`${P}/sprints/${r.data.id}`)).json();
      expect(http).toMatchObject({ name: 'Sprint 1', budget: 20, status: 'planning' });
      await ok(c, 'create_sprint', { projectKey: KEY, name: 'Sprint 10' });
      await ok(c, 'move_ticket', { ticketKey: `${KEY}-2`, sprint: 'sprint 1' });
      await ok(c, 'update_ticket', { ticketKey: `${KEY}-3`, sprint: 'Sprint 1', storyPoints: 3 });
      const got = await ok(c, 'get_sprint', { projectKey: KEY, sprintName: 'Sprint 1' });
      expect(got.data.tickets.map((x: { key: string }) => x.key).sort()).toEqual([`${KEY}-2`, `${KEY}-3`]);
      expect(got.data).toMatchObject({ ticketCount: 2, storyPoints: 3, budget: 20 });
      const upd = await ok(c, 'update_sprint', {
        projectKey: KEY,
        sprintName: 'Sprint 1',
        goal: null,
        budget: 13,
      });
      expect(upd.data).toMatchObject({ goal: null, budget: 13 });
      expect((await owner.get(`${P}/sprints/${r.data.id}`)).json()).toMatchObject({ goal: null, budget: 13 });
      const planning = await ok(c, 'list_sprints', { projectKey: KEY, status: 'planning' });
      expect(planning.data.sprints.map((s: { name: string }) => s.name)).toEqual(['Sprint 1', 'Sprint 10']);
      expect(await fails(c, 'get_sprint', { projectKey: KEY, sprintName: 'sprint' })).toBe(
        'Several sprints match "sprint": Sprint 1, Sprint 10. Use a longer or exact name.',
      );
      const filtered = await ok(c, 'list_tickets', { projectKey: KEY, sprint: 'Sprint 1' });
      expect(filtered.data.total).toBe(2);
      const everything = await ok(c, 'list_tickets', { projectKey: KEY });
      const byKey = Object.fromEntries(everything.data.tickets.map((x: { key: string }) => [x.key, x]));
      expect(byKey[`${KEY}-2`]).toMatchObject({ sprint: 'Sprint 1', column: 'In Progress', type: 'story' });
      expect(byKey[`${KEY}-4`]).toMatchObject({ sprint: null, assignee: marta.username });
      const backlog = await ok(c, 'list_tickets', { projectKey: KEY, sprint: 'backlog' });
      expect(backlog.data.tickets.map((x: { key: string }) => x.key)).not.toContain(`${KEY}-2`);
    });

    it('start_sprint starts a planning sprint', async () => {
      const r = await ok(c, 'start_sprint', {
        projectKey: KEY,
        sprintName: 'sprint 1',
        startDate: '2026-02-02',
        endDate: '2026-02-13',
      });
      expect(r.data).toMatchObject({ status: 'active', startDate: '2026-02-02', endDate: '2026-02-13' });
      expect((await owner.get(`${P}/sprints/active`)).json()).toMatchObject({
        name: 'Sprint 1',
        status: 'active',
      });
      expect(await fails(c, 'start_sprint', { projectKey: KEY, sprintName: 'Sprint 10' })).toBe(
        'Another sprint is already active',
      );
    });

    it("complete_sprint with moveIncompleteTo 'next' carries incomplete tickets to the earliest planning sprint", async () => {
      await ok(c, 'move_ticket', { ticketKey: `${KEY}-3`, column: 'Done' });
      const r = await ok(c, 'complete_sprint', {
        projectKey: KEY,
        sprintName: 'Sprint 1',
        moveIncompleteTo: 'next',
      });
      expect(r.data).toMatchObject({
        status: 'completed',
        movedTo: 'Sprint 10',
        completedTicketCount: 1,
        incompleteTicketCount: 1,
      });
      const t2 = (await owner.get(`${P}/tickets/${KEY}-2`)).json();
      expect(t2.sprint.name).toBe('Sprint 10');
      expect(t2.isCarriedOver).toBe(true);
      expect(await fails(c, 'update_ticket', { ticketKey: `${KEY}-3`, sprint: 'sprint 1' })).toBe(
        'Sprint 1 is completed: tickets can join planning or active sprints only (open: Sprint 10)',
      );
    });

    it("complete_sprint with 'next' and no planning sprint creates the next one; default is the backlog", async () => {
      await ok(c, 'start_sprint', { projectKey: KEY, sprintName: 'Sprint 10' });
      const r = await ok(c, 'complete_sprint', {
        projectKey: KEY,
        sprintName: 'Sprint 10',
        moveIncompleteTo: 'next',
      });
      expect(r.data.movedTo).toBe('Sprint 11');
      expect(r.text).toMatch(/1 incomplete moved to Sprint 11 \(new sprint\)$/);
      expect((await owner.get(`${P}/tickets/${KEY}-2`)).json().sprint.name).toBe('Sprint 11');
      await ok(c, 'start_sprint', { projectKey: KEY, sprintName: 'Sprint 11' });
      const back = await ok(c, 'complete_sprint', { projectKey: KEY, sprintName: 'Sprint 11' });
      expect(back.data.movedTo).toBe('backlog');
      expect((await owner.get(`${P}/tickets/${KEY}-2`)).json().sprintId).toBeNull();
      expect(await fails(c, 'complete_sprint', { projectKey: KEY, sprintName: 'Sprint 11' })).toMatch(
        /^Sprint is not active/,
      );
    });

    it('delete_sprint needs confirm: true and sends its tickets to the backlog', async () => {
      await ok(c, 'create_sprint', { projectKey: KEY, name: 'Doomed sprint' });
      await ok(c, 'move_ticket', { ticketKey: `${KEY}-4`, sprint: 'doomed' });
      expect(
        await fails(c, 'delete_sprint', { projectKey: KEY, sprintName: 'doomed', confirm: false }),
      ).toMatch(/confirm: true/);
      const r = await ok(c, 'delete_sprint', { projectKey: KEY, sprintName: 'doomed', confirm: true });
      expect(r.data).toEqual({ name: 'Doomed sprint', deleted: true });
      expect((await owner.get(`${P}/tickets/${KEY}-4`)).json().sprintId).toBeNull();
      const names = (await owner.get(`${P}/sprints`)).json().map((s: { name: string }) => s.name);
      expect(names).not.toContain('Doomed sprint');
    });

    it("complete_sprint with 'next' creates no sprint when nothing is incomplete", async () => {
      await ok(c, 'create_sprint', { projectKey: KEY, name: 'Empty run' });
      await ok(c, 'start_sprint', { projectKey: KEY, sprintName: 'Empty run' });
      const r = await ok(c, 'complete_sprint', {
        projectKey: KEY,
        sprintName: 'Empty run',
        moveIncompleteTo: 'next',
      });
      expect(r.data).toMatchObject({ status: 'completed', incompleteTicketCount: 0, movedTo: null });
      const sprints = (await owner.get(`${P}/sprints`)).json();
      expect(sprints.filter((x: { status: string }) => x.status !== 'completed')).toEqual([]);
    });

    it('move_ticket with sprint null sends the ticket to the backlog', async () => {
      await ok(c, 'create_sprint', { projectKey: KEY, name: 'Later' });
      await ok(c, 'move_ticket', { ticketKey: `${KEY}-1`, sprint: 'Later' });
      expect((await owner.get(`${P}/tickets/${KEY}-1`)).json().sprint.name).toBe('Later');
      const r = await ok(c, 'move_ticket', { ticketKey: `${KEY}-1`, sprint: null });
      expect(r.text).toBe(`Moved ${KEY}-1 to the backlog`);
      expect((await owner.get(`${P}/tickets/${KEY}-1`)).json().sprintId).toBeNull();
    });
  });

  describe('errors', () => {
    it('names the unknown project and ticket', async () => {
      expect(await fails(c, 'get_project', { projectKey: 'nope' })).toBe('Project not found: NOPE');
      expect(await fails(c, 'list_labels', { projectKey: 'nope' })).toBe('Project not found: NOPE');
      expect(await fails(c, 'create_ticket', { projectKey: 'nope', title: 'x' })).toBe(
        'Project not found: NOPE',
      );
      expect(await fails(c, 'get_ticket', { ticketKey: `${KEY.toLowerCase()}-99` })).toBe(
        `Ticket not found: ${KEY}-99`,
      );
      expect(await fails(c, 'get_ticket', { ticketKey: 'not a key' })).toBe(
        'Invalid ticket key "not a key": use the form PROJ-12',
      );
    });

    it('does not reveal projects the user is not a member of', async () => {
      const stranger = await signUp(t.app);
      const key = kind === 'http' ? 'HIDDENH' : 'HIDDENS';
      expect((await stranger.post('/api/projects', { name: 'Hidden', key })).statusCode).toBe(201);
      expect(await fails(c, 'get_project', { projectKey: key })).toBe(`Project not found: ${key}`);
    });

    it('reports permission failures in the API’s words', async () => {
      const martaKey = (await marta.post('/api/me/mcp-key')).json().apiKey;
      const asMarta = await connect(kind, baseUrl, martaKey);
      try {
        await ok(c, 'change_member_role', { projectKey: KEY, userName: marta.username, role: 'member' });
        expect(await fails(asMarta, 'create_column', { projectKey: KEY, name: 'Nope' })).toMatch(
          /^Forbidden/,
        );
        expect(await fails(asMarta, 'delete_project', { projectKey: KEY, confirm: true })).toMatch(
          /^Forbidden/,
        );
        const mine = await ok(asMarta, 'create_ticket', { projectKey: KEY, title: 'By Marta' });
        expect((await owner.get(`${P}/tickets/${mine.data.key}`)).json().reporter.id).toBe(marta.userId);
      } finally {
        await asMarta.close();
      }
    });

    it('rejects arguments that do not match the input schema, in words', async () => {
      expect(await fails(c, 'list_tickets', { projectKey: KEY, limit: 0 })).toBe(
        'Invalid arguments for list_tickets: limit: must be at least 1',
      );
      expect(await fails(c, 'create_ticket', { projectKey: KEY, priority: 'urgent', labels: 'ui' })).toBe(
        'Invalid arguments for create_ticket: title: required; priority: must be one of lowest, low, medium, high, highest, critical; labels: must be a list',
      );
      expect(await fails(c, 'list_users', { limit: 2.5 })).toBe(
        'Invalid arguments for list_users: limit: must be a whole number',
      );
    });

    it('names an unknown parameter instead of ignoring it', async () => {
      const text = await fails(c, 'update_ticket', { ticketKey: `${KEY}-1`, column: 'Done' });
      expect(text).toMatch(
        /^Invalid arguments for update_ticket: unknown parameter column \(parameters: ticketKey, title, /,
      );
      expect((await owner.get(`${P}/tickets/${KEY}-1`)).json().column.name).not.toBe('Done');
    });
  });
});
