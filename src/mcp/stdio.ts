#!/usr/bin/env node
/**
 * The stdio tool server (the `docket-mcp` bin): MCP over stdin/stdout, acting through Docket's HTTP
 * API at DOCKET_URL (default http://localhost:3000, including any base path) as the user who owns
 * MCP_API_KEY; `--read-only` (or MCP_TOOLSET=read) serves only the tools that change nothing.
 * Nothing but MCP messages may go to stdout; diagnostics go to stderr.
 */
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { DocketClient } from './client.js';
import { createMcpServer, TOOLSETS, type Toolset } from './server.js';

export const DEFAULT_DOCKET_URL = 'http://localhost:3000';

function fail(message: string): never {
  process.stderr.write(`docket-mcp: ${message}\n`);
  process.exit(1);
}

const apiKey = process.env.MCP_API_KEY?.trim();
if (!apiKey) {
  fail(
    'MCP_API_KEY is required. Create a key in Docket (Profile → API key, or POST /api/me/mcp-key while signed in) and set it in the environment of this server.',
  );
}
const baseUrl = process.env.DOCKET_URL?.trim() || DEFAULT_DOCKET_URL;
try {
  const u = new URL(baseUrl);
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error('protocol');
} catch {
  fail(
    `DOCKET_URL must be an http(s) URL such as ${DEFAULT_DOCKET_URL} (with any base path), not "${baseUrl}"`,
  );
}

// The read-only toolset: `docket-mcp --read-only`, or MCP_TOOLSET=read.
const toolsetEnv = process.env.MCP_TOOLSET?.trim().toLowerCase();
if (toolsetEnv && !(TOOLSETS as readonly string[]).includes(toolsetEnv)) {
  fail(`MCP_TOOLSET must be ${TOOLSETS.join(' or ')}, not "${process.env.MCP_TOOLSET}"`);
}
const unknownFlag = process.argv.slice(2).find((a) => a !== '--read-only');
if (unknownFlag) fail(`unknown argument ${unknownFlag} (the only flag is --read-only)`);
const toolset: Toolset = process.argv.includes('--read-only') ? 'read' : ((toolsetEnv as Toolset) ?? 'all');

const server = createMcpServer(new DocketClient({ baseUrl, apiKey }), { toolset });
await server.connect(new StdioServerTransport());
