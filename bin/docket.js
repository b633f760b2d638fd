#!/usr/bin/env node
// The operator's command line (`npx docket <command>`). Runs the compiled CLI in dist/ when it is up to
// date; in a development checkout with stale or missing dist/ it runs the TypeScript sources through
// tsx; otherwise it builds first, as `npm start` does. `docket serve` always uses the build (it serves
// the built web app too).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const stamp = path.join(root, 'dist', '.build-stamp');
const compiled = path.join(root, 'dist', 'cli', 'main.js');
const argv = process.argv.slice(2);

function newestMtime(p) {
  if (!fs.existsSync(p)) return 0;
  const st = fs.statSync(p);
  if (!st.isDirectory()) return st.mtimeMs;
  let newest = 0;
  for (const entry of fs.readdirSync(p)) newest = Math.max(newest, newestMtime(path.join(p, entry)));
  return newest;
}

function isFresh() {
  if (!fs.existsSync(stamp) || !fs.existsSync(compiled)) return false;
  if (!fs.existsSync(path.join(root, 'src'))) return true;
  const inputs = ['src', 'package.json', 'vite.config.ts', 'tsconfig.json', 'tsconfig.server.json'];
  return fs.statSync(stamp).mtimeMs >= Math.max(...inputs.map((p) => newestMtime(path.join(root, p))));
}

function build() {
  if (
    !fs.existsSync(path.join(root, 'scripts', 'build.js')) ||
    !fs.existsSync(path.join(root, 'node_modules', '.bin', 'tsc'))
  ) {
    return false;
  }
  process.stderr.write('Building Docket (first run or sources changed)…\n');
  const r = spawnSync(process.execPath, [path.join(root, 'scripts', 'build.js')], {
    cwd: root,
    stdio: ['ignore', 2, 2],
  });
  if (r.status !== 0) process.exit(r.status ?? 1);
  return true;
}

let entry = compiled;
if (!isFresh()) {
  const serving = argv[0] === 'serve';
  const tsx = path.join(root, 'node_modules', 'tsx', 'dist', 'esm', 'api', 'index.mjs');
  if (!serving && fs.existsSync(path.join(root, 'src', 'cli', 'main.ts')) && fs.existsSync(tsx)) {
    const { register } = await import(pathToFileURL(tsx).href);
    register();
    entry = path.join(root, 'src', 'cli', 'main.ts');
  } else if (!build() && !fs.existsSync(compiled)) {
    process.stderr.write('Docket is not built and cannot be built here (run npm ci && npm run build).\n');
    process.exit(1);
  }
}

const { main } = await import(pathToFileURL(entry).href);
const code = await main(argv);
if (code >= 0) process.exitCode = code;
