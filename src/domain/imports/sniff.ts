/**
 * What a file looks like, from its first bytes, before an import reads it: empty, binary (with its
 * type when file-type knows it), JSON (a Trello board, GitHub issues, or other JSON) or CSV (a Jira
 * or Linear export by its header, or any CSV). A file that is plainly not the chosen format is
 * refused here, naming what it looks like; the readers check the rest (the header's columns, the
 * JSON's parts) as they meet them.
 */
import fs from 'node:fs/promises';
import { fileTypeFromBuffer } from 'file-type';
import type { ImportFormat } from '../../shared/imports.js';
import { CsvParser } from './csv-text.js';
import { wrongFormat } from './refusal.js';
import { sniffEncoding } from './source.js';

const HEAD_BYTES = 64 * 1024;

/** File types named when a file is one of them (an export saved in the wrong form, or the wrong file). */
const BINARY_TYPES = new Set([
  'xlsx',
  'xls',
  'cfb',
  'ods',
  'numbers',
  'docx',
  'pptx',
  'odt',
  'zip',
  'gz',
  'bz2',
  'xz',
  '7z',
  'rar',
  'tar',
  'pdf',
  'png',
  'jpg',
  'gif',
  'webp',
  'sqlite',
  'exe',
]);

export type Sniffed =
  | { kind: 'empty' | 'binary' | 'text'; looksLike: string }
  | { kind: 'json'; looksLike: string; shape: 'object' | 'array' }
  | { kind: 'csv'; looksLike: string };

/** Which CSV export a header row is (lower-cased, trimmed names): Jira's, Linear's, or just CSV. */
export function csvFlavour(names: string[]): 'jira-csv' | 'linear-csv' | 'csv' {
  const has = new Set(names.map((n) => n.trim().toLowerCase()));
  if (has.has('summary') && (has.has('issue key') || has.has('issue id'))) return 'jira-csv';
  if (
    (has.has('id') || has.has('identifier')) &&
    has.has('title') &&
    (has.has('team') || has.has('cycle number'))
  )
    return 'linear-csv';
  return 'csv';
}

async function head(file: string): Promise<Buffer> {
  const fh = await fs.open(file, 'r');
  try {
    const buf = Buffer.alloc(HEAD_BYTES);
    const { bytesRead } = await fh.read(buf, 0, HEAD_BYTES, 0);
    return buf.subarray(0, bytesRead);
  } finally {
    await fh.close();
  }
}

export async function sniffFile(file: string): Promise<Sniffed> {
  const bytes = await head(file);
  const type = bytes.length ? await fileTypeFromBuffer(bytes).catch(() => undefined) : undefined;
  // Only signatures that cannot be text (file-type also guesses some audio formats from a few bytes).
  if (type && BINARY_TYPES.has(type.ext)) return { kind: 'binary', looksLike: type.ext };
  const encoding = sniffEncoding(bytes);
  const text = new TextDecoder(encoding).decode(bytes, { stream: true });
  if (text.trim() === '') return { kind: 'empty', looksLike: 'empty' };
  // Text has no NUL and few control characters (tab, line ends and form feed aside).
  let controls = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0) return { kind: 'binary', looksLike: 'binary' };
    if (c < 9 || (c > 13 && c < 32)) controls++;
  }
  if (controls > text.length / 100) return { kind: 'binary', looksLike: 'binary' };
  const start = text.trimStart();
  if (start[0] === '{' || start[0] === '[') {
    const shape = start[0] === '{' ? 'object' : 'array';
    const trello =
      shape === 'object' && /"(?:idOrganization|labelNames|shortLink|idBoard|idList)"\s*:/.test(text);
    const github = shape === 'array' && /"number"\s*:/.test(text) && /"title"\s*:/.test(text);
    return { kind: 'json', shape, looksLike: trello ? 'trello-json' : github ? 'github-json' : 'json' };
  }
  // The header row: the first record, read with the strict CSV reader (a broken header is the readers' to report).
  const parser = new CsvParser();
  let names: string[] = [];
  try {
    const first = parser.feed(text.length < HEAD_BYTES ? text : text.slice(0, text.lastIndexOf('\n') + 1))[0];
    names = first?.cells ?? parser.finish()[0]?.cells ?? [];
  } catch {
    names = [];
  }
  if (names.length < 2 && !/^[^\r\n]*,/.test(start)) return { kind: 'text', looksLike: 'text' };
  return { kind: 'csv', looksLike: csvFlavour(names) };
}

const CSV_FORMATS: ImportFormat[] = ['jira-csv', 'linear-csv', 'csv'];

/** Refuses a file that is plainly not `format` (throws the ImportRefusal). */
export function expectFormat(format: ImportFormat, s: Sniffed): void {
  if (s.kind === 'empty') throw wrongFormat(format, 'empty', 'The file holds nothing to import');
  if (s.kind === 'binary') throw wrongFormat(format, s.looksLike);
  const wantsCsv = CSV_FORMATS.includes(format);
  if (wantsCsv && s.kind === 'json') throw wrongFormat(format, s.looksLike);
  if (!wantsCsv && s.kind !== 'json') throw wrongFormat(format, s.looksLike);
  if (s.kind !== 'json') return;
  if (format === 'trello-json' && s.shape === 'array')
    throw wrongFormat(format, s.looksLike, 'A Trello board export is one JSON object, not a list');
  if (format === 'github-json' && s.shape === 'object')
    throw wrongFormat(format, s.looksLike, 'A GitHub issues export is a JSON list of issues');
}
