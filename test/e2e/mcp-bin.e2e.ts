/**
 * The docket-mcp bin as an assistant starts it (`node bin/docket-mcp.js` with MCP_API_KEY and
 * DOCKET_URL), against the built server, plus the built server's /api/mcp. The suite in test/ covers
 * every tool from the sources; this checks the shipped artefacts.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient, type Server, startServer, unique } from './harness.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

async function text(client: Client, name: string, args: Record<string, unknown>) {
  const r = (await client.callTool({ name, arguments: args })) as CallToolResult;
  const first = r.content[0];
  return {
    isError: r.isError === true,
    text: first?.type === 'text' ? first.text : '',
    data: r.structuredContent,
  };
}

describe('the shipped tool server', () => {
  let server: Server;
  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(async () => server?.stop());

  it('builds Docket on first use when dist/ is missing, then serves the tools', async () => {
    const user = await ApiClient.signUp(server.baseUrl, unique('mcpfirst'));
    const { apiKey } = await user.req<{ apiKey: string }>('POST', '/api/me/mcp-key');
    // A fresh checkout: the sources without dist/, sharing this checkout's node_modules.
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'docket-bin-'));
    for (const f of [
      'src',
      'scripts',
      'bin',
      'package.json',
      'tsconfig.json',
      'tsconfig.server.json',
      'vite.config.ts',
    ]) {
      fs.cpSync(path.join(root, f), path.join(dir, f), { recursive: true });
    }
    fs.symlinkSync(path.join(root, 'node_modules'), path.join(dir, 'node_modules'), 'dir');
    const client = new Client({ name: 'e2e', version: '1' });
    try {
      await client.connect(
        new StdioClientTransport({
          command: process.execPath,
          args: [path.join(dir, 'bin', 'docket-mcp.js')],
          env: { MCP_API_KEY: apiKey, DOCKET_URL: server.baseUrl, PATH: process.env.PATH ?? '' },
          stderr: 'pipe',
        }),
        { timeout: 170_000 },
      );
      expect(fs.existsSync(path.join(dir, 'dist', 'mcp', 'stdio.js'))).toBe(true);
      const r = await text(client, 'list_projects', {});
      expect(r).toMatchObject({ isError: false, data: { total: 0, truncated: false } });
    } finally {
      await client.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 180_000);

  it('node bin/docket-mcp.js serves the 45 tools and acts as the key’s owner', async () => {
    const user = await ApiClient.signUp(server.baseUrl, unique('mcpbin'), 'Bin User');
    const { apiKey } = await user.req<{ apiKey: string }>('POST', '/api/me/mcp-key');
    const key = unique('B')
      .toUpperCase()
      .replace(/[^A-Z0-9]/g, '')
      .slice(0, 10);

    const stdio = new Client({ name: 'e2e', version: '1' });
    await stdio.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [path.join(root, 'bin', 'docket-mcp.js')],
        env: { MCP_API_KEY: apiKey, DOCKET_URL: server.baseUrl },
        stderr: 'pipe',
      }),
    );
    try {
      expect((await stdio.listTools()).tools).toHaveLength(45);
      const p = await text(stdio, 'create_project', { name: 'From the bin', projectKey: key });
      expect(p).toMatchObject({ isError: false, text: `Created project ${key}: From the bin` });
      const t = await text(stdio, 'create_ticket', {
        projectKey: key.toLowerCase(),
        title: 'Hello',
        type: 'bug',
      });
      expect(t.text).toBe(`Created ${key}-1: Hello`);
      const read = await user.req<{ title: string; type: string; reporter: { name: string } }>(
        'GET',
        `/api/projects/${key}/tickets/${key}-1`,
      );
      expect(read).toMatchObject({ title: 'Hello', type: 'Bug', reporter: { name: 'Bin User' } });
    } finally {
      await stdio.close();
    }

    const http = new Client({ name: 'e2e', version: '1' });
    await http.connect(
      new StreamableHTTPClientTransport(new URL(`${server.baseUrl}/api/mcp`), {
        requestInit: { headers: { Authorization: `Bearer ${apiKey}` } },
      }),
    );
    try {
      const list = await text(http, 'list_tickets', { projectKey: key });
      expect(list.data).toMatchObject({ total: 1, truncated: false });
    } finally {
      await http.close();
    }
  });
});
