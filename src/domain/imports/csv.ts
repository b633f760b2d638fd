/**
 * The CSV importers: Jira's CSV export, Linear's CSV export and a generic CSV with a header row
 * (which reads Docket's own export back). Records are streamed through the strict reader of
 * csv-text.ts and read by position, since Jira repeats column names (Labels, Sprint, Comment,
 * Attachment). Every record must have as many cells as the header; a cell the export neutralised
 * against spreadsheet formulas (a leading `'`) is read back as it was.
 */
import { createHash } from 'node:crypto';
import { CSV_FIELDS, type CsvField, type ImportFormat } from '../../shared/imports.js';
import { type CsvRecord, CsvSyntaxError, csvRecords, unneutralise } from './csv-text.js';
import { wrongFormat } from './refusal.js';
import { csvFlavour } from './sniff.js';
import {
  clean,
  decodedText,
  emptyRecord,
  parseDay,
  parsePoints,
  parseTimestamp,
  type ReadContext,
  type Reader,
  type SourceLinkType,
  type SourceRecord,
  sourcePerson,
} from './source.js';

/** A header row: each name (lower case, trimmed) with the places it occupies. */
class Header {
  readonly places = new Map<string, number[]>();
  constructor(readonly names: string[]) {
    names.forEach((n, i) => {
      const k = n.trim().toLowerCase();
      this.places.set(k, [...(this.places.get(k) ?? []), i]);
    });
  }
  has(name: string) {
    return this.places.has(name.toLowerCase());
  }
  /** The first non-empty value under any of the names. */
  one(cells: string[], ...names: string[]): string | null {
    for (const n of names)
      for (const i of this.places.get(n.toLowerCase()) ?? []) {
        const v = clean(cells[i]);
        if (v !== null) return v;
      }
    return null;
  }
  /** Every non-empty value under the name (a repeated column). */
  all(cells: string[], name: string): string[] {
    const out: string[] = [];
    for (const i of this.places.get(name.toLowerCase()) ?? []) {
      const v = clean(cells[i]);
      if (v !== null) out.push(v);
    }
    return out;
  }
}

/**
 * Refuses a header without the columns a format needs: each entry of `needed` lists the names of
 * which one must be there.
 */
function requireColumns(header: Header, format: ImportFormat, needed: string[][]) {
  const missing = needed.filter((names) => !names.some((n) => header.has(n)));
  if (missing.length === 0) return;
  const what = missing.map((names) => names.map((n) => `"${n}"`).join(' or ')).join(', nor ');
  throw wrongFormat(format, csvFlavour(header.names), `Its header row has no ${what} column`);
}

/** A record whose number of cells is not the header's: where, and what it means. */
function widthProblem(header: Header, rec: CsvRecord, row: number) {
  const want = header.names.length;
  const got = rec.cells.length;
  if (got > want)
    return {
      ...rec.starts[want],
      row,
      message: `Record ${row} has ${got} cells where the header has ${want}: the cells from here on belong to no column (a comma in a cell that is not in quotes?)`,
    };
  const absent = header.names.slice(got, got + 3).map((n) => `"${n.trim()}"`);
  return {
    ...rec.end,
    row,
    message: `Record ${row} has ${got} cells where the header has ${want}: it ends here, without a cell for ${absent.join(', ')}${want - got > 3 ? ' and more' : ''}`,
  };
}

/**
 * The records of a CSV file after its header, numbered from 1, their cells read back from the
 * export's neutralisation. `expect` checks the header (and refuses a file of another format).
 * Malformed records are reported to `rc.malformed`; the reading goes on after a record with the
 * wrong number of cells, and stops at the first malformed quote (what follows cannot be trusted).
 */
async function* csvRows(
  rc: ReadContext,
  expect: (header: Header) => void,
): AsyncGenerator<{ header: Header; row: number; line: number; cells: string[] }> {
  let header: Header | null = null;
  let row = 0;
  try {
    for await (const rec of csvRecords(decodedText(rc))) {
      if (!header) {
        header = new Header(rec.cells);
        expect(header);
        continue;
      }
      row++;
      if (rec.cells.length !== header.names.length) {
        rc.malformed(widthProblem(header, rec, row));
        continue;
      }
      yield { header, row, line: rec.line, cells: rec.cells.map(unneutralise) };
    }
  } catch (err) {
    if (!(err instanceof CsvSyntaxError)) throw err;
    rc.malformed({ ...err.place, ...(header ? { row: row + 1 } : {}), message: err.message });
  }
}

const joinUrl = (base: string | undefined, path: string) =>
  base ? `${base.replace(/\/+$/, '')}${path}` : null;

// --- Jira ------------------------------------------------------------------------------------

const JIRA_LINK = /^(inward|outward) issue link \((.+)\)$/;

/** Jira's link type names, read from the side the column names. */
function jiraLinkType(direction: string, name: string): SourceLinkType {
  const n = name.toLowerCase();
  const outward = direction === 'outward';
  if (n.startsWith('block')) return outward ? 'blocks' : 'is_blocked_by';
  if (n.startsWith('duplicate')) return outward ? 'duplicates' : 'is_duplicated_by';
  return 'relates_to';
}

/** A Jira comment cell: `08/Feb/24 10:42 AM;<author>;<text>` (the text may hold semicolons). */
function jiraComment(cell: string) {
  const first = cell.indexOf(';');
  const second = first >= 0 ? cell.indexOf(';', first + 1) : -1;
  if (second > 0) {
    const at = parseTimestamp(cell.slice(0, first));
    if (at)
      return {
        createdAt: at,
        author: sourcePerson(cell.slice(first + 1, second)),
        body: cell.slice(second + 1),
      };
  }
  return { createdAt: null, author: null, body: cell };
}

/**
 * A Jira attachment cell: `08/Feb/24 10:42 AM;<author>;<file name>;<address>` (or the address
 * alone); null when it names no web address.
 */
function jiraAttachment(cell: string): { name: string; url: string } | null {
  const parts = cell.split(';');
  const url = (parts.length >= 4 ? parts.slice(3).join(';') : cell).trim();
  if (!/^https?:\/\/\S+$/i.test(url)) return null;
  const name = (parts.length >= 4 ? parts[2].trim() : '') || decodeURIComponent(url.split('/').pop() || url);
  return { name, url };
}

const jiraHeader = (h: Header) => requireColumns(h, 'jira-csv', [['Summary'], ['Issue key', 'Issue id']]);

export const readJiraCsv: Reader = async function* (rc) {
  for await (const { header, row, line, cells } of csvRows(rc, jiraHeader)) {
    const key = header.one(cells, 'Issue key');
    const id = header.one(cells, 'Issue id') ?? key;
    const title = header.one(cells, 'Summary');
    if (!id || !title) {
      rc.problem({ row, line, message: !id ? 'No Issue key or Issue id' : 'No Summary' });
      continue;
    }
    const r = emptyRecord(row, id, title);
    r.line = line;
    r.key = key;
    r.url = key ? joinUrl(rc.mapping.baseUrl, `/browse/${key}`) : null;
    r.description = header.one(cells, 'Description');
    r.type = header.one(cells, 'Issue Type');
    r.priority = header.one(cells, 'Priority');
    r.status = header.one(cells, 'Status');
    r.assignee = sourcePerson(header.one(cells, 'Assignee'));
    r.reporter = sourcePerson(header.one(cells, 'Reporter', 'Creator'));
    r.labels = header.all(cells, 'Labels');
    r.storyPoints = parsePoints(
      header.one(cells, 'Custom field (Story Points)', 'Custom field (Story point estimate)', 'Story Points'),
    );
    const sprints = header.all(cells, 'Sprint');
    r.sprint = sprints.at(-1) ?? null;
    r.startDate = parseDay(header.one(cells, 'Custom field (Start date)', 'Start date'));
    r.dueDate = parseDay(header.one(cells, 'Due Date', 'Due date'));
    r.createdAt = parseTimestamp(header.one(cells, 'Created'));
    r.updatedAt = parseTimestamp(header.one(cells, 'Updated'));
    r.parent = header.one(cells, 'Parent id', 'Parent', 'Custom field (Epic Link)', 'Parent key');
    r.environment = header.one(cells, 'Environment');
    r.affectedVersion =
      [...header.all(cells, 'Affects Version/s'), ...header.all(cells, 'Affects versions')].join(', ') ||
      null;
    r.fixVersion =
      [...header.all(cells, 'Fix Version/s'), ...header.all(cells, 'Fix versions')].join(', ') || null;
    r.comments = header.all(cells, 'Comment').map(jiraComment);
    r.attachments = header
      .all(cells, 'Attachment')
      .map(jiraAttachment)
      .filter((a) => a !== null);
    for (const [name, places] of header.places) {
      const m = JIRA_LINK.exec(name);
      if (!m) continue;
      const type = jiraLinkType(m[1], m[2]);
      for (const i of places) {
        const v = clean(cells[i]);
        if (v) for (const ref of v.split(/[,\s]+/).filter(Boolean)) r.links.push({ type, ref });
      }
    }
    yield r;
  }
};

// --- Linear ----------------------------------------------------------------------------------

/** Linear's relation columns, as seen from the row's issue. */
const LINEAR_RELATIONS: [string, SourceLinkType][] = [
  ['Related to', 'relates_to'],
  ['Blocks', 'blocks'],
  ['Blocked by', 'is_blocked_by'],
  ['Duplicate of', 'duplicates'],
  ['Duplicated by', 'is_duplicated_by'],
];

const linearHeader = (h: Header) => requireColumns(h, 'linear-csv', [['ID', 'Identifier'], ['Title']]);

export const readLinearCsv: Reader = async function* (rc) {
  for await (const { header, row, line, cells } of csvRows(rc, linearHeader)) {
    const id = header.one(cells, 'ID', 'Identifier');
    const title = header.one(cells, 'Title');
    if (!id || !title) {
      rc.problem({ row, line, message: !id ? 'No ID' : 'No Title' });
      continue;
    }
    const r = emptyRecord(row, id, title);
    r.line = line;
    r.key = id;
    r.url = joinUrl(rc.mapping.baseUrl, `/issue/${id}`);
    r.description = header.one(cells, 'Description');
    r.status = header.one(cells, 'Status');
    r.priority = header.one(cells, 'Priority');
    r.assignee = sourcePerson(header.one(cells, 'Assignee'));
    r.reporter = sourcePerson(header.one(cells, 'Creator'));
    r.labels = (header.one(cells, 'Labels') ?? '')
      .split(',')
      .map((l) => l.trim())
      .filter(Boolean);
    r.storyPoints = parsePoints(header.one(cells, 'Estimate'));
    r.sprint =
      header.one(cells, 'Cycle Name') ??
      (header.one(cells, 'Cycle Number') ? `Cycle ${header.one(cells, 'Cycle Number')}` : null);
    r.dueDate = parseDay(header.one(cells, 'Due Date'));
    r.createdAt = parseTimestamp(header.one(cells, 'Created'));
    r.updatedAt = parseTimestamp(header.one(cells, 'Updated'));
    r.archived = header.one(cells, 'Archived') !== null;
    r.parent = header.one(cells, 'Parent issue', 'Parent');
    // Linear has no issue types; a sub-issue is a subtask.
    r.type = r.parent ? 'Subtask' : null;
    for (const [column, type] of LINEAR_RELATIONS)
      for (const v of header.all(cells, column))
        for (const ref of v.split(/[,\s]+/).filter(Boolean)) r.links.push({ type, ref });
    yield r;
  }
};

// --- generic CSV -----------------------------------------------------------------------------

/** Header names read as a field besides the field's own name (any letter case). */
const SYNONYMS: Record<string, CsvField> = {
  summary: 'title',
  name: 'title',
  body: 'description',
  state: 'status',
  column: 'status',
  'issue type': 'type',
  'story points': 'storyPoints',
  points: 'storyPoints',
  estimate: 'estimate',
  'due date': 'dueDate',
  due: 'dueDate',
  'start date': 'startDate',
  'created at': 'created',
  createdat: 'created',
  'updated at': 'updated',
  updatedat: 'updated',
  label: 'labels',
  tags: 'labels',
  owner: 'assignee',
  author: 'reporter',
  'parent key': 'parent',
  link: 'url',
};

/**
 * Labels in one cell, separated by commas; a backslash escapes a comma or a backslash inside a name
 * (what the export writes, so names with commas come back whole).
 */
export function splitLabels(cell: string): string[] {
  const out: string[] = [];
  let cur = '';
  for (let i = 0; i < cell.length; i++) {
    const ch = cell[i];
    if (ch === '\\' && i + 1 < cell.length) cur += cell[++i];
    else if (ch === ',') {
      out.push(cur);
      cur = '';
    } else cur += ch;
  }
  out.push(cur);
  return out.map((l) => l.trim()).filter(Boolean);
}

export const joinLabels = (names: string[]) =>
  names.map((n) => n.replace(/[\\,]/g, (c) => `\\${c}`)).join(', ');

export const readGenericCsv: Reader = async function* (rc) {
  const f = new Map<CsvField, number[]>();
  const fieldsOf = (header: Header) => {
    const explicit = new Map(
      Object.entries(rc.mapping.columns ?? {}).map(([k, v]) => [k.trim().toLowerCase(), v]),
    );
    for (const [name, places] of header.places) {
      const field =
        explicit.get(name) ?? CSV_FIELDS.find((x) => x.toLowerCase() === name) ?? SYNONYMS[name] ?? null;
      if (field) f.set(field, [...(f.get(field) ?? []), ...places]);
    }
    if (!f.has('title'))
      throw wrongFormat(
        'csv',
        csvFlavour(header.names),
        'Its header row has no title column (title, summary or name; or name one with mapping.columns)',
      );
  };
  for await (const { row, line, cells } of csvRows(rc, fieldsOf)) {
    const one = (field: CsvField) => {
      for (const i of f.get(field) ?? []) {
        const v = clean(cells[i]);
        if (v !== null) return v;
      }
      return null;
    };
    const title = one('title');
    if (!title) {
      rc.problem({ row, line, message: 'No title' });
      continue;
    }
    const key = one('key');
    // Without an id or key, the row's content is its identity: the same row is not imported twice.
    const id =
      one('id') ??
      key ??
      `row:${createHash('sha256').update(JSON.stringify(cells)).digest('hex').slice(0, 32)}`;
    const r = emptyRecord(row, id, title);
    r.line = line;
    r.key = key;
    r.url = one('url');
    const description = (f.get('description') ?? []).map((i) => cells[i] ?? '').find((v) => v.trim() !== '');
    r.description = description ?? null;
    r.type = one('type');
    r.priority = one('priority');
    r.status = one('status');
    r.assignee = sourcePerson(one('assignee'));
    r.reporter = sourcePerson(one('reporter'));
    r.labels = (f.get('labels') ?? []).flatMap((i) => splitLabels(cells[i] ?? ''));
    r.storyPoints = parsePoints(one('storyPoints'));
    r.sprint = one('sprint');
    r.startDate = parseDay(one('startDate'));
    r.dueDate = parseDay(one('dueDate'));
    r.createdAt = parseTimestamp(one('created'));
    r.updatedAt = parseTimestamp(one('updated'));
    r.parent = one('parent');
    r.estimate = one('estimate');
    r.environment = one('environment');
    r.affectedVersion = one('affectedVersion');
    r.fixVersion = one('fixVersion');
    yield r satisfies SourceRecord;
  }
};
