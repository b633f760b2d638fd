import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requestCtx } from '../src/domain/context.js';
import { AppError } from '../src/domain/errors.js';
import { importTickets } from '../src/domain/imports/run.js';
import { createTestApp, type TestApp } from './helpers/app.js';
import { columnsOf, makeProject, type ProjectOut } from './helpers/board.js';
import { type Client, signUp } from './helpers/factories.js';
import { fixture, namesOf, sendImport, ticketsOf } from './helpers/imports.js';

/**
 * Issue 49, imports: a malformed file, a cut-short one and one of another format are refused whole
 * with 400 {error, problems: [{line?, column?, message}]}, in a dry run and a real one, and nothing
 * is written; a real import is all or nothing.
 */

let t: TestApp;
let owner: Client;

beforeAll(async () => {
  t = await createTestApp();
  owner = await signUp(t.app);
});
afterAll(async () => t.close());

const MALFORMED = 'The file is malformed: nothing was imported';
const WRONG_FORMAT = 'The file is not in the chosen format: nothing was imported';

/** Sends the file as a dry run and as a real import: both must be the same 400, and nothing written. */
async function expectRefused(
  p: ProjectOut,
  data: Buffer,
  format: string,
  error: string,
): Promise<{
  problems: { line?: number; column?: number; row?: number; message: string }[];
  looksLike?: string;
}> {
  const columnsBefore = await columnsOf(owner, p.id);
  const dry = await sendImport(owner, p.id, data, { format, dryRun: 'true' });
  const real = await sendImport(owner, p.id, data, { format });
  expect(dry.statusCode, dry.body).toBe(400);
  expect(real.statusCode, real.body).toBe(400);
  expect(real.json()).toEqual(dry.json());
  expect(real.json().error).toBe(error);
  expect(await ticketsOf(owner, p.id)).toEqual([]);
  expect(await columnsOf(owner, p.id)).toEqual(columnsBefore);
  expect(await namesOf(owner, p.id)).toEqual({ labels: [], sprints: [] });
  return real.json();
}

describe('malformed files are refused whole', () => {
  it('a Linear CSV with one quoted description left unclosed: 400 naming where the cell opens, nothing written', async () => {
    const p = await makeProject(owner);
    const text = fixture('linear-export.csv').toString('utf8');
    // PAY-101's description loses its closing quote: the next records would be swallowed into it.
    const broken = text.replace('2. pay with a saved card"', '2. pay with a saved card');
    expect(broken).not.toBe(text);
    const body = await expectRefused(p, Buffer.from(broken), 'linear-csv', MALFORMED);
    const column = text.split('\n')[1].indexOf('"On 3G') + 1;
    expect(body.problems).toEqual([{ line: 2, column, row: 1, message: expect.any(String) }]);
    expect(body.problems[0].message).toMatch(
      /^The quoted cell that opens here does not end properly: at line 6, column \d+ a quote is followed by "B"/,
    );
  });

  it('every record with a cell too many or too few is named with its line, and the file is refused', async () => {
    const p = await makeProject(owner);
    const lines = fixture('linear-export.csv').toString('utf8').split('\n');
    // Line 7 (PAY-102) gets a cell too many; line 10 (PAY-105) loses its last cell.
    expect(lines[6].startsWith('PAY-102,')).toBe(true);
    expect(lines[9].startsWith('PAY-105,')).toBe(true);
    lines[6] = `${lines[6]},extra`;
    lines[9] = lines[9].replace(/,$/, '');
    const body = await expectRefused(p, Buffer.from(lines.join('\n')), 'linear-csv', MALFORMED);
    expect(body.problems.map((x) => [x.line, x.row])).toEqual([
      [7, 2],
      [10, 5],
    ]);
    expect(body.problems[0]).toMatchObject({ column: lines[6].length - 'extra'.length + 1 });
    expect(body.problems[0].message).toContain('has 35 cells where the header has 34');
    expect(body.problems[1].message).toContain('has 33 cells where the header has 34');
    expect(body.problems[1].message).toContain('"Duplicate of"');
  });

  it('a quote inside an unquoted cell is refused (no relaxed quotes)', async () => {
    const p = await makeProject(owner);
    const body = await expectRefused(
      p,
      Buffer.from('title,description\nOne,fine\nTwo,a "quoted" word\n'),
      'csv',
      MALFORMED,
    );
    expect(body.problems).toEqual([
      { line: 3, column: 7, row: 2, message: expect.stringContaining('A quote inside') },
    ]);
  });

  it('the first 80% of a Trello board export (cards before lists and members) is refused as cut short', async () => {
    const p = await makeProject(owner);
    const whole = fixture('trello-board.json');
    const text = whole.toString('utf8');
    // The premise of the finding: cards come before lists and members in Trello's file.
    expect(text.indexOf('"cards"')).toBeLessThan(text.indexOf('"lists"'));
    const cut = whole.subarray(0, Math.floor(whole.length * 0.8));
    expect(cut.toString('utf8')).not.toContain('"lists"');
    const body = await expectRefused(p, cut, 'trello-json', MALFORMED);
    expect(body.problems).toHaveLength(1);
    expect(body.problems[0].message).toMatch(/^The file ends .*: it is cut short/);
    expect(body.problems[0].line).toBeGreaterThan(1);
    // Cut inside the cards: the same.
    const early = whole.subarray(0, text.indexOf('"Dark mode toggle"'));
    const inCards = await expectRefused(p, early, 'trello-json', MALFORMED);
    expect(inCards.problems[0].message).toContain('inside its "cards" list');
  });

  it('JSON that is not well-formed is refused with its line and column', async () => {
    const p = await makeProject(owner);
    const text = fixture('github.json').toString('utf8');
    const broken = text.replace(
      '"title": "Document the config file",',
      '"title": "Document the config file"',
    );
    const body = await expectRefused(p, Buffer.from(broken), 'github-json', MALFORMED);
    const lines = broken.split('\n');
    const at = lines.findIndex((l) => l.includes('"Document the config file"'));
    expect(body.problems).toEqual([
      { line: at + 2, column: lines[at + 1].indexOf('"') + 1, message: 'Expected , or }, found a quote' },
    ]);
  });
});

describe('a file that is not the chosen format is a 400 naming what it looks like', () => {
  it('CSV sent as trello-json, JSON or a binary file sent as linear-csv or jira-csv', async () => {
    const p = await makeProject(owner);
    const csvAsTrello = await expectRefused(p, fixture('linear-export.csv'), 'trello-json', WRONG_FORMAT);
    expect(csvAsTrello.looksLike).toBe('linear-csv');
    expect(csvAsTrello.problems).toEqual([
      {
        message:
          'This is not a file of the format Trello board (JSON export): it looks like Linear (CSV export): choose that format',
      },
    ]);
    const trelloAsLinear = await expectRefused(p, fixture('trello-board.json'), 'linear-csv', WRONG_FORMAT);
    expect(trelloAsLinear.looksLike).toBe('trello-json');
    const githubAsJira = await expectRefused(p, fixture('github.json'), 'jira-csv', WRONG_FORMAT);
    expect(githubAsJira.looksLike).toBe('github-json');
    const png = await sharp({
      create: { width: 4, height: 4, channels: 3, background: { r: 200, g: 10, b: 10 } },
    })
      .png()
      .toBuffer();
    expect((await expectRefused(p, png, 'linear-csv', WRONG_FORMAT)).looksLike).toBe('png');
    const bytes = Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 37) % 256));
    expect((await expectRefused(p, bytes, 'jira-csv', WRONG_FORMAT)).looksLike).toBe('binary');
    expect((await expectRefused(p, Buffer.from(' \n'), 'csv', WRONG_FORMAT)).looksLike).toBe('empty');
  });

  it("one tracker's CSV sent as another's is named by its header; a JSON list is not a Trello board", async () => {
    const p = await makeProject(owner);
    const linearAsJira = await expectRefused(p, fixture('linear-export.csv'), 'jira-csv', WRONG_FORMAT);
    expect(linearAsJira.looksLike).toBe('linear-csv');
    expect(linearAsJira.problems[0].message).toContain(
      'it looks like Linear (CSV export): choose that format. Its header row has no "Summary", nor "Issue key" or "Issue id" column',
    );
    const jiraAsLinear = await expectRefused(p, fixture('jira-cloud.csv'), 'linear-csv', WRONG_FORMAT);
    expect(jiraAsLinear.looksLike).toBe('jira-csv');
    const githubAsTrello = await expectRefused(p, fixture('github.json'), 'trello-json', WRONG_FORMAT);
    expect(githubAsTrello.looksLike).toBe('github-json');
    const notABoard = await expectRefused(
      p,
      Buffer.from('{"name": "x", "items": []}'),
      'trello-json',
      WRONG_FORMAT,
    );
    expect(notABoard.problems[0].message).toContain('"cards" and "lists"');
  });
});

describe('all or nothing', () => {
  it('a file that turns malformed while it is written leaves nothing of the batches already written', async () => {
    const p = await makeProject(owner);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'docket-import-'));
    const file = path.join(dir, 'growing.csv');
    try {
      const rows = 2500;
      const filler = 'x'.repeat(1000);
      const lines = ['title,labels,description'];
      for (let i = 1; i <= rows; i++) lines.push(`Row ${i},bulk,${filler}`);
      fs.writeFileSync(file, `${lines.join('\n')}\n`);
      const ctx = requestCtx(t.app.services, null);
      ctx.actor = { userId: owner.userId, isSystemAdmin: false, via: 'session', sessionId: null };
      let appended = false;
      let checked = 0;
      const run = importTickets(ctx, p.id, {
        format: 'csv',
        file,
        fileSize: fs.statSync(file).size,
        dryRun: false,
        onProgress(pr) {
          if (pr.phase === 'checking') checked = pr.records;
          // After the first batch of 1,000 is written, the file grows a malformed record.
          if (pr.phase === 'reading' && pr.records >= 1200 && !appended) {
            appended = true;
            fs.appendFileSync(file, 'Last,bulk,"never closed\n');
          }
        },
      });
      const err = await run.catch((e: unknown) => e);
      expect(appended).toBe(true);
      expect(err).toBeInstanceOf(AppError);
      expect((err as AppError).status).toBe(400);
      expect((err as AppError).message).toBe(MALFORMED);
      expect((err as AppError).extra.problems).toEqual([
        { line: rows + 2, column: 11, row: rows + 1, message: expect.stringContaining('never closed') },
      ]);
      const db = t.app.services.db.kysely;
      const count = async (table: 'tickets' | 'import_sources' | 'labels') =>
        Number(
          (
            await db
              .selectFrom(table)
              .select((eb) => eb.fn.countAll<number>().as('n'))
              .where('project_id', '=', p.id)
              .executeTakeFirstOrThrow()
          ).n,
        );
      expect([await count('tickets'), await count('import_sources'), await count('labels')]).toEqual([
        0, 0, 0,
      ]);
      // The whole file was read before the writing began.
      expect(checked).toBe(rows);
      const project = await db
        .selectFrom('projects')
        .select('ticket_counter')
        .where('id', '=', p.id)
        .executeTakeFirstOrThrow();
      expect(Number(project.ticket_counter)).toBe(0);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
