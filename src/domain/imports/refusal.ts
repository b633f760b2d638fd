/**
 * A file an import refuses as a whole (docs/import.md "Strict reading"): malformed (CSV or JSON that
 * is not well-formed, a record with the wrong number of cells, a cut-short file) or not in the
 * chosen format. Readers throw or collect these; importTickets answers them as one 400
 * `{error, problems, looksLike?}` before anything is written.
 */
import { ERR } from '../../shared/errors.js';
import {
  IMPORT_FORMAT_NAMES,
  IMPORT_FORMATS,
  type ImportFileProblem,
  type ImportFormat,
} from '../../shared/imports.js';
import { AppError } from '../errors.js';

export class ImportRefusal extends Error {
  constructor(
    readonly kind: 'malformed' | 'format',
    readonly problems: ImportFileProblem[],
    /** What the file seems to be instead (see importRefusedOut.looksLike). */
    readonly looksLike?: string,
  ) {
    super(problems[0]?.message ?? 'Refused');
  }
}

/** The 400 of a refused file. */
export function refusalError(r: ImportRefusal): AppError {
  return new AppError(400, r.kind === 'format' ? ERR.importWrongFormat : ERR.importMalformed, {
    problems: r.problems,
    ...(r.looksLike ? { looksLike: r.looksLike } : {}),
  });
}

const KINDS: Record<string, string> = {
  json: 'JSON',
  csv: 'CSV',
  text: 'plain text',
  empty: 'an empty file',
  binary: 'a binary file',
  xlsx: 'an Excel workbook (.xlsx): save it as CSV first',
  xls: 'an Excel 97-2003 workbook (.xls): save it as CSV first',
  cfb: 'an Office 97-2003 document',
  zip: 'a ZIP archive: unpack it first',
  gz: 'a gzip archive: unpack it first',
  pdf: 'a PDF document',
};

/** What a file that `looksLike` something is, in words. */
export function describeKind(looksLike: string): string {
  if ((IMPORT_FORMATS as readonly string[]).includes(looksLike))
    return `${IMPORT_FORMAT_NAMES[looksLike as ImportFormat]}: choose that format`;
  return KINDS[looksLike] ?? `a .${looksLike} file`;
}

/** The refusal of a file that is not `format` but seems to be `looksLike`. */
export function wrongFormat(format: ImportFormat, looksLike: string, detail?: string): ImportRefusal {
  const base = `This is not a file of the format ${IMPORT_FORMAT_NAMES[format]}: it looks like ${describeKind(looksLike)}`;
  return new ImportRefusal('format', [{ message: detail ? `${base}. ${detail}` : base }], looksLike);
}
