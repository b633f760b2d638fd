import net from 'node:net';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { sourceArgs } from './server.js';

export type Transport = 'http' | 'stdio';

const root = path.resolve(import.meta.dirname, '..', '..');

/** An official SDK client on /api/mcp of a listening Docket (baseUrl includes any base path). */
export async function connectHttp(
  baseUrl: string,
  apiKey?: string,
  opts: { query?: string; headers?: Record<string, string> } = {},
): Promise<Client> {
  const client = new Client({ name: 'docket-tests', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(`${baseUrl}/api/mcp${opts.query ?? ''}`), {
    requestInit: { headers: { ...(apiKey ? { Authorization: `Bearer ${apiKey}` } : {}), ...opts.headers } },
  });
  await client.connect(transport);
  return client;
}

/** An official SDK client on the stdio tool server (src/mcp/stdio.ts), like an assistant starts it. */
export async function connectStdio(
  docketUrl: string,
  apiKey: string,
  args: string[] = [],
  env: Record<string, string> = {},
): Promise<Client> {
  const client = new Client({ name: 'docket-tests', version: '1.0.0' });
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [...sourceArgs(path.join('src', 'mcp', 'stdio.ts')), ...args],
    cwd: root,
    env: { MCP_API_KEY: apiKey, DOCKET_URL: docketUrl, ...env },
    stderr: 'pipe',
  });
  await client.connect(transport);
  return client;
}

export async function connect(
  kind: Transport,
  baseUrl: string,
  apiKey: string,
  opts: { readOnly?: boolean } = {},
) {
  if (kind === 'http') return connectHttp(baseUrl, apiKey, { query: opts.readOnly ? '?toolset=read' : '' });
  return connectStdio(baseUrl, apiKey, opts.readOnly ? ['--read-only'] : []);
}

export interface ToolCall {
  text: string;
  isError: boolean;
  data: any;
}

export async function call(
  client: Client,
  name: string,
  args: Record<string, unknown> = {},
): Promise<ToolCall> {
  const r = (await client.callTool({ name, arguments: args })) as CallToolResult;
  const first = r.content[0];
  return {
    text: first && first.type === 'text' ? first.text : '',
    isError: r.isError === true,
    data: r.structuredContent,
  };
}

/** Calls a tool that must succeed; a tool error fails the test with the tool's own text. */
export async function ok(client: Client, name: string, args: Record<string, unknown> = {}) {
  const r = await call(client, name, args);
  if (r.isError) throw new Error(`${name} failed: ${r.text}`);
  return r;
}

/** Calls a tool that must fail, returning its error text. */
export async function fails(client: Client, name: string, args: Record<string, unknown> = {}) {
  const r = await call(client, name, args);
  if (!r.isError) throw new Error(`${name} was expected to fail but answered: ${r.text}`);
  return r.text;
}

/** A local port with nothing listening on it. */
export async function closedPort(): Promise<number> {
  const srv = net.createServer();
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  const { port } = srv.address() as net.AddressInfo;
  await new Promise<void>((resolve) => srv.close(() => resolve()));
  return port;
}
