/**
 * An incremental JSON parser for backups that may be far larger than memory. The visitor decides,
 * value by value, whether to build it (small records), walk into it (the top-level structure),
 * skip it, or receive a string in chunks (base64 file contents, which can be hundreds of megabytes).
 */

export type PathSeg = string | number;
export type ValueKind = 'object' | 'array' | 'string' | 'scalar';
export type Mode = 'walk' | 'build' | 'skip' | 'stream';

export interface JsonVisitor {
  /** How to treat the value starting at `path` inside a walked container (or the root). */
  mode(path: readonly PathSeg[], kind: ValueKind): Mode;
  /** A built value or a scalar directly inside a walked container. */
  value?(path: readonly PathSeg[], value: unknown): void;
  /** A piece of a streamed string (already unescaped). */
  chunk?(path: readonly PathSeg[], text: string): void;
  /** The end of a streamed string. */
  end?(path: readonly PathSeg[]): void;
}

export class JsonSyntaxError extends Error {}

type Expect = 'value' | 'keyOrEnd' | 'key' | 'colon' | 'commaOrEnd' | 'valueOrEnd' | 'done';

interface Frame {
  type: 'object' | 'array';
  mode: 'walk' | 'build' | 'skip';
  container: Record<string, unknown> | unknown[] | null;
  key: string;
  index: number;
}

interface StringState {
  role: 'key' | 'build' | 'skip' | 'stream';
  parts: string[];
  escape: boolean;
  unicode: string | null;
}

// A quote, a backslash, or a control character (not allowed raw in JSON strings).
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are exactly what this finds
const SPECIAL = /["\\\u0000-\u001f]/g;
const NUMBER = /^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?$/;
const ESCAPES: Record<string, string> = {
  '"': '"',
  '\\': '\\',
  '/': '/',
  b: '\b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
};

export class JsonStreamParser {
  private readonly stack: Frame[] = [];
  private expect: Expect = 'value';
  private str: StringState | null = null;
  private literal: string | null = null;
  private readonly decoder = new TextDecoder('utf-8', { fatal: true });
  private offset = 0;

  constructor(private readonly visitor: JsonVisitor) {}

  /** Feeds bytes (UTF-8; chunk boundaries may split characters). */
  write(bytes: Uint8Array): void {
    let text: string;
    try {
      text = this.decoder.decode(bytes, { stream: true });
    } catch {
      throw new JsonSyntaxError('The file is not valid UTF-8');
    }
    this.feed(text);
  }

  /** Ends the input; throws when the document is incomplete. */
  end(): void {
    try {
      this.feed(this.decoder.decode());
    } catch (err) {
      if (err instanceof JsonSyntaxError) throw err;
      throw new JsonSyntaxError('The file is not valid UTF-8');
    }
    if (this.literal !== null) this.finishLiteral();
    if (this.expect !== 'done' || this.str)
      throw new JsonSyntaxError('Unexpected end of file (the backup is truncated)');
  }

  private fail(message: string): never {
    throw new JsonSyntaxError(`${message} at character ${this.offset}`);
  }

  private currentPath(): PathSeg[] {
    return this.stack.map((f) => (f.type === 'object' ? f.key : f.index));
  }

  private childMode(kind: ValueKind): Mode {
    const top = this.stack[this.stack.length - 1];
    if (top && top.mode !== 'walk') return top.mode;
    return this.visitor.mode(this.currentPath(), kind);
  }

  private feed(text: string): void {
    const n = text.length;
    let i = 0;
    while (i < n) {
      if (this.str) {
        i = this.readString(text, i);
        continue;
      }
      const c = text[i];
      if (this.literal !== null) {
        if (/[-+0-9.eEa-z]/.test(c)) {
          this.literal += c;
          if (this.literal.length > 400) this.fail('Number or literal too long');
          i++;
          this.offset++;
          continue;
        }
        this.finishLiteral();
      }
      if (c === ' ' || c === '\n' || c === '\r' || c === '\t') {
        i++;
        this.offset++;
        continue;
      }
      i++;
      this.offset++;
      switch (this.expect) {
        case 'done':
          this.fail('Unexpected content after the end of the document');
          break;
        case 'colon':
          if (c !== ':') this.fail('Expected ":"');
          this.expect = 'value';
          break;
        case 'keyOrEnd':
        case 'key':
          if (c === '}' && this.expect === 'keyOrEnd') this.closeContainer('object');
          else if (c === '"') this.str = { role: 'key', parts: [], escape: false, unicode: null };
          else this.fail('Expected a property name');
          break;
        case 'commaOrEnd': {
          const top = this.stack[this.stack.length - 1];
          if (c === ',') {
            if (top.type === 'object') this.expect = 'key';
            else {
              top.index++;
              this.expect = 'value';
            }
          } else if ((c === '}' && top.type === 'object') || (c === ']' && top.type === 'array')) {
            this.closeContainer(top.type);
          } else this.fail('Expected "," or the end of the container');
          break;
        }
        case 'valueOrEnd':
          if (c === ']') {
            this.closeContainer('array');
            break;
          }
          this.startValue(c);
          break;
        case 'value':
          this.startValue(c);
          break;
      }
    }
  }

  private startValue(c: string): void {
    if (c === '{' || c === '[') {
      const type = c === '{' ? 'object' : 'array';
      const mode = this.childMode(type);
      const frameMode = mode === 'stream' ? 'build' : mode;
      this.stack.push({
        type,
        mode: frameMode,
        container: frameMode === 'build' ? (type === 'object' ? {} : []) : null,
        key: '',
        index: 0,
      });
      this.expect = type === 'object' ? 'keyOrEnd' : 'valueOrEnd';
      return;
    }
    if (c === '"') {
      const mode = this.childMode('string');
      this.str = { role: mode === 'walk' ? 'build' : mode, parts: [], escape: false, unicode: null };
      return;
    }
    if (/[-0-9tfn]/.test(c)) {
      this.literal = c;
      return;
    }
    this.fail(`Unexpected character ${JSON.stringify(c)}`);
  }

  private finishLiteral(): void {
    const lit = this.literal as string;
    this.literal = null;
    let value: unknown;
    if (lit === 'true') value = true;
    else if (lit === 'false') value = false;
    else if (lit === 'null') value = null;
    else if (NUMBER.test(lit)) value = Number(lit);
    else this.fail(`Invalid value ${JSON.stringify(lit.slice(0, 20))}`);
    const mode = this.childMode('scalar');
    this.complete(value, mode === 'skip');
  }

  /** A value finished: attach it to a built parent, or hand it to the visitor. */
  private complete(value: unknown, skipped: boolean): void {
    const top = this.stack[this.stack.length - 1];
    if (!top) {
      if (!skipped) this.visitor.value?.([], value);
      this.expect = 'done';
      return;
    }
    if (top.mode === 'build') {
      if (top.type === 'object') {
        // Like JSON.parse: "__proto__" becomes an own property, never the object's prototype.
        Object.defineProperty(top.container as object, top.key, {
          value,
          enumerable: true,
          writable: true,
          configurable: true,
        });
      } else (top.container as unknown[]).push(value);
    } else if (top.mode === 'walk' && !skipped) {
      this.visitor.value?.(this.currentPath(), value);
    }
    this.expect = 'commaOrEnd';
  }

  private closeContainer(type: 'object' | 'array'): void {
    const frame = this.stack.pop() as Frame;
    if (frame.type !== type) this.fail('Mismatched brackets');
    if (frame.mode === 'build') this.complete(frame.container, false);
    else {
      // A walked or skipped container ends; its parent (if walked) does not get a value.
      this.expect = this.stack.length === 0 ? 'done' : 'commaOrEnd';
    }
  }

  /** Reads string content from `i`; returns the next index. */
  private readString(text: string, start: number): number {
    const s = this.str as StringState;
    let i = start;
    const n = text.length;
    while (i < n) {
      if (s.unicode !== null) {
        const need = 4 - s.unicode.length;
        const take = text.slice(i, i + need);
        s.unicode += take;
        i += take.length;
        this.offset += take.length;
        if (s.unicode.length < 4) return i;
        if (!/^[0-9a-fA-F]{4}$/.test(s.unicode)) this.fail('Invalid \\u escape');
        this.emitText(s, String.fromCharCode(Number.parseInt(s.unicode, 16)));
        s.unicode = null;
        continue;
      }
      if (s.escape) {
        const c = text[i];
        i++;
        this.offset++;
        s.escape = false;
        if (c === 'u') s.unicode = '';
        else if (ESCAPES[c] !== undefined) this.emitText(s, ESCAPES[c]);
        else this.fail('Invalid escape');
        continue;
      }
      SPECIAL.lastIndex = i;
      const m = SPECIAL.exec(text);
      const stop = m ? m.index : n;
      if (stop > i) {
        this.emitText(s, text.slice(i, stop));
        this.offset += stop - i;
      }
      i = stop;
      if (!m) return i;
      const c = text[i];
      i++;
      this.offset++;
      if (c === '\\') {
        s.escape = true;
        continue;
      }
      if (c !== '"') this.fail('Control character in a string');
      this.str = null;
      this.finishString(s);
      return i;
    }
    return i;
  }

  private emitText(s: StringState, t: string): void {
    if (s.role === 'stream') this.visitor.chunk?.(this.currentPath(), t);
    else if (s.role !== 'skip') s.parts.push(t);
  }

  private finishString(s: StringState): void {
    if (s.role === 'key') {
      const top = this.stack[this.stack.length - 1];
      top.key = s.parts.join('');
      this.expect = 'colon';
      return;
    }
    if (s.role === 'stream') {
      this.visitor.end?.(this.currentPath());
      this.expect = this.stack.length === 0 ? 'done' : 'commaOrEnd';
      return;
    }
    this.complete(s.role === 'skip' ? undefined : s.parts.join(''), s.role === 'skip');
  }
}
