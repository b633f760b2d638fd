/**
 * The CSV importers: Jira's CSV export, Linear's CSV export and a generic CSV with a header row
 * (which reads Docket's own export back). Rows are streamed through csv-parse and read by position,
 * since Jira repeats column names (Labels, Sprint, Comment, Attachment).
 */
import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { parse } from 'csv-parse';
import { CSV_FIELDS, type CsvField } from '../../shared/imports.js';
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

/** The rows of a CSV file after its header, numbered from 1; an unreadable file ends with a problem. */
async function* csvRows(rc: ReadContext): AsyncGenerator<{ header: Header; row: number; cells: string[] }> {
  const parser = parse({ relax_column_count: true, skip_empty_lines: true, relax_quotes: true });
  const source = Readable.from(decodedText(rc));
  source.on('error', (err) => parser.destroy(err));
  source.pipe(parser);
  let header: Header | null = null;
  let row = 0;
  try {
    for await (const cells of parser as AsyncIterable<string[]>) {
      if (!header) {
        header = new Header(cells);
        continue;
      }
      row++;
      yield { header, row, cells };
    }
  } catch (err) {
    const e = err as { code?: string; message?: string; syscall?: string };
    if (e.syscall) throw err;
    rc.problem({ row: row + 1, message: `Unreadable CSV from here on: ${e.message ?? String(err)}` });
    return;
  } finally {
    source.destroy();
  }
  if (!header) rc.problem({ row: 0, message: 'The file has no header row' });
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
      return { createdAt: at, author: clean(cell.slice(first + 1, second)), body: cell.slice(second + 1) };
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

export const readJiraCsv: Reader = async function* (rc) {
  for await (const { header, row, cells } of csvRows(rc)) {
    const key = header.one(cells, 'Issue key');
    const id = header.one(cells, 'Issue id') ?? key;
    const title = header.one(cells, 'Summary');
    if (!id || !title) {
      rc.problem({ row, message: !id ? 'No Issue key or Issue id' : 'No Summary' });
      continue;
    }
    const r = emptyRecord(row, id, title);
    r.key = key;
    r.url = key ? joinUrl(rc.mapping.baseUrl, `/browse/${key}`) : null;
    r.description = header.one(cells, 'Description');
    r.type = header.one(cells, 'Issue Type');
    r.priority = header.one(cells, 'Priority');
    r.status = header.one(cells, 'Status');
    r.assignee = header.one(cells, 'Assignee');
    r.reporter = header.one(cells, 'Reporter', 'Creator');
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
    r.affectedVersion = header.all(cells, 'Affects Version/s').join(', ') || null;
    r.fixVersion = header.all(cells, 'Fix Version/s').join(', ') || null;
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

export const readLinearCsv: Reader = async function* (rc) {
  for await (const { header, row, cells } of csvRows(rc)) {
    const id = header.one(cells, 'ID', 'Identifier');
    const title = header.one(cells, 'Title');
    if (!id || !title) {
      rc.problem({ row, message: !id ? 'No ID' : 'No Title' });
      continue;
    }
    const r = emptyRecord(row, id, title);
    r.key = id;
    r.url = joinUrl(rc.mapping.baseUrl, `/issue/${id}`);
    r.description = header.one(cells, 'Description');
    r.status = header.one(cells, 'Status');
    r.priority = header.one(cells, 'Priority');
    r.assignee = header.one(cells, 'Assignee');
    r.reporter = header.one(cells, 'Creator');
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
    r.parent = header.one(cells, 'Parent issue', 'Parent');
    // Linear has no issue types; a sub-issue is a subtask.
    r.type = r.parent ? 'Subtask' : null;
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
  let fields: Map<CsvField, number[]> | null = null;
  for await (const { header, row, cells } of csvRows(rc)) {
    if (!fields) {
      fields = new Map();
      const explicit = new Map(
        Object.entries(rc.mapping.columns ?? {}).map(([k, v]) => [k.trim().toLowerCase(), v]),
      );
      for (const [name, places] of header.places) {
        const field =
          explicit.get(name) ?? CSV_FIELDS.find((f) => f.toLowerCase() === name) ?? SYNONYMS[name] ?? null;
        if (field) fields.set(field, [...(fields.get(field) ?? []), ...places]);
      }
      if (!fields.has('title')) {
        rc.problem({ row: 0, message: 'No title column (name one with mapping.columns)' });
        return;
      }
    }
    const f = fields;
    const one = (field: CsvField) => {
      for (const i of f.get(field) ?? []) {
        const v = clean(cells[i]);
        if (v !== null) return v;
      }
      return null;
    };
    const title = one('title');
    if (!title) {
      rc.problem({ row, message: 'No title' });
      continue;
    }
    const key = one('key');
    // Without an id or key, the row's content is its identity: the same row is not imported twice.
    const id =
      one('id') ??
      key ??
      `row:${createHash('sha256').update(JSON.stringify(cells)).digest('hex').slice(0, 32)}`;
    const r = emptyRecord(row, id, title);
    r.key = key;
    r.url = one('url');
    const description = (f.get('description') ?? []).map((i) => cells[i] ?? '').find((v) => v.trim() !== '');
    r.description = description ?? null;
    r.type = one('type');
    r.priority = one('priority');
    r.status = one('status');
    r.assignee = one('assignee');
    r.reporter = one('reporter');
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
