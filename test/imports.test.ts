import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requestCtx } from '../src/domain/context.js';
import { importTickets } from '../src/domain/imports/run.js';
import { createTestApp, type TestApp } from './helpers/app.js';
import {
  addMember,
  columnsOf,
  expectDerivedKept,
  makeProject,
  makeTicket,
  type ProjectOut,
} from './helpers/board.js';
import { type Client, signUp } from './helpers/factories.js';
import { multipartBody } from './helpers/files.js';

const fixtures = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures', 'imports');
const fixture = (name: string) => fs.readFileSync(path.join(fixtures, name));

let t: TestApp;
let owner: Client;
let alice: Client;
let member: Client;
let outsider: Client;

function sendImport(
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

async function tickets(c: Client, projectId: string) {
  const res = await c.get(`/api/projects/${projectId}/tickets`);
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as Record<string, any>[];
}

async function full(c: Client, projectId: string, ticketId: string) {
  const res = await c.get(`/api/projects/${projectId}/tickets/${ticketId}`);
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
}

async function commentsOf(c: Client, projectId: string, ticketId: string) {
  const res = await c.get(`/api/projects/${projectId}/tickets/${ticketId}/comments`);
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as { content: string; author: { id: string | null; name: string }; createdAt: string }[];
}

const byTitle = (list: Record<string, any>[], title: string) => {
  const found = list.find((x) => x.title === title);
  if (!found) throw new Error(`no ticket titled ${title}`);
  return found;
};

beforeAll(async () => {
  t = await createTestApp();
  owner = await signUp(t.app);
  alice = await signUp(t.app, { username: 'alice', email: 'alice@example.com', name: 'Alice A' });
  member = await signUp(t.app);
  outsider = await signUp(t.app);
});
afterAll(async () => t.close());

describe('Jira CSV', () => {
  let project: ProjectOut;
  beforeAll(async () => {
    project = await makeProject(owner);
    await addMember(owner, project.id, alice);
    await addMember(owner, project.id, member);
  });

  it('a dry run reports counts, problems and the mapping defaults, and writes nothing', async () => {
    const res = await sendImport(owner, project.id, fixture('jira.csv'), {
      format: 'jira-csv',
      dryRun: 'true',
    });
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    expect(body.dryRun).toBe(true);
    expect(body.counts).toEqual({ tickets: 4, comments: 2, labels: 3, columns: 1, links: 2 });
    expect(body.skipped).toBe(0);
    expect(body.problems).toEqual([
      { row: 4, line: 9, message: 'No Summary' },
      { row: 5, line: 10, message: 'The parent SHOP-99 is not in this import: imported without a parent' },
    ]);
    expect(body.found.statuses).toEqual(
      expect.arrayContaining([
        { source: 'In Review', column: 'In Review', create: true },
        { source: 'Done', column: 'Done', create: false },
      ]),
    );
    expect(body.found.people).toEqual(
      expect.arrayContaining([
        { source: 'alice', username: 'alice' },
        { source: 'Mallory Unknown', username: null },
      ]),
    );
    expect(body.found.priorities).toEqual(
      expect.arrayContaining([{ source: 'Blocker', priority: 'Critical' }]),
    );
    expect(await tickets(owner, project.id)).toEqual([]);
    expect((await columnsOf(owner, project.id)).map((c) => c.name)).toEqual(['To Do', 'In Progress', 'Done']);
  });

  it('imports tickets with their keys, dates, people, labels, sprints, comments, parents and links', async () => {
    const res = await sendImport(owner, project.id, fixture('jira.csv'), {
      format: 'jira-csv',
      mapping: JSON.stringify({ baseUrl: 'https://shop.atlassian.net' }),
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().counts).toEqual({ tickets: 4, comments: 2, labels: 3, columns: 1, links: 2 });
    const list = await tickets(owner, project.id);
    expect(list).toHaveLength(4);
    await expectDerivedKept(t.app.services.db);
    const epic = byTitle(list, 'Checkout epic');
    const bug = await full(owner, project.id, byTitle(list, 'Card form rejects Amex').id);
    const sub = byTitle(list, 'Validate card on blur');
    const noStatus = byTitle(list, 'Status is missing');
    expect(epic.type).toBe('Epic');
    expect(epic.createdAt).toBe('2024-02-08T10:42:00.000Z');
    expect(epic.updatedAt).toBe('2024-02-09T13:05:00.000Z');
    expect(bug.type).toBe('Bug');
    expect(bug.priority).toBe('Critical');
    expect(bug.column.name).toBe('In Review');
    expect(bug.storyPoints).toBe(5);
    expect(bug.dueDate).toBe('2024-03-01');
    expect(bug.sprint.name).toBe('Sprint 2');
    expect(bug.labels.map((l: { name: string }) => l.name).sort()).toEqual([
      'bug, urgent',
      'frontend',
      'payments',
    ]);
    expect(bug.assignee).toBeNull();
    expect(bug.reporter.id).toBe(alice.userId);
    expect(bug.parentId).toBe(epic.id);
    expect(bug.description).toContain('2. type an Amex number, "3782"\n\nExpected: accepted');
    expect(bug.description).toContain(
      'Imported from Jira: SHOP-2 — https://shop.atlassian.net/browse/SHOP-2',
    );
    expect(bug.description).toContain('Assignee in Jira: Mallory Unknown');
    // Attachments stay in Jira: a link each, in either form of the cell.
    expect(bug.description).toContain(
      'Attachment in Jira: [a.png](<https://example.atlassian.net/secure/attachment/1/a.png>)',
    );
    expect(bug.description).toContain(
      'Attachment in Jira: [trace \\[1\\].txt](<https://example.atlassian.net/secure/attachment/2/trace.txt>)',
    );
    expect(bug.links.map((l: any) => [l.linkType, l.ticket.id]).sort()).toEqual(
      [
        ['blocks', sub.id],
        ['relates_to', epic.id],
      ].sort(),
    );
    expect(sub.type).toBe('Subtask');
    expect(sub.parentId).toBe(bug.id);
    expect(sub.assigneeId).toBe(alice.userId);
    expect(noStatus.columnId).toBe((await columnsOf(owner, project.id))[0].id);
    expect(noStatus.priority).toBe('Lowest');
    const comments = await commentsOf(owner, project.id, bug.id);
    expect(comments).toHaveLength(2);
    expect(comments[0]).toMatchObject({
      content: 'Confirmed; happens on Safari too',
      createdAt: '2024-02-10T09:15:00.000Z',
    });
    expect(comments[0].author.id).toBe(alice.userId);
    // Nobody here is Zed Stranger: the comment is shown by the name Jira gave its author.
    expect(comments[1].content).toBe('Same for me, with a "quoted" word');
    expect(comments[1].author).toEqual({ id: null, name: 'Zed Stranger', avatar: null });
  });

  it('running the same import again creates no duplicates', async () => {
    const res = await sendImport(owner, project.id, fixture('jira.csv'), { format: 'jira-csv' });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({
      counts: { tickets: 0, comments: 0, labels: 0, columns: 0, links: 0 },
      skipped: 4,
    });
    expect(await tickets(owner, project.id)).toHaveLength(4);
  });

  it('a status mapping sends statuses to chosen columns; without column creation, unknown ones go to the first', async () => {
    const p = await makeProject(owner);
    const res = await sendImport(owner, p.id, fixture('jira.csv'), {
      format: 'jira-csv',
      mapping: JSON.stringify({
        statuses: { 'in review': 'In Progress' },
        createColumns: false,
        priorities: { Blocker: 'Low' },
        labels: { frontend: null },
        people: { 'Mallory Unknown': alice.username },
      }),
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().counts.columns).toBe(0);
    expect(res.json().counts.labels).toBe(2);
    const bug = byTitle(await tickets(owner, p.id), 'Card form rejects Amex');
    const cols = await columnsOf(owner, p.id);
    expect(bug.columnId).toBe(cols.find((c) => c.name === 'In Progress')?.id);
    expect(bug.priority).toBe('Low');
    expect(bug.labels.map((l: { name: string }) => l.name).sort()).toEqual(['bug, urgent', 'payments']);
    // alice is not a member of this project: unassigned, the name kept.
    expect(bug.assigneeId).toBeNull();
    expect(bug.description).toContain('Assignee in Jira: Mallory Unknown (not a member of this project)');
  });

  it('only project admins and owners may import; bad input is a 400 that changes nothing', async () => {
    const data = fixture('jira.csv');
    expect((await sendImport(member, project.id, data, { format: 'jira-csv' })).statusCode).toBe(403);
    expect((await sendImport(outsider, project.id, data, { format: 'jira-csv' })).statusCode).toBe(404);
    const anon = await t.app.inject({
      method: 'POST',
      url: `/api/projects/${project.id}/imports`,
      ...multipartBody([{ filename: 'a.csv', contentType: 'text/csv', data }], { format: 'jira-csv' }),
    });
    expect(anon.statusCode).toBe(401);
    const p = await makeProject(owner);
    const bad = await sendImport(owner, p.id, data, { format: 'asana-csv' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({ error: 'Validation failed', details: [{ path: 'format' }] });
    const badMapping = await sendImport(owner, p.id, data, {
      format: 'jira-csv',
      mapping: '{"types": {"Bug": "Boog"}}',
    });
    expect(badMapping.statusCode).toBe(400);
    expect(
      (await sendImport(owner, p.id, data, { format: 'jira-csv', mapping: 'not json' })).statusCode,
    ).toBe(400);
    const noFile = await owner.req({
      method: 'POST',
      url: `/api/projects/${p.id}/imports`,
      ...multipartBody([], { format: 'jira-csv' }),
    });
    expect(noFile.statusCode).toBe(400);
    expect(noFile.json().error).toBe('No file provided');
    const notMultipart = await owner.post(`/api/projects/${p.id}/imports`, { format: 'jira-csv' });
    expect([400, 415]).toContain(notMultipart.statusCode);
    expect(await tickets(owner, p.id)).toEqual([]);
  });

  it('a file that is not well-formed CSV is refused with where reading stopped, and imports nothing', async () => {
    const p = await makeProject(owner);
    const res = await sendImport(owner, p.id, Buffer.from('Summary,Issue key\n"unterminated,SHOP-1\n'), {
      format: 'jira-csv',
    });
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json()).toMatchObject({
      error: 'The file is malformed: nothing was imported',
      problems: [{ line: 2, column: 1, row: 1 }],
    });
    expect(res.json().problems[0].message).toMatch(/^The quoted cell that opens here is never closed/);
    expect(await tickets(owner, p.id)).toEqual([]);
  });
});

describe('GitHub, Linear and Trello', () => {
  it('imports GitHub issues from gh and REST objects, with comments, leaving pull requests out', async () => {
    const p = await makeProject(owner);
    await addMember(owner, p.id, alice);
    const res = await sendImport(
      owner,
      p.id,
      fixture('github.json'),
      { format: 'github-json' },
      'issues.json',
    );
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    expect(body.counts).toMatchObject({ tickets: 2, comments: 2 });
    expect(body.problems).toEqual([
      { row: 3, line: 43, message: '#14 is a pull request, not an issue: left out' },
      { row: 4, line: 51, message: 'No number' },
    ]);
    const list = await tickets(owner, p.id);
    const crash = await full(owner, p.id, byTitle(list, 'Crash when the config file is empty').id);
    const docs = await full(owner, p.id, byTitle(list, 'Document the config file').id);
    expect(crash.column.name).toBe('To Do');
    expect(docs.column.name).toBe('Done');
    expect(crash.sprint.name).toBe('v1.2');
    expect(crash.reporter.id).toBe(alice.userId);
    expect(crash.assignee).toBeNull();
    expect(crash.description).toContain('Assignee in GitHub: ghost-user');
    expect(crash.description).toContain('#12 — https://github.com/acme/app/issues/12');
    expect(docs.description).toContain('https://github.com/acme/app/issues/13');
    expect(crash.createdAt).toBe('2024-04-02T08:00:00.000Z');
    expect(crash.labels.map((l: { name: string }) => l.name).sort()).toEqual(['bug', 'good first issue']);
    const comments = await commentsOf(owner, p.id, crash.id);
    expect(comments.map((c) => [c.author.name, c.content])).toEqual([
      ['Alice A', 'Also on Windows.'],
      ['outsider42', '+1'],
    ]);
  });

  it('imports a Linear CSV export: statuses, priorities, estimates, cycles and sub-issues', async () => {
    const p = await makeProject(owner);
    await addMember(owner, p.id, alice);
    const res = await sendImport(owner, p.id, fixture('linear.csv'), { format: 'linear-csv' });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().counts).toMatchObject({ tickets: 3, labels: 2, columns: 0 });
    const list = await tickets(owner, p.id);
    const cols = await columnsOf(owner, p.id);
    const rate = byTitle(list, 'Rate-limit the login endpoint');
    const retry = byTitle(list, 'Return Retry-After');
    const old = byTitle(list, 'Old idea');
    expect(rate.columnId).toBe(cols.find((c) => c.name === 'In Progress')?.id);
    expect(rate.priority).toBe('Highest');
    expect(rate.storyPoints).toBe(3);
    expect(rate.assigneeId).toBe(alice.userId);
    expect(rate.dueDate).toBe('2024-06-20');
    expect(retry.parentId).toBe(rate.id);
    expect(retry.type).toBe('Subtask');
    expect(retry.description).toContain('Reporter in Linear: bob.unknown@example.com');
    expect(old.columnId).toBe(cols.find((c) => c.name === 'Done')?.id);
    expect((await full(owner, p.id, rate.id)).sprint.name).toBe('Cycle 4');
  });

  it('imports a Trello board: lists as statuses, checklist items as subtasks, comments from actions', async () => {
    const p = await makeProject(owner);
    await addMember(owner, p.id, alice);
    const res = await sendImport(
      owner,
      p.id,
      fixture('trello.json'),
      { format: 'trello-json' },
      'board.json',
    );
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().counts).toMatchObject({ tickets: 4, comments: 1, columns: 1 });
    const list = await tickets(owner, p.id);
    const beta = await full(owner, p.id, byTitle(list, 'Ship the beta').id);
    expect(beta.column.name).toBe('Doing');
    expect(beta.assignee.id).toBe(alice.userId);
    expect(beta.createdAt).toBe('2024-01-11T09:00:00.000Z');
    expect(beta.dueDate).toBe('2024-02-01');
    expect(beta.labels.map((l: { name: string }) => l.name)).toEqual(['Launch']);
    expect(beta.description).toContain(
      'Attachment in Trello: [beta-plan.pdf](<https://trello.com/1/cards/abc/attachments/att1/download/beta-plan.pdf>)',
    );
    expect(beta.description).not.toContain('file:');
    const freeze = byTitle(list, 'Freeze the API');
    const smoke = byTitle(list, 'Smoke test');
    expect([freeze.parentId, smoke.parentId]).toEqual([beta.id, beta.id]);
    expect(freeze.type).toBe('Subtask');
    expect(freeze.columnId).toBe((await columnsOf(owner, p.id)).find((c) => c.name === 'Done')?.id);
    expect(smoke.columnId).toBe(beta.column.id);
    const notes = byTitle(list, 'Write release notes');
    expect(notes.labels.map((l: { name: string }) => l.name)).toEqual(['purple']);
    // Shown by the member's full name (Terry), as Trello shows them.
    expect(notes.description).toContain('Assignee in Trello: Terry');
    expect((await commentsOf(owner, p.id, beta.id)).map((c) => c.content)).toEqual(['Let us do this first.']);
    const again = await sendImport(
      owner,
      p.id,
      fixture('trello.json'),
      { format: 'trello-json' },
      'board.json',
    );
    expect(again.json()).toMatchObject({ counts: { tickets: 0 }, skipped: 4 });
  });
});

describe('generic CSV and encodings', () => {
  it('reads Windows-1252 text, a UTF-16 file with its byte-order mark, and repeated label columns', async () => {
    const p = await makeProject(owner);
    const latin = Buffer.from('title,status,labels,labels\nCafé crème,Doing,été,naïve\n', 'latin1');
    const res = await sendImport(owner, p.id, latin, { format: 'csv' });
    expect(res.statusCode, res.body).toBe(200);
    const t1 = byTitle(await tickets(owner, p.id), 'Café crème');
    expect(t1.labels.map((l: { name: string }) => l.name).sort()).toEqual(['naïve', 'été']);
    const utf16 = Buffer.concat([
      Buffer.from([0xff, 0xfe]),
      Buffer.from('Summary,Points\n"Straße 😀",8\n', 'utf16le'),
    ]);
    const res2 = await sendImport(owner, p.id, utf16, { format: 'csv' });
    expect(res2.statusCode, res2.body).toBe(200);
    expect(byTitle(await tickets(owner, p.id), 'Straße 😀').storyPoints).toBe(8);
    const noTitle = await sendImport(owner, p.id, Buffer.from('what,ever\n1,2\n'), { format: 'csv' });
    expect(noTitle.statusCode).toBe(400);
    expect(noTitle.json().problems[0].message).toContain('Its header row has no title column');
    const mapped = await sendImport(owner, p.id, Buffer.from('what,ever\nNamed by mapping,2\n'), {
      format: 'csv',
      mapping: JSON.stringify({ columns: { what: 'title' } }),
    });
    expect(mapped.json().counts.tickets).toBe(1);
  });
});

describe('export', () => {
  it('exports a filtered list as CSV and JSON, and the CSV re-imports without losing an exported field', async () => {
    const p = await makeProject(owner);
    await addMember(owner, p.id, alice);
    const label = (await owner.post(`/api/projects/${p.id}/labels`, { name: 'a,b\\c' })).json();
    const label2 = (await owner.post(`/api/projects/${p.id}/labels`, { name: 'plain' })).json();
    const sprint = (await owner.post(`/api/projects/${p.id}/sprints`, { name: 'Sprint Nine' })).json();
    const parent = await makeTicket(owner, p.id, { title: 'Parent, with "quotes"', type: 'Epic' });
    await makeTicket(owner, p.id, {
      title: 'Child',
      description: 'Line one\nLine two, "quoted"\n',
      type: 'Bug',
      priority: 'High',
      assigneeId: alice.userId,
      labelIds: [label.id, label2.id],
      storyPoints: 8,
      sprintId: sprint.id,
      startDate: '2024-01-02',
      dueDate: '2024-02-03',
      parentId: parent.id,
      estimate: '3d',
      environment: 'prod',
      affectedVersion: '1.0',
      fixVersion: '1.1',
    });
    await makeTicket(owner, p.id, { title: 'Other', priority: 'Low' });

    const csv = await owner.get(
      `/api/projects/${p.id}/tickets.csv?query=${encodeURIComponent('priority:high,highest')}`,
    );
    expect(csv.statusCode, csv.body).toBe(200);
    expect(csv.headers['content-type']).toMatch(/^text\/csv/);
    expect(csv.headers['content-disposition']).toContain(`${p.key}-tickets.csv`);
    expect(csv.body.split('\n')[0]).toBe(
      'key,title,type,priority,status,assignee,reporter,labels,storyPoints,sprint,startDate,dueDate,created,updated,parent,description,estimate,environment,affectedVersion,fixVersion',
    );
    const all = await owner.get(`/api/projects/${p.id}/tickets.json`);
    expect(all.statusCode, all.body).toBe(200);
    const rows = all.json();
    expect(rows).toHaveLength(3);
    const filtered = await owner.get(
      `/api/projects/${p.id}/tickets.json?query=${encodeURIComponent('priority:high')}`,
    );
    expect(filtered.json().map((r: { title: string }) => r.title)).toEqual(['Child']);
    expect((await outsider.get(`/api/projects/${p.id}/tickets.csv`)).statusCode).toBe(404);
    expect(
      (await owner.get(`/api/projects/${p.id}/tickets.csv?query=${encodeURIComponent('priority:')}`))
        .statusCode,
    ).toBe(400);

    // Round trip: the whole list, into a new project, through the generic CSV importer.
    const whole = await owner.get(`/api/projects/${p.id}/tickets.csv`);
    const q = await makeProject(owner);
    await addMember(owner, q.id, alice);
    await owner.post(`/api/projects/${q.id}/sprints`, { name: 'Sprint Nine' });
    const res = await sendImport(owner, q.id, Buffer.from(whole.body), { format: 'csv' });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().problems).toEqual([]);
    const back = (await owner.get(`/api/projects/${q.id}/tickets.json`)).json();
    const strip = (r: Record<string, unknown>, key: string) => ({
      ...r,
      key: undefined,
      parent: r.parent ? 'parent' : null,
      description:
        typeof r.description === 'string'
          ? r.description
              .replace(/\n\n---\nImported from CSV: .*$/s, '')
              .replace(/^---\nImported from CSV: .*$/s, '') || null
          : null,
      _: key,
    });
    const before = rows
      .map((r: Record<string, unknown>) => strip(r, String(r.title)))
      .sort((a: any, b: any) => a._.localeCompare(b._));
    const after = back
      .map((r: Record<string, unknown>) => strip(r, String(r.title)))
      .sort((a: any, b: any) => a._.localeCompare(b._));
    expect(after).toEqual(before);
    const child = back.find((r: { title: string }) => r.title === 'Child');
    const parentBack = back.find((r: { title: string }) => r.title.startsWith('Parent'));
    expect(child.parent).toBe(parentBack.key);
    expect(child.labels.sort()).toEqual(['a,b\\c', 'plain']);
  });
});

describe('large files', () => {
  it('imports a generated 50 MB Jira CSV, streamed', async () => {
    const p = await makeProject(owner);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'docket-import-'));
    const file = path.join(dir, 'big.csv');
    try {
      const out = fs.createWriteStream(file);
      out.write(
        'Summary,Issue key,Issue id,Issue Type,Status,Priority,Created,Labels,Labels,Description,Comment\n',
      );
      const filler = `"${'Lorem ipsum, dolor "" sit amet.\n'.repeat(150)}"`;
      let rows = 0;
      let size = 0;
      while (size < 50 * 1024 * 1024) {
        rows++;
        const line = `Row ${rows},BIG-${rows},${20000 + rows},Task,To Do,Medium,01/Mar/24 9:00 AM,bulk,l${rows % 7},${filler},"01/Mar/24 9:05 AM;someone;first"\n`;
        size += Buffer.byteLength(line);
        if (!out.write(line)) await new Promise<void>((r) => out.once('drain', () => r()));
      }
      await new Promise<void>((r) => out.end(() => r()));
      const ctx = requestCtx(t.app.services, null);
      ctx.actor = { userId: owner.userId, isSystemAdmin: true, via: 'session', sessionId: null };
      let lastBytes = 0;
      const result = await importTickets(ctx, p.id, {
        format: 'jira-csv',
        file,
        fileSize: fs.statSync(file).size,
        dryRun: false,
        onProgress: (pr) => {
          lastBytes = pr.bytes;
        },
      });
      expect(result.problems).toEqual([]);
      expect(result.counts).toMatchObject({ tickets: rows, comments: rows, labels: 8 });
      expect(lastBytes).toBe(fs.statSync(file).size);
      const count = await t.app.services.db.kysely
        .selectFrom('tickets')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('project_id', '=', p.id)
        .executeTakeFirstOrThrow();
      expect(Number(count.n)).toBe(rows);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 240_000);
});
