/**
 * What every importer reads a source file into: one SourceRecord per ticket, in the source's own
 * words (status names, people's names, keys), before the mapping step turns them into Docket's.
 * Also the shared reading helpers: text decoding (BOMs, UTF-16, Windows-1252) and dates.
 */
import fs from 'node:fs';
import type { ImportFileProblem, ImportMapping, ImportProblem } from '../../shared/imports.js';

/** Records written per transaction. */
export const IMPORT_BATCH = 1000;
/** Rows per insert statement (25 ticket columns stay under every dialect's parameter limit). */
export const IMPORT_CHUNK = 400;

export type SourceLinkType = 'blocks' | 'is_blocked_by' | 'duplicates' | 'is_duplicated_by' | 'relates_to';

/**
 * A person as the source names them: `name` as the source shows it (a full name where it has one),
 * `aliases` the other ways it names them (username, e-mail). Matched by any of them.
 */
export interface SourcePerson {
  name: string;
  aliases: string[];
}

/** A person from the source's names (the first non-empty is the shown name), or null when all are empty. */
export function sourcePerson(...names: (string | null | undefined)[]): SourcePerson | null {
  const all = [...new Set(names.map((n) => n?.trim()).filter((n): n is string => !!n))];
  return all.length ? { name: all[0], aliases: all.slice(1) } : null;
}

export interface SourceComment {
  author: SourcePerson | null;
  createdAt: string | null;
  body: string;
}

export interface SourceRecord {
  /** Problems are reported with this number (see importProblem.row), and the line the record starts on. */
  row: number;
  line?: number;
  /** The source's stable id of the ticket: what makes a re-run find it. */
  sourceId: string;
  /** The ticket's key in the source (ABC-12, #34), and its address there. */
  key: string | null;
  url: string | null;
  title: string;
  description: string | null;
  type: string | null;
  priority: string | null;
  status: string | null;
  assignee: SourcePerson | null;
  reporter: SourcePerson | null;
  labels: string[];
  /** Archived in the source (Trello: the card or its list; Linear: the Archived column): see mapping.archived. */
  archived: boolean;
  /** The archived list it is in (Trello), which gets no column. */
  archivedList: string | null;
  storyPoints: number | null;
  sprint: string | null;
  startDate: string | null;
  dueDate: string | null;
  createdAt: string | null;
  updatedAt: string | null;
  /** The parent's source id or key. */
  parent: string | null;
  /** Other tickets of the source (by id or key), as seen from this one. */
  links: { type: SourceLinkType; ref: string }[];
  comments: SourceComment[];
  /** Files attached in the source, by name and address (kept as links: the files stay there). */
  attachments: { name: string; url: string }[];
  estimate: string | null;
  environment: string | null;
  affectedVersion: string | null;
  fixVersion: string | null;
}

/** A record with every optional part empty. */
export const emptyRecord = (row: number, sourceId: string, title: string): SourceRecord => ({
  row,
  sourceId,
  key: null,
  url: null,
  title,
  description: null,
  type: null,
  priority: null,
  status: null,
  assignee: null,
  reporter: null,
  labels: [],
  archived: false,
  archivedList: null,
  storyPoints: null,
  sprint: null,
  startDate: null,
  dueDate: null,
  createdAt: null,
  updatedAt: null,
  parent: null,
  links: [],
  comments: [],
  attachments: [],
  estimate: null,
  environment: null,
  affectedVersion: null,
  fixVersion: null,
});

/** What a reader is given: the file, the mapping, where to report problems and bytes read. */
export interface ReadContext {
  file: string;
  mapping: ImportMapping;
  /** A record that is read but left out, or what was left out of one (the import goes on). */
  problem(p: ImportProblem): void;
  /** Malformed input: the file will be refused as a whole (the reader may go on to find more). */
  malformed(p: ImportFileProblem): void;
  /** Called with the bytes read so far (for progress). */
  onBytes?(read: number): void;
}

export type Reader = (rc: ReadContext) => AsyncIterable<SourceRecord>;

/** The file's bytes as they are read, counted for progress. */
export async function* fileBytes(rc: ReadContext): AsyncGenerator<Buffer> {
  let read = 0;
  for await (const chunk of fs.createReadStream(rc.file, { highWaterMark: 256 * 1024 })) {
    read += (chunk as Buffer).length;
    rc.onBytes?.(read);
    yield chunk as Buffer;
  }
}

/**
 * The encoding of a file from its first bytes: a byte-order mark names it (UTF-8, UTF-16 LE/BE);
 * without one, text that is valid UTF-8 is UTF-8, and anything else is read as Windows-1252 (what
 * spreadsheet programs write as "CSV" on Windows; it also covers ISO-8859-1).
 */
export function sniffEncoding(head: Buffer): 'utf-8' | 'utf-16le' | 'utf-16be' | 'windows-1252' {
  if (head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf) return 'utf-8';
  if (head[0] === 0xff && head[1] === 0xfe) return 'utf-16le';
  if (head[0] === 0xfe && head[1] === 0xff) return 'utf-16be';
  try {
    // Stream mode: a character cut at the end of the sample is not an error.
    new TextDecoder('utf-8', { fatal: true }).decode(head, { stream: true });
    return 'utf-8';
  } catch {
    return 'windows-1252';
  }
}

/** The file as text, decoded by its sniffed encoding, byte-order mark removed; memory stays flat. */
export async function* decodedText(rc: ReadContext): AsyncGenerator<string> {
  let decoder: TextDecoder | null = null;
  for await (const chunk of fileBytes(rc)) {
    decoder ??= new TextDecoder(sniffEncoding(chunk));
    const text = decoder.decode(chunk, { stream: true });
    if (text) yield text;
  }
  const rest = decoder?.decode() ?? '';
  if (rest) yield rest;
}

const MONTHS: Record<string, number> = {
  jan: 0,
  feb: 1,
  mar: 2,
  apr: 3,
  may: 4,
  jun: 5,
  jul: 6,
  aug: 7,
  sep: 8,
  oct: 9,
  nov: 10,
  dec: 11,
};

/**
 * A timestamp from the forms the sources write: ISO 8601; Jira's `08/Feb/24 10:42 AM` (also with a
 * four-digit year or 24-hour time), taken as UTC; anything `Date` reads. Null when empty or unreadable.
 */
export function parseTimestamp(value: string | null | undefined): string | null {
  const v = value?.trim();
  if (!v) return null;
  const jira =
    /^(\d{1,2})\/([A-Za-z]{3})\/(\d{2}|\d{4})(?:\s+(\d{1,2}):(\d{2})(?::(\d{2}))?\s*([AaPp][Mm])?)?$/.exec(v);
  if (jira) {
    const [, d, mon, y, h = '0', min = '0', s = '0', ampm] = jira;
    const month = MONTHS[mon.toLowerCase()];
    if (month === undefined) return null;
    let hour = Number(h);
    if (ampm) hour = (hour % 12) + (ampm.toLowerCase() === 'pm' ? 12 : 0);
    const year = y.length === 2 ? 2000 + Number(y) : Number(y);
    const t = Date.UTC(year, month, Number(d), hour, Number(min), Number(s));
    return Number.isNaN(t) ? null : new Date(t).toISOString();
  }
  // A date-time without a zone reads as UTC, not as the server's local time.
  const local = /^\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}(:\d{2}(\.\d+)?)?$/.test(v) ? `${v.replace(' ', 'T')}Z` : v;
  const t = Date.parse(/^\d{4}-\d{2}-\d{2}$/.test(local) ? `${local}T00:00:00Z` : local);
  return Number.isNaN(t) ? null : new Date(t).toISOString();
}

/** A calendar date (YYYY-MM-DD) from the same forms, or null. */
export function parseDay(value: string | null | undefined): string | null {
  const v = value?.trim();
  if (!v) return null;
  if (/^\d{4}-\d{2}-\d{2}$/.test(v)) return parseTimestamp(v) ? v : null;
  return parseTimestamp(v)?.slice(0, 10) ?? null;
}

/** A number of story points, or null when empty or not a number. */
export function parsePoints(value: string | number | null | undefined): number | null {
  if (value === null || value === undefined || value === '') return null;
  const n = typeof value === 'number' ? value : Number(String(value).trim().replace(',', '.'));
  return Number.isFinite(n) && n > 0 ? n : null;
}

/** Trimmed text, or null when empty. */
export const clean = (v: unknown): string | null => {
  if (typeof v !== 'string') return null;
  const t = v.trim();
  return t === '' ? null : t;
};
