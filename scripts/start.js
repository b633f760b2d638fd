#!/usr/bin/env node
// `npm start`: builds what is missing or out of date, then serves.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const stamp = path.join(root, 'dist', '.build-stamp');

function newestMtime(dir) {
  let newest = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(full) : fs.statSync(full).mtimeMs);
  }
  return newest;
}

const inputs = ['src', 'package.json', 'vite.config.ts', 'tsconfig.json', 'tsconfig.server.json'];
const newestInput = Math.max(
  ...inputs.map((p) => {
    const full = path.join(root, p);
    if (!fs.existsSync(full)) return 0;
    return fs.statSync(full).isDirectory() ? newestMtime(full) : fs.statSync(full).mtimeMs;
  }),
);
if (!fs.existsSync(stamp) || fs.statSync(stamp).mtimeMs < newestInput) {
  console.log('Building Docket (first start or sources changed)…');
  const r = spawnSync(process.execPath, [path.join(root, 'scripts', 'build.js')], {
    cwd: root,
    stdio: 'inherit',
  });
  if (r.status !== 0) process.exit(r.status ?? 1);
}
await import(pathToFileURL(path.join(root, 'dist', 'server', 'main.js')).href);
