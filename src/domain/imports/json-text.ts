/**
 * A strict, streamed JSON reader for the imports: the file's top level (an array, or an object whose
 * members may be arrays) is scanned from decoded text, and each array item (or other member value)
 * is cut out and parsed by itself with JSON.parse, so memory holds one item at a time. Anything
 * that is not well-formed JSON, and a file that ends before its top level closes (a cut-short
 * export), is a JsonSyntaxError with its line and column.
 */
import type { TextPlace } from './csv-text.js';

export class JsonSyntaxError extends Error {
  constructor(
    readonly place: TextPlace,
    message: string,
  ) {
    super(message);
  }
}

/** What the scan meets, in file order. */
export type JsonEvent =
  | { type: 'top'; shape: 'array' | 'object'; place: TextPlace }
  /** A member of a top-level object begins (its value follows as items or one value). */
  | { type: 'member'; key: string; place: TextPlace }
  /** An item of the top-level array (key null) or of an array member; or a member's value that is not an array (index -1). */
  | { type: 'item'; key: string | null; index: number; value: unknown; place: TextPlace };

export interface JsonScanOptions {
  /** Whether the items under this key (null: the top-level array) are parsed and answered. */
  want(key: string | null): boolean;
  /** Parse every value even when not wanted, so that any malformed part of the file is found. */
  checkAll: boolean;
}

const show = (ch: string | undefined) =>
  ch === undefined
    ? 'the end of the file'
    : ch === '"'
      ? 'a quote'
      : /\s/.test(ch)
        ? 'a space or line end'
        : `"${ch}"`;
const WS = /[^ \t\r\n]/g;
const BRACKETS = /["{}[\]]/g;
const SCALAR_END = /[,}\] \t\r\n]/g;

type State =
  | 'start'
  | 'key-or-end'
  | 'colon'
  | 'member-value'
  | 'member-comma'
  | 'item-or-end'
  | 'item-comma'
  | 'done';

/**
 * The scanner. `feed` takes the next text and answers the events it completes; `finish` ends the
 * text (a file that ends before its top level closes is an error naming where it was).
 */
export class JsonScanner {
  private buf = '';
  private line = 1;
  /** Offset of the current line's start in `buf` (negative once the line began in text dropped). */
  private lineStart = 0;
  private state: State = 'start';
  private top: 'array' | 'object' | null = null;
  /** Inside an array: the key it is under (null: the top-level array) and the next item's index. */
  private arrayKey: string | null = null;
  private index = 0;
  private key: string | null = null;
  private keyPlace: TextPlace = { line: 1, column: 1 };

  constructor(private readonly opts: JsonScanOptions) {}

  feed(text: string): JsonEvent[] {
    this.buf += text;
    return this.drain(false);
  }

  finish(): JsonEvent[] {
    return this.drain(true);
  }

  private place(at: number): TextPlace {
    return { line: this.line, column: at - this.lineStart + 1 };
  }

  /** Moves past text[from, to), counting its lines. */
  private advance(from: number, to: number) {
    for (let n = this.buf.indexOf('\n', from); n !== -1 && n < to; n = this.buf.indexOf('\n', n + 1)) {
      this.line++;
      this.lineStart = n + 1;
    }
  }

  private fail(at: number, message: string): never {
    throw new JsonSyntaxError(this.place(at), message);
  }

  /** Where the parts of the file are, for a cut-short file's message. */
  private where(): string {
    if (this.state === 'item-or-end' || this.state === 'item-comma')
      return this.arrayKey === null
        ? `inside its list, after ${this.index} item(s)`
        : `inside its "${this.arrayKey}" list, after ${this.index} item(s)`;
    if (this.key !== null && this.state !== 'key-or-end') return `inside its "${this.key}" part`;
    return 'before its end';
  }

  private drain(eof: boolean): JsonEvent[] {
    const out: JsonEvent[] = [];
    let i = 0;
    for (;;) {
      WS.lastIndex = i;
      const m = WS.exec(this.buf);
      if (!m) {
        this.advance(i, this.buf.length);
        i = this.buf.length;
        if (eof && this.state !== 'done')
          this.fail(
            i,
            this.state === 'start'
              ? 'The file holds no JSON'
              : `The file ends ${this.where()}: it is cut short (export it again, whole)`,
          );
        break;
      }
      this.advance(i, m.index);
      i = m.index;
      const next = this.step(i, eof, out);
      if (next === null) break;
      i = next;
    }
    this.buf = this.buf.slice(i);
    this.lineStart -= i;
    return out;
  }

  /** One step of the top-level grammar at `i` (not a space); null when more text is needed. */
  private step(i: number, eof: boolean, out: JsonEvent[]): number | null {
    const ch = this.buf[i];
    switch (this.state) {
      case 'start':
        if (ch !== '{' && ch !== '[')
          this.fail(i, `The file does not start with { or [ but with ${show(ch)}`);
        this.top = ch === '{' ? 'object' : 'array';
        out.push({ type: 'top', shape: this.top, place: this.place(i) });
        this.state = ch === '{' ? 'key-or-end' : 'item-or-end';
        this.arrayKey = null;
        this.index = 0;
        return i + 1;
      case 'key-or-end': {
        if (ch === '}') {
          if (this.key !== null) this.fail(i, 'A comma before } (a trailing comma is not JSON)');
          return this.close(i);
        }
        if (ch !== '"') this.fail(i, `Expected a member name in quotes or } here, found ${show(ch)}`);
        const end = this.valueEnd(i, eof);
        if (end === null) return null;
        this.keyPlace = this.place(i);
        this.key = this.parse(i, end, true) as string;
        out.push({ type: 'member', key: this.key, place: this.keyPlace });
        this.state = 'colon';
        return end;
      }
      case 'colon':
        if (ch !== ':') this.fail(i, `Expected : after the member name "${this.key}", found ${show(ch)}`);
        this.state = 'member-value';
        return i + 1;
      case 'member-value':
        if (ch === '[') {
          this.state = 'item-or-end';
          this.arrayKey = this.key;
          this.index = 0;
          return i + 1;
        }
        return this.value(i, eof, out, -1, 'member-comma');
      case 'item-or-end':
        if (ch === ']') {
          if (this.index > 0) this.fail(i, 'A comma before ] (a trailing comma is not JSON)');
          return this.closeArray(i);
        }
        return this.value(i, eof, out, this.index, 'item-comma');
      case 'item-comma':
        if (ch === ']') return this.closeArray(i);
        if (ch !== ',') this.fail(i, `Expected , or ] after an item of the list, found ${show(ch)}`);
        this.state = 'item-or-end';
        return i + 1;
      case 'member-comma':
        if (ch === '}') return this.close(i);
        if (ch !== ',') this.fail(i, `Expected , or } after the value of "${this.key}", found ${show(ch)}`);
        this.state = 'key-or-end';
        return i + 1;
      case 'done':
        return this.fail(i, `Text after the end of the JSON: ${show(ch)}`);
    }
  }

  private close(i: number) {
    this.state = 'done';
    return i + 1;
  }

  private closeArray(i: number) {
    if (this.arrayKey === null && this.top === 'array') return this.close(i);
    this.state = 'member-comma';
    return i + 1;
  }

  /** A value (an item, or a member's value) at `i`: cut out, parsed when wanted, answered. */
  private value(i: number, eof: boolean, out: JsonEvent[], index: number, then: State): number | null {
    const end = this.valueEnd(i, eof);
    if (end === null) return null;
    const key = index >= 0 ? this.arrayKey : this.key;
    const place = this.place(i);
    if (this.opts.want(key) || this.opts.checkAll) {
      const value = this.parse(i, end, false);
      if (this.opts.want(key)) out.push({ type: 'item', key, index, value, place });
    }
    this.advance(i, end);
    if (index >= 0) this.index++;
    this.state = then;
    return end;
  }

  /** JSON.parse of buf[i, end); a failure is located exactly (locate) and thrown with its place. */
  private parse(i: number, end: number, isKey: boolean): unknown {
    const text = this.buf.slice(i, end);
    try {
      return JSON.parse(text);
    } catch {
      const { at, message } = locate(text);
      const before = text.slice(0, at);
      const lines = before.split('\n');
      const place =
        lines.length === 1
          ? this.place(i + at)
          : { line: this.line + lines.length - 1, column: (lines.at(-1) as string).length + 1 };
      throw new JsonSyntaxError(place, isKey ? `A member name: ${message}` : message);
    }
  }

  /**
   * The end of the value starting at `i` (past its last character), or null when the text ends
   * inside it and more may come. At the end of the file, a value not closed is a cut-short file.
   */
  private valueEnd(i: number, eof: boolean): number | null {
    const buf = this.buf;
    const ch = buf[i];
    if (ch === '"') {
      const end = stringEnd(buf, i);
      if (end !== null) return end;
    } else if (ch === '{' || ch === '[') {
      let depth = 0;
      BRACKETS.lastIndex = i;
      for (let m = BRACKETS.exec(buf); m; m = BRACKETS.exec(buf)) {
        const c = buf[m.index];
        if (c === '"') {
          const end = stringEnd(buf, m.index);
          if (end === null) break;
          BRACKETS.lastIndex = end;
        } else if (c === '{' || c === '[') depth++;
        else if (--depth === 0) return m.index + 1;
      }
    } else {
      SCALAR_END.lastIndex = i;
      const m = SCALAR_END.exec(buf);
      if (m) return m.index;
    }
    if (!eof) return null;
    if (ch !== '"' && ch !== '{' && ch !== '[') return buf.length;
    return this.fail(
      i,
      `The file ends ${this.where()}, in the value that starts here: it is cut short (export it again, whole)`,
    );
  }
}

/** The end of the string starting at `i` (past its closing quote), or null when it does not end in `buf`. */
function stringEnd(buf: string, i: number): number | null {
  let j = i + 1;
  for (;;) {
    const q = buf.indexOf('"', j);
    if (q === -1) return null;
    let slashes = 0;
    while (buf[q - 1 - slashes] === '\\') slashes++;
    if (slashes % 2 === 0) return q + 1;
    j = q + 1;
  }
}

/**
 * Where JSON.parse failed in `text`, and why (JSON.parse names no place for some errors): a small
 * strict recursive-descent reading of the same grammar, run only when a value is malformed.
 */
export function locate(text: string): { at: number; message: string } {
  let i = 0;
  const fail = (message: string): never => {
    throw { at: i, message };
  };
  const ws = () => {
    while (i < text.length && ' \t\r\n'.includes(text[i])) i++;
  };
  const expect = (what: string, ok: (c: string | undefined) => boolean) => {
    ws();
    if (!ok(text[i])) fail(`Expected ${what}, found ${show(text[i])}`);
  };
  const string = () => {
    i++;
    for (;;) {
      const c = text[i];
      if (c === undefined) fail('A string is not closed: the quote that ends it is missing');
      if (c === '"') return void i++;
      if (c < ' ') fail('A line end or control character inside a string (write it as \\n or \\t)');
      if (c === '\\') {
        const e = text[i + 1];
        if (e === 'u') {
          if (!/^[0-9a-fA-F]{4}$/.test(text.slice(i + 2, i + 6)))
            fail('\\u must be followed by 4 hex digits');
          i += 6;
        } else if (e !== undefined && '"\\/bfnrt'.includes(e)) i += 2;
        else fail(`Not an escape in a string: \\${e ?? ''}`);
      } else i++;
    }
  };
  const value = (): void => {
    ws();
    const c = text[i];
    if (c === '{') {
      i++;
      ws();
      if (text[i] === '}') return void i++;
      for (;;) {
        expect('a member name in quotes', (x) => x === '"');
        string();
        expect(':', (x) => x === ':');
        i++;
        value();
        expect(', or }', (x) => x === ',' || x === '}');
        if (text[i++] === '}') return;
      }
    }
    if (c === '[') {
      i++;
      ws();
      if (text[i] === ']') return void i++;
      for (;;) {
        value();
        expect(', or ]', (x) => x === ',' || x === ']');
        if (text[i++] === ']') return;
        ws();
        if (text[i] === ']') fail('A comma before ] (a trailing comma is not JSON)');
      }
    }
    if (c === '"') {
      string();
      return;
    }
    const m = /^(?:-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null)/.exec(text.slice(i, i + 400));
    if (!m) fail(`${c === undefined ? 'The text ends' : `Found ${show(c)}`} where a value should be`);
    i += (m as RegExpExecArray)[0].length;
  };
  try {
    value();
    ws();
    if (i < text.length) fail(`Expected , or the end of the value, found ${show(text[i])}`);
    return { at: 0, message: 'Not valid JSON' };
  } catch (err) {
    if (err instanceof RangeError) return { at: 0, message: 'Not valid JSON (nested too deeply)' };
    return err as { at: number; message: string };
  }
}

/** The events of JSON text given in chunks. */
export async function* jsonEvents(
  chunks: AsyncIterable<string>,
  opts: JsonScanOptions,
): AsyncGenerator<JsonEvent> {
  const scanner = new JsonScanner(opts);
  for await (const chunk of chunks) yield* scanner.feed(chunk);
  yield* scanner.finish();
}
