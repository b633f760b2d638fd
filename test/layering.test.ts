import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * The layers of src/ (docs/ARCHITECTURE.md) as an import graph read from the sources. Only value
 * imports count for cycles (`import type` is erased), every import counts for the layer rules.
 */
const src = path.resolve(import.meta.dirname, '../src');

interface Edge {
  from: string;
  to: string;
  typeOnly: boolean;
}

function files(): string[] {
  return fs
    .readdirSync(src, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && /\.tsx?$/.test(e.name))
    .map((e) => path.relative(src, path.join(e.parentPath, e.name)));
}

function edges(): Edge[] {
  const out: Edge[] = [];
  for (const file of files()) {
    const text = fs.readFileSync(path.join(src, file), 'utf8');
    for (const m of text.matchAll(/^(import|export)(\s+type)?[^'";]*?from\s+'([^']+)'/gms)) {
      const spec = m[3];
      if (!spec.startsWith('.')) {
        out.push({ from: file, to: spec, typeOnly: Boolean(m[2]) });
        continue;
      }
      const target = path
        .relative(src, path.resolve(path.dirname(path.join(src, file)), spec))
        .replace(/\.js$/, '.ts');
      const resolved = fs.existsSync(path.join(src, target))
        ? target
        : fs.existsSync(path.join(src, `${target}.ts`))
          ? `${target}.ts`
          : fs.existsSync(path.join(src, `${target}.tsx`))
            ? `${target}.tsx`
            : target;
      out.push({ from: file, to: resolved, typeOnly: Boolean(m[2]) });
    }
  }
  return out;
}

const layer = (file: string) => file.split('/')[0];
const all = edges();
const between = (from: string, to: (target: string) => boolean) =>
  all.filter((e) => layer(e.from) === from && to(e.to)).map((e) => `${e.from} -> ${e.to}`);

describe('layering of src/', () => {
  it('reads a real graph', () => {
    expect(all.length).toBeGreaterThan(300);
    expect(all.some((e) => e.from === 'server/app.ts' && e.to === 'config.ts')).toBe(true);
  });

  it('the domain does not import the server layer', () => {
    expect(between('domain', (t) => t.startsWith('server/'))).toEqual([]);
  });

  it('src/shared imports nothing from node, the DOM or another layer', () => {
    expect(
      between('shared', (t) => t.startsWith('node:') || (t.includes('/') && !t.startsWith('shared/'))),
    ).toEqual([]);
  });

  it('src/files runs no SQL and throws no HTTP errors', () => {
    expect(
      between('files', (t) => t.startsWith('db/') || t === 'domain/errors.ts' || t === 'kysely'),
    ).toEqual([]);
  });

  it('the web app imports only itself and src/shared', () => {
    expect(
      between('web', (t) => t.includes('.ts') && !t.startsWith('web/') && !t.startsWith('shared/')),
    ).toEqual([]);
  });

  it('has no import cycle between folders of src/ (value imports)', () => {
    const graph = new Map<string, Set<string>>();
    for (const e of all) {
      if (e.typeOnly || !e.to.includes('.ts')) continue;
      const [a, b] = [layer(e.from), layer(e.to)];
      if (a === b || a.endsWith('.ts') || b.endsWith('.ts')) continue;
      if (!graph.has(a)) graph.set(a, new Set());
      graph.get(a)?.add(b);
    }
    const cycles: string[] = [];
    const visit = (node: string, trail: string[]) => {
      if (trail.includes(node)) {
        cycles.push([...trail.slice(trail.indexOf(node)), node].join(' -> '));
        return;
      }
      for (const next of graph.get(node) ?? []) visit(next, [...trail, node]);
    };
    for (const node of graph.keys()) visit(node, []);
    expect(cycles).toEqual([]);
  });
});
