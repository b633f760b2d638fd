import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { JsonStreamParser, type Mode, type PathSeg } from '../src/domain/backup/json-stream.js';

function parseAll(text: string, chunk: number): unknown {
  let result: unknown;
  const p = new JsonStreamParser({ mode: () => 'build', value: (_p, v) => (result = v) });
  const bytes = Buffer.from(text);
  for (let i = 0; i < bytes.length; i += chunk) p.write(bytes.subarray(i, i + chunk));
  p.end();
  return result;
}

describe('the streaming JSON parser used by restore', () => {
  it('parses any JSON document exactly like JSON.parse, whatever the chunk boundaries', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.integer({ min: 1, max: 9 }), (v, chunk) => {
        const text = JSON.stringify(v, null, chunk % 2 ? 2 : undefined);
        expect(parseAll(text, chunk)).toEqual(JSON.parse(text));
      }),
      { numRuns: 2000 },
    );
  });

  it('keeps a "__proto__" key as an own property, never as the prototype', () => {
    const text = '{"__proto__": {"is_system_admin": 1}, "a": {"__proto__": ""}}';
    const parsed = parseAll(text, 3) as Record<string, unknown>;
    expect(Object.getPrototypeOf(parsed)).toBe(Object.prototype);
    expect((parsed as { is_system_admin?: unknown }).is_system_admin).toBeUndefined();
    expect(Object.keys(parsed)).toEqual(['__proto__', 'a']);
    expect(parsed).toEqual(JSON.parse(text));
  });

  it('keeps multi-byte characters and escapes split across chunks', () => {
    const text = JSON.stringify({ s: 'żółw 🐢 "q" \\ \n \u0001 é' });
    for (let chunk = 1; chunk < 6; chunk++) expect(parseAll(text, chunk)).toEqual(JSON.parse(text));
  });

  it.each([
    '{"a":1',
    '{"a":}',
    '[1,]',
    '{"a" 1}',
    '"abc',
    'tru',
    '{}x',
    '[1 2]',
    '{"a":1,}',
    '01',
    '{"a":"\u0001"}',
    '',
  ])('rejects the malformed document %j', (bad) => {
    expect(() => parseAll(bad, 3)).toThrow();
  });

  it('streams chosen strings in pieces and hands walked records one at a time', () => {
    const doc = { rows: [{ id: 1 }, { id: 2 }], blob: 'x'.repeat(10_000), skip: { deep: [1, 2, 3] } };
    const rows: unknown[] = [];
    let blob = '';
    let pieces = 0;
    const mode = (path: readonly PathSeg[]): Mode => {
      if (path.length === 0 || (path.length === 1 && path[0] === 'rows')) return 'walk';
      if (path[0] === 'blob') return 'stream';
      if (path[0] === 'skip') return 'skip';
      return 'build';
    };
    const p = new JsonStreamParser({
      mode,
      value: (path, v) => rows.push([path.join('.'), v]),
      chunk: (_path, t) => {
        blob += t;
        pieces++;
      },
    });
    const bytes = Buffer.from(JSON.stringify(doc));
    for (let i = 0; i < bytes.length; i += 1000) p.write(bytes.subarray(i, i + 1000));
    p.end();
    expect(rows).toEqual([
      ['rows.0', { id: 1 }],
      ['rows.1', { id: 2 }],
    ]);
    expect(blob).toBe(doc.blob);
    expect(pieces).toBeGreaterThan(5);
  });
});
