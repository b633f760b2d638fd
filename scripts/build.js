#!/usr/bin/env node
// Builds the server (TypeScript to dist/) and the web app (Vite to dist/web/).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import zlib from 'node:zlib';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const bin = (name) => path.join(root, 'node_modules', '.bin', name);

function run(cmd, args) {
  const r = spawnSync(cmd, args, { cwd: root, stdio: 'inherit' });
  if (r.status !== 0) {
    console.error(`\nBuild failed: ${path.basename(cmd)} ${args.join(' ')}`);
    process.exit(r.status ?? 1);
  }
}

/**
 * Writes a brotli (.br, best quality) and a gzip (.gz) copy beside every text file of the web build
 * that compression makes smaller, so the server sends them as they are (src/server/web.ts) instead
 * of compressing on every request. Compressing here costs time once per build, not per visitor.
 */
function compressWebFiles(dir) {
  let plain = 0;
  let brotli = 0;
  const walk = (d) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const full = path.join(d, e.name);
      if (e.isDirectory()) walk(full);
      else if (/\.(js|mjs|css|html|svg|json|txt|map)$/.test(e.name)) {
        const body = fs.readFileSync(full);
        if (body.length < 1024) continue;
        const br = zlib.brotliCompressSync(body, {
          params: {
            [zlib.constants.BROTLI_PARAM_QUALITY]: zlib.constants.BROTLI_MAX_QUALITY,
            [zlib.constants.BROTLI_PARAM_MODE]: zlib.constants.BROTLI_MODE_TEXT,
            [zlib.constants.BROTLI_PARAM_SIZE_HINT]: body.length,
          },
        });
        const gz = zlib.gzipSync(body, { level: zlib.constants.Z_BEST_COMPRESSION });
        if (br.length < body.length) fs.writeFileSync(`${full}.br`, br);
        if (gz.length < body.length) fs.writeFileSync(`${full}.gz`, gz);
        plain += body.length;
        brotli += Math.min(br.length, body.length);
      }
    }
  };
  walk(dir);
  console.log(`Web files: ${(plain / 1024).toFixed(0)} KB, ${(brotli / 1024).toFixed(0)} KB with brotli`);
}

const started = Date.now();
fs.rmSync(path.join(root, 'dist'), { recursive: true, force: true });
run(bin('tsc'), ['-p', 'tsconfig.server.json']);
run(bin('vite'), ['build', '--config', 'vite.config.ts', '--logLevel', 'warn']);
compressWebFiles(path.join(root, 'dist', 'web'));
fs.writeFileSync(path.join(root, 'dist', '.build-stamp'), new Date().toISOString());
console.log(`Built Docket in ${((Date.now() - started) / 1000).toFixed(1)} s`);
