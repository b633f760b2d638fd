import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/**
 * The web app's writes belong to its `src/web/api` modules (docs/ARCHITECTURE.md, decision 059):
 * each write is a mutation hook there (TanStack Query's `useMutation`), owning its optimistic
 * update, rollback and invalidation, and the rest of the app (pages, components, hooks) calls those
 * hooks. Read with the TypeScript parser, so that comments and strings do not count and every
 * import and call is seen.
 */
const web = path.resolve(import.meta.dirname, '../src/web');

interface Source {
  /** The path under src/web, with forward slashes. */
  file: string;
  tree: ts.SourceFile;
}

const parse = (file: string, text: string) =>
  ts.createSourceFile(
    file,
    text,
    ts.ScriptTarget.Latest,
    true,
    file.endsWith('.tsx') ? ts.ScriptKind.TSX : ts.ScriptKind.TS,
  );

function sources(): Source[] {
  return fs
    .readdirSync(web, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && /\.tsx?$/.test(e.name))
    .map((e) => {
      const full = path.join(e.parentPath, e.name);
      const file = path.relative(web, full).split(path.sep).join('/');
      return { file, tree: parse(file, fs.readFileSync(full, 'utf8')) };
    });
}

const inApi = (file: string) => file.startsWith('api/');
const moduleOf = (file: string) => file.replace(/\.tsx?$/, '');

/** Visits every node, with the chain of its ancestors (outermost first). */
function walk(node: ts.Node, visit: (n: ts.Node, ancestors: readonly ts.Node[]) => void, up: ts.Node[] = []) {
  visit(node, up);
  up.push(node);
  node.forEachChild((child) => walk(child, visit, up));
  up.pop();
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

const calls = (n: ts.Node, name: string) =>
  ts.isCallExpression(n) && ts.isIdentifier(n.expression) && n.expression.text === name;

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

/** A node that sends a write itself: request options with a method other than GET, or an upload. */
const isWrite = (n: ts.Node) =>
  (ts.isPropertyAssignment(n) &&
    n.name.getText() === 'method' &&
    ts.isStringLiteralLike(n.initializer) &&
    n.initializer.text !== 'GET') ||
  calls(n, 'uploadFile');

/** The top-level declarations of a module: functions and variables, by name. */
function declarations(tree: ts.SourceFile): [string, ts.Node][] {
  const out: [string, ts.Node][] = [];
  for (const stmt of tree.statements) {
    if (ts.isFunctionDeclaration(stmt) && stmt.name) out.push([stmt.name.text, stmt]);
    if (ts.isVariableStatement(stmt))
      for (const d of stmt.declarationList.declarations)
        if (ts.isIdentifier(d.name) && d.initializer) out.push([d.name.text, d]);
  }
  return out;
}

/**
 * The write helpers of the api modules, per module: top-level functions other than hooks that send
 * a write, themselves or through another helper. They serve the mutation hooks; nothing outside
 * `src/web/api` may import them.
 */
function writeHelpers(all: Source[]): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  const every = new Set<string>();
  const api = all.filter((s) => inApi(s.file));
  for (let grew = true; grew; ) {
    grew = false;
    for (const s of api) {
      const names = out.get(moduleOf(s.file)) ?? new Set<string>();
      out.set(moduleOf(s.file), names);
      for (const [name, node] of declarations(s.tree)) {
        if (/^use[A-Z]/.test(name) || names.has(name)) continue;
        let sends = false;
        walk(node, (n) => {
          if (
            isWrite(n) ||
            (ts.isCallExpression(n) && ts.isIdentifier(n.expression) && every.has(n.expression.text))
          )
            sends = true;
        });
        if (sends) {
          names.add(name);
          every.add(name);
          grew = true;
        }
      }
    }
  }
  return out;
}

/** Pages, components and hooks: no cache change, no request, no write helper; hooks only. */
function outsideApi(all: Source[]): string[] {
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
      if (calls(n, 'fetch')) out.push(`${where(s, n)} calls fetch (requests belong to src/web/api)`);
      if (ts.isNewExpression(n) && ts.isIdentifier(n.expression) && n.expression.text === 'XMLHttpRequest')
        out.push(`${where(s, n)} makes an XMLHttpRequest (requests belong to src/web/api)`);
    });
  }
  return out;
}

/**
 * The api modules: every write is sent by a mutation, that is from inside a `useMutation(...)` call,
 * directly or through a write helper that only mutations call.
 */
function insideApi(all: Source[]): string[] {
  const helpers = writeHelpers(all);
  const every = new Set([...helpers.values()].flatMap((names) => [...names]));
  const out: string[] = [];
  for (const s of all) {
    if (!inApi(s.file)) continue;
    const own = helpers.get(moduleOf(s.file)) ?? new Set<string>();
    const helperNodes = new Set(
      declarations(s.tree).flatMap(([name, node]) => (own.has(name) ? [node] : [])),
    );
    walk(s.tree, (n, up) => {
      const helperCall =
        ts.isCallExpression(n) && ts.isIdentifier(n.expression) && every.has(n.expression.text);
      if (!isWrite(n) && !helperCall) return;
      if (up.some((a) => helperNodes.has(a) || calls(a, 'useMutation'))) return;
      out.push(`${where(s, n)} sends a write outside a mutation (make it a useMutation hook)`);
    });
  }
  return out;
}

describe('the web app writes through the mutation hooks of src/web/api', () => {
  const all = sources();
  const api = all.filter((s) => inApi(s.file));

  it('reads the real app', () => {
    expect(all.length).toBeGreaterThan(100);
    // The classifier sees the write helpers the mutation hooks use (a wrong parse would find none).
    expect(writeHelpers(all).get('api/tickets')).toEqual(new Set(['bulkUpdateTickets', 'bulkDeleteTickets']));
  });

  it('finds a write or a cache change outside src/web/api when there is one', () => {
    const page = parse(
      'pages/x.tsx',
      [
        "import { useQueryClient } from '@tanstack/react-query';",
        "import { api } from '../api/client';",
        "import { bulkUpdateTickets } from '../api/tickets';",
        'export function X() { const qc = useQueryClient(); qc.invalidateQueries({ queryKey: [] }); fetch("/x"); }',
      ].join('\n'),
    );
    const found = outsideApi([...api, { file: 'pages/x.tsx', tree: page }]);
    expect(found.filter((v) => v.startsWith('pages/x.tsx'))).toEqual([
      'pages/x.tsx:1 imports useQueryClient (the query cache belongs to src/web/api)',
      'pages/x.tsx:2 imports api (requests belong to src/web/api)',
      'pages/x.tsx:3 imports the write bulkUpdateTickets (call its mutation hook)',
      'pages/x.tsx:4 calls invalidateQueries (the query cache belongs to src/web/api)',
      'pages/x.tsx:4 calls fetch (requests belong to src/web/api)',
    ]);
  });

  it('finds a write of an api module that no mutation sends', () => {
    const module = parse(
      'api/x.ts',
      [
        "import { useMutation } from '@tanstack/react-query';",
        "import { api } from './client';",
        "import { bulkDeleteTickets } from './tickets';",
        "export const useGood = () => useMutation({ mutationFn: () => api('/a', { method: 'POST' }) });",
        "export const bad = () => api('/b', { method: 'DELETE' });",
        "export const useBad = () => () => bulkDeleteTickets('p', []);",
      ].join('\n'),
    );
    const found = insideApi([...api, { file: 'api/x.ts', tree: module }]);
    expect(found.filter((v) => v.startsWith('api/x.ts'))).toEqual([
      'api/x.ts:6 sends a write outside a mutation (make it a useMutation hook)',
    ]);
    // `bad` is a write helper: calling it from a page is refused, and so is calling it outside a mutation.
    expect(writeHelpers([...api, { file: 'api/x.ts', tree: module }]).get('api/x')).toEqual(new Set(['bad']));
  });

  it('no page, component or hook sends a write or changes the query cache itself', () => {
    expect(outsideApi(all)).toEqual([]);
  });

  it('every write of the api modules is sent by a mutation hook', () => {
    expect(insideApi(all)).toEqual([]);
  });
});
