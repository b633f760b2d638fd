import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/**
 * The web app's writes belong to its `src/web/api` modules (docs/ARCHITECTURE.md, decision 059):
 * each write is a mutation hook there, owning its optimistic update, rollback and invalidation. The
 * rest of the app (pages, components, hooks) calls those hooks. Read with the TypeScript parser, so
 * that comments and strings do not count and every import and call is seen.
 */
const web = path.resolve(import.meta.dirname, '../src/web');

interface Source {
  /** The path under src/web, with forward slashes. */
  file: string;
  tree: ts.SourceFile;
}

function sources(): Source[] {
  return fs
    .readdirSync(web, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && /\.tsx?$/.test(e.name))
    .map((e) => {
      const full = path.join(e.parentPath, e.name);
      const file = path.relative(web, full).split(path.sep).join('/');
      const text = fs.readFileSync(full, 'utf8');
      const kind = full.endsWith('.tsx') ? ts.ScriptKind.TSX : ts.ScriptKind.TS;
      return { file, tree: ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, kind) };
    });
}

const inApi = (file: string) => file.startsWith('api/');

function walk(node: ts.Node, visit: (n: ts.Node) => void) {
  visit(node);
  node.forEachChild((child) => walk(child, visit));
}

const where = (s: Source, node: ts.Node) => {
  const { line } = s.tree.getLineAndCharacterOfPosition(node.getStart(s.tree));
  return `${s.file}:${line + 1}`;
};

/** The module an import names, as a path under src/web without extension ('api/labels'), or null. */
function resolveImport(from: string, spec: string): string | null {
  if (!spec.startsWith('.')) return null;
  return path.posix.normalize(path.posix.join(path.posix.dirname(from), spec)).replace(/\.(js|tsx?)$/, '');
}

/** The query client's methods that change what the cache holds (or read it to change it). */
const CACHE_WRITES = new Set([
  'invalidateQueries',
  'setQueryData',
  'setQueriesData',
  'removeQueries',
  'resetQueries',
  'refetchQueries',
  'cancelQueries',
  'fetchQuery',
  'prefetchQuery',
  'ensureQueryData',
  'getMutationCache',
  'getQueryCache',
]);

/** What only `src/web/api` imports from TanStack Query: the client itself and mutations. */
const QUERY_CLIENT_NAMES = new Set(['useQueryClient', 'useMutation', 'QueryClient', 'useIsMutating']);

/** The client's raw requests: a page names no URL and sends nothing itself. */
const RAW_REQUESTS = new Set(['api', 'requestWithMeta', 'listAll']);

/** Whether a declaration sends a write: a request with a method other than GET, or an upload. */
function sendsWrite(node: ts.Node): boolean {
  let found = false;
  walk(node, (n) => {
    if (
      ts.isPropertyAssignment(n) &&
      n.name.getText() === 'method' &&
      ts.isStringLiteralLike(n.initializer) &&
      n.initializer.text !== 'GET'
    )
      found = true;
    if (ts.isCallExpression(n) && ts.isIdentifier(n.expression) && n.expression.text === 'uploadFile')
      found = true;
  });
  return found;
}

/**
 * The write helpers of the api modules: top-level functions (not hooks) that send a write. They
 * serve the module's own mutation hooks; nothing outside `src/web/api` may import them.
 */
function writeHelpers(all: Source[]): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  for (const s of all) {
    if (!inApi(s.file)) continue;
    const names = new Set<string>();
    for (const stmt of s.tree.statements) {
      const decls: [string, ts.Node][] = [];
      if (ts.isFunctionDeclaration(stmt) && stmt.name) decls.push([stmt.name.text, stmt]);
      if (ts.isVariableStatement(stmt))
        for (const d of stmt.declarationList.declarations)
          if (ts.isIdentifier(d.name) && d.initializer) decls.push([d.name.text, d.initializer]);
      for (const [name, node] of decls) if (!/^use[A-Z]/.test(name) && sendsWrite(node)) names.add(name);
    }
    out.set(s.file.replace(/\.tsx?$/, ''), names);
  }
  return out;
}

function violations(all: Source[]): string[] {
  const helpers = writeHelpers(all);
  const out: string[] = [];
  for (const s of all) {
    if (inApi(s.file)) continue;
    walk(s.tree, (n) => {
      if (ts.isImportDeclaration(n) && ts.isStringLiteral(n.moduleSpecifier)) {
        const spec = n.moduleSpecifier.text;
        const target = resolveImport(s.file, spec);
        const bindings = n.importClause?.namedBindings;
        const named = bindings && ts.isNamedImports(bindings) ? bindings.elements : [];
        const imported = (e: ts.ImportSpecifier) => (e.propertyName ?? e.name).text;
        if (spec === '@tanstack/react-query')
          for (const e of named)
            if (QUERY_CLIENT_NAMES.has(imported(e)))
              out.push(`${where(s, e)} imports ${imported(e)} (the query cache belongs to src/web/api)`);
        if (target === 'api/client')
          for (const e of named)
            if (RAW_REQUESTS.has(imported(e)))
              out.push(`${where(s, e)} imports ${imported(e)} (requests belong to src/web/api)`);
        const writes = target ? helpers.get(target) : undefined;
        if (writes?.size) {
          if (bindings && ts.isNamespaceImport(bindings))
            out.push(`${where(s, n)} imports all of ${target}, with its writes ${[...writes].join(', ')}`);
          for (const e of named)
            if (writes.has(imported(e)))
              out.push(`${where(s, e)} imports the write ${imported(e)} (call its mutation hook)`);
        }
      }
      if (
        ts.isCallExpression(n) &&
        n.expression.kind === ts.SyntaxKind.ImportKeyword &&
        n.arguments[0] &&
        ts.isStringLiteralLike(n.arguments[0])
      ) {
        const target = resolveImport(s.file, n.arguments[0].text);
        if (target && helpers.get(target)?.size)
          out.push(`${where(s, n)} loads ${target}, with its writes (import its mutation hooks)`);
      }
      if (ts.isPropertyAccessExpression(n) && CACHE_WRITES.has(n.name.text))
        out.push(`${where(s, n)} calls ${n.name.text} (the query cache belongs to src/web/api)`);
      if (ts.isCallExpression(n) && ts.isIdentifier(n.expression) && n.expression.text === 'fetch')
        out.push(`${where(s, n)} calls fetch (requests belong to src/web/api)`);
      if (ts.isNewExpression(n) && ts.isIdentifier(n.expression) && n.expression.text === 'XMLHttpRequest')
        out.push(`${where(s, n)} makes an XMLHttpRequest (requests belong to src/web/api)`);
    });
  }
  return out;
}

describe('the web app writes through the mutation hooks of src/web/api', () => {
  const all = sources();

  it('reads the real app', () => {
    expect(all.length).toBeGreaterThan(100);
    const helpers = writeHelpers(all);
    // The classifier sees the writes the api modules send (a wrong parse would find none).
    expect(helpers.get('api/labels')).toEqual(new Set(['createLabel', 'updateLabel', 'deleteLabel']));
    expect([...helpers.values()].reduce((n, s) => n + s.size, 0)).toBeGreaterThan(50);
  });

  it('finds a write outside src/web/api when there is one', () => {
    const page = ts.createSourceFile(
      'pages/x.tsx',
      [
        "import { useQueryClient } from '@tanstack/react-query';",
        "import { api } from '../api/client';",
        "import { createLabel } from '../api/labels';",
        'export function X() { const qc = useQueryClient(); qc.invalidateQueries({ queryKey: [] }); fetch("/x"); }',
      ].join('\n'),
      ts.ScriptTarget.Latest,
      true,
      ts.ScriptKind.TSX,
    );
    const found = violations([...all.filter((s) => inApi(s.file)), { file: 'pages/x.tsx', tree: page }]);
    expect(found).toEqual([
      'pages/x.tsx:1 imports useQueryClient (the query cache belongs to src/web/api)',
      'pages/x.tsx:2 imports api (requests belong to src/web/api)',
      'pages/x.tsx:3 imports the write createLabel (call its mutation hook)',
      'pages/x.tsx:4 calls invalidateQueries (the query cache belongs to src/web/api)',
      'pages/x.tsx:4 calls fetch (requests belong to src/web/api)',
    ]);
  });

  it('no page or component sends a write or changes the query cache itself', () => {
    expect(violations(all)).toEqual([]);
  });

  it('the api modules write through mutations', () => {
    let mutations = 0;
    for (const s of all)
      if (inApi(s.file))
        walk(s.tree, (n) => {
          if (ts.isCallExpression(n) && ts.isIdentifier(n.expression) && n.expression.text === 'useMutation')
            mutations++;
        });
    expect(mutations).toBeGreaterThan(50);
  });
});
