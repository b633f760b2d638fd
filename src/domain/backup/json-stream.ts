/**
 * Reads a backup that may be far larger than memory, on stream-json's tokenizer (its synchronous
 * core, `jsonParser`): the visitor decides, value by value, whether to build it (small records),
 * walk into it (the top-level structure), skip it, or receive a string in chunks (base64 file
 * contents, which can be hundreds of megabytes). The tokenizer checks the syntax; this file only
 * turns tokens into the visitor's calls (docs/decisions/032-one-contract-per-shape.md).
 */
import { getManyValues, isMany, none } from 'stream-chain/defs.js';
import { jsonParser } from 'stream-json/core/parser.js';

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

interface Frame {
  type: 'object' | 'array';
  mode: 'walk' | 'build' | 'skip';
  container: Record<string, unknown> | unknown[] | null;
  key: string;
  index: number;
}

type Token = { name: string; value?: unknown };

/** Sets a property as an own one, `__proto__` included (never the prototype). */
function setOwn(target: Record<string, unknown>, key: string, value: unknown) {
  if (key === '__proto__')
    Object.defineProperty(target, key, { value, writable: true, enumerable: true, configurable: true });
  else target[key] = value;
}

export class JsonStreamParser {
  private readonly tokens = jsonParser({
    packKeys: true,
    streamKeys: false,
    packStrings: false,
    streamStrings: true,
    packNumbers: true,
    streamNumbers: false,
  });
  private readonly decoder = new TextDecoder('utf-8', { fatal: true });
  private readonly stack: Frame[] = [];
  /** The string being read: its mode and, when built, its pieces. */
  private str: { mode: Mode; parts: string[] } | null = null;
  private done = false;
  /** Characters read so far, for the position in error messages. */
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
    if (text) this.feed(text);
  }

  /** Ends the input; throws when the document is incomplete. */
  end(): void {
    let rest: string;
    try {
      rest = this.decoder.decode();
    } catch {
      throw new JsonSyntaxError('The file is not valid UTF-8');
    }
    if (rest) this.feed(rest);
    this.feed(none);
    if (!this.done) throw new JsonSyntaxError('Unexpected end of file (the backup is truncated)');
  }

  private feed(input: string | typeof none): void {
    let out: unknown;
    try {
      out = this.tokens(input as string);
    } catch (err) {
      // At the end of the input, whatever is missing means the file stops early.
      if (input === none) throw new JsonSyntaxError('Unexpected end of file (the backup is truncated)');
      const message = String((err as Error).message ?? err).replace(/^Parser cannot parse input: /, '');
      throw new JsonSyntaxError(
        `${message[0].toUpperCase()}${message.slice(1)} near character ${this.offset}`,
      );
    }
    if (input !== none) this.offset += input.length;
    if (out === none) return;
    if (isMany(out)) for (const t of getManyValues(out) as Token[]) this.token(t);
    else this.token(out as Token);
  }

  private path(): PathSeg[] {
    return this.stack.map((f) => (f.type === 'object' ? f.key : f.index));
  }

  /** The mode of a value starting here: inherited inside built or skipped containers. */
  private modeOf(kind: ValueKind): Mode {
    const top = this.stack[this.stack.length - 1];
    if (top && top.mode !== 'walk') return top.mode;
    return this.visitor.mode(this.path(), kind);
  }

  /** A complete value (built, or a scalar) in its place: into the container being built, or to the visitor. */
  private place(value: unknown): void {
    const top = this.stack[this.stack.length - 1];
    if (top && top.mode === 'build') {
      if (top.type === 'object') setOwn(top.container as Record<string, unknown>, top.key, value);
      else (top.container as unknown[]).push(value);
    } else {
      this.visitor.value?.(this.path(), value);
    }
    this.afterValue();
  }

  /** After a value: the next array index, or the end of the document. */
  private afterValue(): void {
    const top = this.stack[this.stack.length - 1];
    if (!top) this.done = true;
    else if (top.type === 'array') top.index++;
  }

  private open(type: 'object' | 'array'): void {
    const mode = this.modeOf(type);
    if (mode === 'stream') throw new JsonSyntaxError(`Only strings can be streamed, not an ${type}`);
    this.stack.push({
      type,
      mode,
      container: mode === 'build' ? (type === 'object' ? {} : []) : null,
      key: '',
      index: 0,
    });
  }

  private close(): void {
    const frame = this.stack.pop() as Frame;
    if (frame.mode === 'build') this.place(frame.container);
    else this.afterValue();
  }

  private scalar(value: unknown) {
    if (this.modeOf('scalar') === 'skip') return this.afterValue();
    this.place(value);
  }

  private token(t: Token) {
    switch (t.name) {
      case 'startObject':
        return this.open('object');
      case 'startArray':
        return this.open('array');
      case 'endObject':
      case 'endArray':
        return this.close();
      case 'keyValue': {
        const top = this.stack[this.stack.length - 1];
        top.key = t.value as string;
        return;
      }
      case 'startString':
        this.str = { mode: this.modeOf('string'), parts: [] };
        return;
      case 'stringChunk': {
        const s = this.str as NonNullable<typeof this.str>;
        if (s.mode === 'stream') this.visitor.chunk?.(this.path(), t.value as string);
        else if (s.mode !== 'skip') s.parts.push(t.value as string);
        return;
      }
      case 'endString': {
        const s = this.str as NonNullable<typeof this.str>;
        this.str = null;
        if (s.mode === 'stream') {
          this.visitor.end?.(this.path());
          return this.afterValue();
        }
        if (s.mode === 'skip') return this.afterValue();
        return this.place(s.parts.join(''));
      }
      case 'numberValue':
        return this.scalar(Number(t.value));
      case 'trueValue':
      case 'falseValue':
      case 'nullValue':
        return this.scalar(t.value);
      default:
        return;
    }
  }
}
