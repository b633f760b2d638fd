#!/usr/bin/env node
// `npm run test:quick`: the tests a change touches. The files changed against main (committed on
// this branch since it left main, staged, unstaged or new) go to `vitest related`, which runs every
// test file that imports one of them, directly or not, and the changed test files themselves; a
// changed package.json, lockfile or vitest config runs everything. The checks that read the tree
// rather than import it (test/layering.test.ts, test/docs-links.test.ts) always run. Browser tests
// are not included: `npm run test:e2e -- test/e2e/<file>.e2e.ts`.
//
//   npm run test:quick                       against main, every project of vitest.config.ts
//   npm run test:quick -- --project sqlite   extra arguments go to vitest
//   DOCKET_QUICK_BASE=origin/main npm run test:quick
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const base = process.env.DOCKET_QUICK_BASE ?? 'main';
const git = (...args) =>
  execFileSync('git', args, { cwd: root, encoding: 'utf8' }).split('\n').filter(Boolean);

const changed = new Set([
  ...git('diff', '--name-only', `${base}...HEAD`),
  ...git('diff', '--name-only', 'HEAD'),
  ...git('ls-files', '--others', '--exclude-standard'),
]);
if (changed.size === 0) {
  console.log(`Nothing changed against ${base}.`);
  process.exit(0);
}
// Deleted files still count: the tests that imported them must now fail or pass without them.
const files = [...changed].sort();
const treeChecks = ['test/layering.test.ts', 'test/docs-links.test.ts'].filter((f) =>
  fs.existsSync(path.join(root, f)),
);
console.log(`Changed against ${base}: ${files.length} file(s); running the tests they touch.`);
const r = spawnSync(
  path.join(root, 'node_modules', '.bin', 'vitest'),
  ['related', '--run', '--passWithNoTests', ...files, ...treeChecks, ...process.argv.slice(2)],
  { cwd: root, stdio: 'inherit' },
);
process.exit(r.status ?? 1);
