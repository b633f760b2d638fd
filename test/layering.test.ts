import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { describeEdge, type Edge, importGraph, layerOf, root } from './helpers/import-graph.js';

/**
 * The layers of src/ (docs/ARCHITECTURE.md, "Layers"), checked on the import graph the compiler
 * reads (test/helpers/import-graph.ts: TypeScript's own parsing and module resolution, `import()`
 * and workers included). Each `it` below is one rule of that list, in its order.
 */
const graph = importGraph();
const { edges } = graph;

const isPkg = (to: string, ...names: string[]) =>
  names.some((n) => to === `pkg:${n}` || to.startsWith(`pkg:${n}/`));
const inLayer = (e: Edge, ...layers: string[]) => layers.includes(layerOf(e.from));
const targetLayer = (e: Edge) => (e.to.startsWith('node:') || e.to.startsWith('pkg:') ? null : layerOf(e.to));
/** The edges out of `layers` that break `bad`, as readable lines. */
const breaches = (layers: string[], bad: (e: Edge) => boolean) =>
  edges.filter((e) => inLayer(e, ...layers) && bad(e)).map(describeEdge);

const HTTP = (e: Edge) =>
  isPkg(e.to, 'fastify', '@fastify') || ['node:http', 'node:https', 'node:http2'].includes(e.to);
const SQL = (e: Edge) => targetLayer(e) === 'db' || isPkg(e.to, 'kysely', 'pg', 'better-sqlite3');

/** Globals of the browser (lib.dom.d.ts) and of Node that src/shared may not use. */
function environmentGlobals(): Set<string> {
  const lib = path.join(root, 'node_modules', 'typescript', 'lib');
  const names = (file: string, re: RegExp) =>
    [...fs.readFileSync(path.join(lib, file), 'utf8').matchAll(re)].map((m) => m[1]);
  const declared = /^(?:declare (?:var|function)|interface|type) ([A-Za-z_$][\w$]*)/gm;
  const language = new Set(
    fs
      .readdirSync(lib)
      .filter((f) => /^lib\.es[\w.]*\.d\.ts$/.test(f) || f === 'lib.decorators.d.ts')
      .flatMap((f) => names(f, declared)),
  );
  // Present in both browsers and Node, with the same meaning: isomorphic code may use them.
  const both = [
    'URL',
    'URLSearchParams',
    'TextEncoder',
    'TextDecoder',
    'console',
    'setTimeout',
    'clearTimeout',
    'queueMicrotask',
    'structuredClone',
    'AbortController',
    'AbortSignal',
  ];
  const dom = names('lib.dom.d.ts', declared).filter((n) => !language.has(n) && !both.includes(n));
  const node = [
    'process',
    'Buffer',
    'require',
    'module',
    'exports',
    '__dirname',
    '__filename',
    'global',
    'setImmediate',
    'clearImmediate',
    'NodeJS',
  ];
  return new Set([...dom, ...node]);
}

/** Names a file uses but does not declare or import, that belong to `globals`. */
function globalsUsed(sf: ts.SourceFile, globals: Set<string>): string[] {
  const declared = new Set<string>();
  const used: { name: string; line: number }[] = [];
  const visit = (n: ts.Node) => {
    const named = (n as { name?: ts.Node }).name;
    if (
      named &&
      ts.isIdentifier(named) &&
      (ts.isDeclarationStatement(n) ||
        ts.isVariableDeclaration(n) ||
        ts.isParameter(n) ||
        ts.isBindingElement(n) ||
        ts.isImportSpecifier(n) ||
        ts.isImportClause(n) ||
        ts.isNamespaceImport(n) ||
        ts.isTypeParameterDeclaration(n))
    )
      declared.add(named.text);
    if (ts.isIdentifier(n) && globals.has(n.text)) {
      const p = n.parent;
      const isMemberName =
        (ts.isPropertyAccessExpression(p) && p.name === n) ||
        (ts.isQualifiedName(p) && p.right === n) ||
        ((ts.isPropertyAssignment(p) ||
          ts.isPropertySignature(p) ||
          ts.isPropertyDeclaration(p) ||
          ts.isMethodDeclaration(p) ||
          ts.isMethodSignature(p)) &&
          p.name === n);
      if (!isMemberName)
        used.push({ name: n.text, line: sf.getLineAndCharacterOfPosition(n.getStart(sf)).line + 1 });
    }
    ts.forEachChild(n, visit);
  };
  visit(sf);
  return used.filter((u) => !declared.has(u.name)).map((u) => `${u.name} (line ${u.line})`);
}

describe('the import graph of src/', () => {
  it('is read whole: every file, every specifier resolved, every dynamic import named', () => {
    expect(graph.files.length).toBeGreaterThan(300);
    expect(edges.length).toBeGreaterThan(1500);
    expect(graph.unresolved.map(describeEdge)).toEqual([]);
    expect(graph.opaque).toEqual([]);
    // Static, type-only and dynamic edges are all there (the command line loads the server lazily).
    const has = (from: string, to: string, kind: Edge['kind']) =>
      edges.some((e) => e.from === from && e.to === to && e.kind === kind);
    expect(has('server/app.ts', 'db/migrate.ts', 'static')).toBe(true);
    expect(has('domain/context.ts', 'events/types.ts', 'type')).toBe(true);
    expect(
      edges.some((e) => e.from === 'cli/main.ts' && layerOf(e.to) === 'server' && e.kind === 'dynamic'),
    ).toBe(true);
    expect(has('db/change-log.ts', 'db/change-log-worker.ts', 'dynamic')).toBe(true);
    expect(edges.some((e) => e.from.startsWith('web/') && e.kind === 'dynamic')).toBe(true);
  });
});

describe('layers of src/ (docs/ARCHITECTURE.md, "Layers")', () => {
  it('1. src/shared imports only src/shared and zod: nothing from Node, the DOM or another layer', () => {
    expect(breaches(['shared'], (e) => targetLayer(e) !== 'shared' && !isPkg(e.to, 'zod'))).toEqual([]);
  });

  it('1. src/shared uses no global of the browser or of Node (only those both have)', () => {
    const globals = environmentGlobals();
    expect(globals.has('document') && globals.has('HTMLElement') && globals.has('process')).toBe(true);
    const found = graph.files
      .filter((f) => layerOf(f) === 'shared')
      .flatMap((f) => globalsUsed(graph.sources.get(f) as ts.SourceFile, globals).map((g) => `${f}: ${g}`));
    expect(found).toEqual([]);
  });

  it('2. src/config.ts and src/heap.ts import no layer', () => {
    expect(breaches(['config.ts', 'heap.ts'], (e) => targetLayer(e) !== null)).toEqual([]);
  });

  it('3. src/db imports only itself, src/shared and src/config.ts', () => {
    expect(breaches(['db'], (e) => ![null, 'db', 'shared', 'config.ts'].includes(targetLayer(e)))).toEqual(
      [],
    );
  });

  it('4. src/domain has no Fastify and no HTTP, and reaches no outer layer', () => {
    expect(breaches(['domain'], HTTP)).toEqual([]);
    const inner = [null, 'domain', 'db', 'shared', 'config.ts', 'files'];
    expect(
      breaches(
        ['domain'],
        (e) => !inner.includes(targetLayer(e)) && !(targetLayer(e) === 'events' && e.kind === 'type'),
      ),
    ).toEqual([]);
  });

  it('5. src/files runs no SQL and speaks no HTTP (the domain only for types)', () => {
    expect(breaches(['files'], (e) => SQL(e) || HTTP(e))).toEqual([]);
    expect(
      breaches(
        ['files'],
        (e) => ![null, 'files', 'shared', 'config.ts'].includes(targetLayer(e)) && e.kind !== 'type',
      ),
    ).toEqual([]);
  });

  it('6. src/events, src/mail and src/webhooks use Fastify for types only and never the server', () => {
    const background = ['events', 'mail', 'webhooks'];
    expect(breaches(background, (e) => isPkg(e.to, 'fastify', '@fastify') && e.kind !== 'type')).toEqual([]);
    expect(
      breaches(background, (e) => ['server', 'mcp', 'cli', 'web'].includes(targetLayer(e) ?? '')),
    ).toEqual([]);
  });

  it('7. routes call use cases and never query: no SQL import, no database handle in src/server/routes', () => {
    const routes = (f: string) => f.startsWith('server/routes/');
    const imports = edges
      .filter((e) => routes(e.from) && e.kind !== 'type' && SQL(e))
      .map((e) => `${e.from}: imports ${e.to}`);
    const handles = graph.files.filter(routes).flatMap((f) => {
      const sf = graph.sources.get(f) as ts.SourceFile;
      const out: string[] = [];
      const visit = (n: ts.Node) => {
        if (ts.isPropertyAccessExpression(n) && n.name.text === 'kysely')
          out.push(`${f}: reads .kysely (line ${sf.getLineAndCharacterOfPosition(n.getStart(sf)).line + 1})`);
        ts.forEachChild(n, visit);
      };
      visit(sf);
      return out;
    });
    expect(withoutKnown([...imports, ...handles])).toEqual([]);
  });

  it('8. src/mcp reaches the domain only through the HTTP API: it imports only itself and src/shared', () => {
    expect(breaches(['mcp'], (e) => ![null, 'mcp', 'shared'].includes(targetLayer(e)))).toEqual([]);
    expect(
      breaches(['mcp'], (e) => e.to.startsWith('node:') && e.from !== 'mcp/stdio.ts' && e.kind !== 'type'),
    ).toEqual([]);
  });

  it('9. the web app imports only itself and src/shared, and nothing of Node', () => {
    expect(breaches(['web'], (e) => ![null, 'web', 'shared'].includes(targetLayer(e)))).toEqual([]);
    expect(breaches(['web'], (e) => e.to.startsWith('node:'))).toEqual([]);
  });

  it('9. web pages and components call the API modules, never a URL (fetch, XHR and streams only in src/web/api)', () => {
    const found: string[] = [];
    for (const f of graph.files.filter((x) => layerOf(x) === 'web' && !x.startsWith('web/api/'))) {
      const sf = graph.sources.get(f) as ts.SourceFile;
      const visit = (n: ts.Node) => {
        const callee = ts.isCallExpression(n)
          ? n.expression
          : ts.isNewExpression(n)
            ? n.expression
            : undefined;
        const name =
          callee && ts.isIdentifier(callee)
            ? callee.text
            : callee &&
                ts.isPropertyAccessExpression(callee) &&
                ['window', 'globalThis'].includes(callee.expression.getText(sf))
              ? callee.name.text
              : undefined;
        if (name && ['fetch', 'XMLHttpRequest', 'EventSource', 'WebSocket'].includes(name))
          found.push(`${f}:${sf.getLineAndCharacterOfPosition(n.getStart(sf)).line + 1} ${name}`);
        ts.forEachChild(n, visit);
      };
      visit(sf);
    }
    expect(found).toEqual([]);
  });

  it('10. the server is loaded only by itself and the command line; nothing loads the command line or the web app from outside', () => {
    expect(
      breaches(
        [
          'db',
          'domain',
          'events',
          'files',
          'mail',
          'webhooks',
          'mcp',
          'shared',
          'web',
          'config.ts',
          'heap.ts',
        ],
        (e) => targetLayer(e) === 'server',
      ),
    ).toEqual([]);
    expect(
      edges.filter((e) => targetLayer(e) === 'cli' && layerOf(e.from) !== 'cli').map(describeEdge),
    ).toEqual([]);
    expect(
      edges.filter((e) => targetLayer(e) === 'web' && layerOf(e.from) !== 'web').map(describeEdge),
    ).toEqual([]);
  });

  it('11. no import cycle between folders of src/ (imports that run: static and dynamic)', () => {
    const next = new Map<string, Set<string>>();
    for (const e of edges) {
      const [a, b] = [layerOf(e.from), targetLayer(e)];
      if (e.kind === 'type' || !b || a === b) continue;
      if (!next.has(a)) next.set(a, new Set());
      next.get(a)?.add(b);
    }
    const cycles: string[] = [];
    const visit = (node: string, trail: string[]) => {
      if (trail.includes(node)) {
        cycles.push([...trail.slice(trail.indexOf(node)), node].join(' -> '));
        return;
      }
      for (const n of next.get(node) ?? []) visit(n, [...trail, node]);
    };
    for (const node of next.keys()) visit(node, []);
    expect([...new Set(cycles)]).toEqual([]);
  });
});

/**
 * Route files that still hold the database handle, moved into use cases by issue 48's server
 * work. An entry that no longer breaks the rule fails the test, so the list only shrinks.
 */
const KNOWN_ROUTE_QUERIES = new Set<string>([
  'server/routes/health.routes.ts: imports pkg:kysely',
  'server/routes/health.routes.ts: imports db/migrate.ts',
  'server/routes/health.routes.ts: reads .kysely',
  'server/routes/auth.routes.ts: reads .kysely',
  'server/routes/events.routes.ts: reads .kysely',
  'server/routes/imports.routes.ts: reads .kysely',
]);

function withoutKnown(found: string[]): string[] {
  const strip = (s: string) => s.replace(/ \(line \d+\)$/, '');
  const stale = [...KNOWN_ROUTE_QUERIES].filter((k) => !found.some((f) => strip(f) === k));
  return [
    ...found.filter((f) => !KNOWN_ROUTE_QUERIES.has(strip(f))),
    ...stale.map((s) => `no longer true, remove from KNOWN_ROUTE_QUERIES: ${s}`),
  ];
}
