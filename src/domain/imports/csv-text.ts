/**
 * A strict CSV reader (RFC 4180) for the imports: records are streamed from decoded text, each with
 * the line it starts on; anything that is not well-formed CSV is an error with its line and column
 * (1-based, in characters), so a file is refused rather than read wrong. Strict means: a quote
 * opens a cell only at its start, a quoted cell ends with a quote followed by a comma, a line end or
 * the end of the file, a quote inside a quoted cell is written twice, and a quote inside an
 * unquoted cell is an error. Blank lines between records are skipped. How many cells a record must
 * have is the caller's rule (csv.ts: as many as the header).
 *
 * Also the spreadsheet-formula neutralisation shared with the export (docs/import.md "Export").
 */

/** A place in the text: 1-based line and column (characters). */
export interface TextPlace {
  line: number;
  column: number;
}

/** Malformed CSV at a place; the message says what is wrong there and what was expected. */
export class CsvSyntaxError extends Error {
  constructor(
    readonly place: TextPlace,
    message: string,
  ) {
    super(message);
  }
}

export interface CsvRecord {
  cells: string[];
  /** Where the record starts. */
  line: number;
  /** The column where each cell starts, on the line it starts on (for errors about a cell). */
  starts: TextPlace[];
  /** Where the record ends (after its last cell), for "too few cells" errors. */
  end: TextPlace;
}

const SPECIAL = /[,\r\n"]/g;
const show = (ch: string) => (ch === '\t' ? 'a tab' : ch === ' ' ? 'a space' : `"${ch}"`);

/**
 * Parses CSV text given in chunks. `records` is driven by `feed` and `finish`: each returns the
 * records completed by the text so far (a record at the end of a chunk waits for the next chunk,
 * since a quoted cell may go on).
 */
export class CsvParser {
  private buf = '';
  private line = 1;
  /** An error met after records that are answered first: thrown at the next call. */
  private failed: CsvSyntaxError | null = null;

  feed(text: string): CsvRecord[] {
    this.buf += text;
    return this.drain(false);
  }

  finish(): CsvRecord[] {
    return this.drain(true);
  }

  private drain(eof: boolean): CsvRecord[] {
    if (this.failed) throw this.failed;
    const out: CsvRecord[] = [];
    let at = 0;
    try {
      for (;;) {
        const r = this.record(at, eof);
        if (r === null) break;
        if (r.record) out.push(r.record);
        at = r.next;
        if (at >= this.buf.length && eof) break;
      }
    } catch (err) {
      if (!(err instanceof CsvSyntaxError) || out.length === 0) throw err;
      this.failed = err;
    }
    this.buf = this.buf.slice(at);
    return out;
  }

  /**
   * One record from `from` (always the start of a line), or null when the text ends inside it and
   * more may come. A blank line answers `record: undefined`.
   */
  private record(from: number, eof: boolean): { record?: CsvRecord; next: number } | null {
    const buf = this.buf;
    if (from >= buf.length) return null;
    const first = this.line;
    let line = first;
    let lineStart = from;
    let i = from;
    // A blank line (nothing before its end) is skipped.
    if (buf[i] === '\n' || buf[i] === '\r') {
      const len = buf[i] === '\r' && buf[i + 1] === '\n' ? 2 : 1;
      if (buf[i] === '\r' && i + 1 >= buf.length && !eof) return null;
      this.line++;
      return { next: i + len };
    }
    const cells: string[] = [];
    const starts: TextPlace[] = [];
    for (;;) {
      starts.push({ line, column: i - lineStart + 1 });
      let value: string;
      if (buf[i] === '"') {
        const open = { line, column: i - lineStart + 1 };
        let j = i + 1;
        value = '';
        for (;;) {
          const q = buf.indexOf('"', j);
          if (q === -1) {
            if (!eof) return null;
            throw new CsvSyntaxError(
              open,
              `The quoted cell that opens here is never closed: the file ends inside it (a quote is missing, or a quote inside the cell is not written twice)`,
            );
          }
          value += buf.slice(j, q);
          if (q + 1 >= buf.length && !eof) return null;
          if (buf[q + 1] === '"') {
            value += '"';
            j = q + 2;
            continue;
          }
          // Lines inside the quoted cell.
          for (let n = buf.indexOf('\n', i); n !== -1 && n < q; n = buf.indexOf('\n', n + 1)) {
            line++;
            lineStart = n + 1;
          }
          i = q + 1;
          break;
        }
        const after = buf[i];
        if (i < buf.length && after !== ',' && after !== '\n' && after !== '\r')
          throw new CsvSyntaxError(
            open,
            `The quoted cell that opens here does not end properly: at line ${line}, column ${i - lineStart + 1} a quote is followed by ${show(after)} instead of a comma or a line end (its closing quote is missing, or a quote inside it is not written twice)`,
          );
      } else {
        SPECIAL.lastIndex = i;
        const m = SPECIAL.exec(buf);
        const end = m ? m.index : buf.length;
        if (!m && !eof) return null;
        if (m && buf[end] === '"')
          throw new CsvSyntaxError(
            { line, column: end - lineStart + 1 },
            'A quote inside a cell that does not start with one: put the whole cell in quotes and write the quote twice',
          );
        value = buf.slice(i, end);
        i = end;
      }
      cells.push(value);
      const ch = buf[i];
      if (ch === ',') {
        i++;
        if (i >= buf.length && !eof) return null;
        continue;
      }
      const end = { line, column: i - lineStart + 1 };
      if (ch === '\r') {
        if (i + 1 >= buf.length && !eof) return null;
        i += buf[i + 1] === '\n' ? 2 : 1;
      } else if (ch === '\n') i++;
      this.line = line + 1;
      return { record: { cells, line: first, starts, end }, next: i };
    }
  }
}

/** The records of CSV text given in chunks. */
export async function* csvRecords(chunks: AsyncIterable<string>): AsyncGenerator<CsvRecord> {
  const parser = new CsvParser();
  for await (const chunk of chunks) yield* parser.feed(chunk);
  yield* parser.finish();
}

// --- spreadsheet formulas --------------------------------------------------------------------

/** A cell a spreadsheet program would read as a formula (OWASP's list), or one already neutralised. */
const FORMULA = /^'*[=+\-@\t\r]/;

/** The export: a cell that starts like a formula gets a `'` in front, which spreadsheets show as text. */
export const neutralise = (cell: string) => (FORMULA.test(cell) ? `'${cell}` : cell);

/** The importers: the exact inverse of `neutralise` (one `'` taken off such a cell). */
export const unneutralise = (cell: string) =>
  cell.startsWith("'") && FORMULA.test(cell) ? cell.slice(1) : cell;
