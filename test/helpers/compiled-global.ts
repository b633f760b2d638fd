/**
 * Global setup of the test projects (vitest.config.ts): src/ (the web app aside) transpiled once per
 * run by esbuild, file by file as tsx and tsc do (no bundling, the same folders), for the processes
 * the tests start: servers (`startDocketFromSource`), the command line (`docket`), the MCP stdio bin.
 * A process then loads plain JavaScript instead of compiling every module through tsx's loader on
 * each start, which cost about 1.5 s of CPU per process (docs/decisions/061-test-speed.md). The
 * output lives under node_modules/.cache, so packages resolve from the repository's node_modules;
 * DOCKET_TEST_COMPILED_SRC names it for the test workers (test/helpers/server.ts `sourceArgs`). The
 * first project's setup builds it and the other projects of the run use it.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { build } from 'esbuild';

const root = path.resolve(import.meta.dirname, '..', '..');

/** The command line's entry, as bin/docket.js runs a built CLI. */
const CLI_ENTRY = `const { main } = await import('./cli/main.js');
const code = await main(process.argv.slice(2));
if (code >= 0) process.exitCode = code;
`;

export default async function setup() {
  if (process.env.DOCKET_TEST_COMPILED_SRC) return;
  const src = path.join(root, 'src');
  const entryPoints = fs
    .readdirSync(src, { recursive: true })
    .map(String)
    .filter((f) => /\.tsx?$/.test(f) && !f.endsWith('.d.ts') && !f.startsWith(`web${path.sep}`))
    .map((f) => path.join(src, f));
  const out = path.join(
    root,
    'node_modules',
    '.cache',
    'docket-tests',
    `src-${process.pid}-${randomBytes(4).toString('hex')}`,
  );
  await build({
    entryPoints,
    outdir: out,
    outbase: src,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    sourcemap: 'inline',
    logLevel: 'error',
  });
  fs.writeFileSync(path.join(out, 'package.json'), '{ "type": "module" }\n');
  fs.writeFileSync(path.join(out, 'docket.js'), CLI_ENTRY);
  process.env.DOCKET_TEST_COMPILED_SRC = out;
  return () => {
    delete process.env.DOCKET_TEST_COMPILED_SRC;
    fs.rmSync(out, { recursive: true, force: true });
  };
}
