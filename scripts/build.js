#!/usr/bin/env node
// Builds the server (TypeScript to dist/) and the web app (Vite to dist/web/).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const bin = (name) => path.join(root, 'node_modules', '.bin', name);

function run(cmd, args) {
  const r = spawnSync(cmd, args, { cwd: root, stdio: 'inherit' });
  if (r.status !== 0) {
    console.error(`\nBuild failed: ${path.basename(cmd)} ${args.join(' ')}`);
    process.exit(r.status ?? 1);
  }
}

const started = Date.now();
fs.rmSync(path.join(root, 'dist'), { recursive: true, force: true });
run(bin('tsc'), ['-p', 'tsconfig.server.json']);
run(bin('vite'), ['build', '--config', 'vite.config.ts', '--logLevel', 'warn']);
fs.writeFileSync(path.join(root, 'dist', '.build-stamp'), new Date().toISOString());
console.log(`Built Docket in ${((Date.now() - started) / 1000).toFixed(1)} s`);
