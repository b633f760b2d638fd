/**
 * The import graph of src/ as the compiler reads it: every file parsed by TypeScript, every module
 * specifier (static imports and exports, `import()` calls, `import('…')` types, `require()`, and
 * `new URL('./file.js', import.meta.url)`, which starts a worker from a file) resolved by
 * TypeScript's own module resolution with the options of the tsconfig that compiles the file
 * (src/web/tsconfig.json for the web app, tsconfig.json for the rest). Read by test/layering.test.ts.
 */
import fs from 'node:fs';
import { isBuiltin } from 'node:module';
import path from 'node:path';
import ts from 'typescript';

export const root = path.resolve(import.meta.dirname, '../..');
export const src = path.join(root, 'src');

export interface Edge {
  /** The importing file, relative to src/ (`server/app.ts`). */
  from: string;
  /** A file of src/ (`db/connect.ts`), `node:<module>` for Node's own, `pkg:<name>` for a package. */
  to: string;
  /** The specifier as written. */
  spec: string;
  /** `type`: erased at compile time; `dynamic`: loaded when the code runs (`import()`, a worker). */
  kind: 'static' | 'type' | 'dynamic';
  line: number;
}

export interface Graph {
  edges: Edge[];
  files: string[];
  /** Specifiers the compiler could not resolve (they fail the layering test). */
  unresolved: Edge[];
  /** `import()` / `require()` of something other than a string: the graph cannot see where it goes. */
  opaque: { file: string; line: number; text: string }[];
  /** Each file's parsed source, for rules about what a file does (calls, property reads). */
  sources: Map<string, ts.SourceFile>;
}

function compilerOptions(configFile: string): ts.CompilerOptions {
  const read = ts.readConfigFile(configFile, ts.sys.readFile);
  if (read.error) throw new Error(ts.flattenDiagnosticMessageText(read.error.messageText, '\n'));
  return ts.parseJsonConfigFileContent(read.config, ts.sys, path.dirname(configFile)).options;
}

function sourceFiles(): string[] {
  return fs
    .readdirSync(src, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && /\.(ts|tsx|mts|cts)$/.test(e.name))
    .map((e) => path.join(e.parentPath, e.name))
    .sort();
}

/** `pkg:@scope/name` or `pkg:name` for a bare specifier (`react-dom/client` is `pkg:react-dom`). */
function packageOf(spec: string): string {
  const parts = spec.split('/');
  return `pkg:${spec.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]}`;
}

type Found = { spec: ts.StringLiteralLike; kind: Edge['kind'] };

/** Every module the file names, with how it is used. */
function specifiers(sf: ts.SourceFile, opaque: Graph['opaque'], file: string): Found[] {
  const out: Found[] = [];
  const lineOf = (n: ts.Node) => sf.getLineAndCharacterOfPosition(n.getStart(sf)).line + 1;
  const visit = (n: ts.Node) => {
    if (ts.isImportDeclaration(n) && ts.isStringLiteralLike(n.moduleSpecifier)) {
      const c = n.importClause;
      const named = c?.namedBindings && ts.isNamedImports(c.namedBindings) ? c.namedBindings : undefined;
      // `import type …`, or `import { type A, type B }` with nothing else: erased by the compiler.
      const typeOnly =
        Boolean(c?.isTypeOnly) ||
        Boolean(
          c && !c.name && named && named.elements.length > 0 && named.elements.every((e) => e.isTypeOnly),
        );
      out.push({ spec: n.moduleSpecifier, kind: typeOnly ? 'type' : 'static' });
    } else if (ts.isExportDeclaration(n) && n.moduleSpecifier && ts.isStringLiteralLike(n.moduleSpecifier)) {
      const named = n.exportClause && ts.isNamedExports(n.exportClause) ? n.exportClause : undefined;
      const typeOnly =
        n.isTypeOnly ||
        Boolean(named && named.elements.length > 0 && named.elements.every((e) => e.isTypeOnly));
      out.push({ spec: n.moduleSpecifier, kind: typeOnly ? 'type' : 'static' });
    } else if (ts.isImportEqualsDeclaration(n) && ts.isExternalModuleReference(n.moduleReference)) {
      const e = n.moduleReference.expression;
      if (ts.isStringLiteralLike(e)) out.push({ spec: e, kind: n.isTypeOnly ? 'type' : 'static' });
    } else if (ts.isImportTypeNode(n)) {
      const arg = n.argument;
      if (ts.isLiteralTypeNode(arg) && ts.isStringLiteralLike(arg.literal))
        out.push({ spec: arg.literal, kind: 'type' });
    } else if (ts.isCallExpression(n)) {
      const isImport = n.expression.kind === ts.SyntaxKind.ImportKeyword;
      const isRequire = ts.isIdentifier(n.expression) && n.expression.text === 'require';
      if (isImport || isRequire) {
        const arg = n.arguments[0];
        if (arg && ts.isStringLiteralLike(arg))
          out.push({ spec: arg, kind: isImport ? 'dynamic' : 'static' });
        else opaque.push({ file, line: lineOf(n), text: n.getText(sf).slice(0, 120) });
      }
    } else if (
      ts.isNewExpression(n) &&
      ts.isIdentifier(n.expression) &&
      n.expression.text === 'URL' &&
      n.arguments?.length === 2 &&
      ts.isStringLiteralLike(n.arguments[0]) &&
      /^\.\.?\/.*\.(js|ts|mjs|mts)$/.test(n.arguments[0].text) &&
      n.arguments[1].getText(sf) === 'import.meta.url'
    ) {
      // A module file located next to this one and loaded at run time (a worker's entry).
      out.push({ spec: n.arguments[0], kind: 'dynamic' });
    }
    ts.forEachChild(n, visit);
  };
  visit(sf);
  return out;
}

let cached: Graph | undefined;

/** The graph of every file under src/ (read once per test file). */
export function importGraph(): Graph {
  if (cached) return cached;
  const webDir = path.join(src, 'web') + path.sep;
  const serverOptions = compilerOptions(path.join(root, 'tsconfig.json'));
  const webOptions = compilerOptions(path.join(src, 'web', 'tsconfig.json'));
  const host = ts.createModuleResolutionCache(root, (f) => f, serverOptions);
  const webHost = ts.createModuleResolutionCache(root, (f) => f, webOptions);
  const graph: Graph = { edges: [], files: [], unresolved: [], opaque: [], sources: new Map() };
  for (const abs of sourceFiles()) {
    const file = path.relative(src, abs);
    const web = abs.startsWith(webDir);
    const options = web ? webOptions : serverOptions;
    const sf = ts.createSourceFile(
      abs,
      fs.readFileSync(abs, 'utf8'),
      {
        languageVersion: ts.ScriptTarget.Latest,
        impliedNodeFormat: ts.getImpliedNodeFormatForFile(abs as ts.Path, undefined, ts.sys, options),
      },
      true,
    );
    graph.files.push(file);
    graph.sources.set(file, sf);
    for (const { spec, kind } of specifiers(sf, graph.opaque, file)) {
      const line = sf.getLineAndCharacterOfPosition(spec.getStart(sf)).line + 1;
      const text = spec.text;
      const edge = { from: file, spec: text, kind, line };
      if (isBuiltin(text)) {
        graph.edges.push({ ...edge, to: text.startsWith('node:') ? text : `node:${text}` });
        continue;
      }
      const mode = ts.getModeForUsageLocation(sf, spec, options);
      let resolved = ts.resolveModuleName(
        text,
        abs,
        options,
        ts.sys,
        web ? webHost : host,
        undefined,
        mode,
      ).resolvedModule;
      if (!resolved && /\.(js|ts|mjs|mts)$/.test(text) && text.startsWith('.')) {
        // A worker's entry named by its built name (`./worker.js`) next to its source (`./worker.ts`).
        const guess = path.resolve(path.dirname(abs), text.replace(/\.(m?)js$/, '.$1ts'));
        if (fs.existsSync(guess)) resolved = { resolvedFileName: guess, extension: ts.Extension.Ts };
      }
      if (!resolved) {
        // Assets the bundler takes (`./styles/app.css`) are not modules of the graph.
        if (web && /\.(css|svg|png|woff2?)$/.test(text)) continue;
        graph.unresolved.push({ ...edge, to: text });
        continue;
      }
      const target = resolved.resolvedFileName;
      if (resolved.isExternalLibraryImport || target.includes(`${path.sep}node_modules${path.sep}`)) {
        graph.edges.push({ ...edge, to: packageOf(text) });
      } else if (target.startsWith(src + path.sep)) {
        graph.edges.push({ ...edge, to: path.relative(src, target) });
      } else {
        graph.unresolved.push({ ...edge, to: path.relative(root, target) });
      }
    }
  }
  cached = graph;
  return graph;
}

/** The folder of src/ a file belongs to (`server`), or the file itself for top-level files (`config.ts`). */
export const layerOf = (file: string) => file.split('/')[0];

export const describeEdge = (e: Edge) =>
  `${e.from}:${e.line} -> ${e.to}${e.kind === 'static' ? '' : ` (${e.kind})`}`;
