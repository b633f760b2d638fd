#!/usr/bin/env node
// The `docket-mcp` bin: Docket's MCP tool server over stdio (see README, "MCP").
// Environment: MCP_API_KEY (required), DOCKET_URL (default http://localhost:3000, including any base path).
// Runs the compiled dist/mcp/stdio.js, building it first when it is missing (as `npm start` does).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const entry = path.join(root, 'dist', 'mcp', 'stdio.js');

if (!process.env.MCP_API_KEY?.trim()) {
  process.stderr.write(
    'docket-mcp: MCP_API_KEY is required. Create a key in Docket (Profile → API key, or POST /api/me/mcp-key while signed in) and set it in the environment of this server.\n',
  );
  process.exit(1);
}

if (!fs.existsSync(entry)) {
  process.stderr.write('docket-mcp: building Docket first (dist/ is missing)…\n');
  // stdout carries MCP messages: the build's output goes to stderr.
  const r = spawnSync(process.execPath, [path.join(root, 'scripts', 'build.js')], {
    cwd: root,
    stdio: ['ignore', 2, 2],
  });
  if (r.status !== 0 || !fs.existsSync(entry)) {
    process.stderr.write(
      'docket-mcp: the build failed; run `npm run build` in the Docket folder to see why.\n',
    );
    process.exit(1);
  }
}

await import(pathToFileURL(entry).href);
