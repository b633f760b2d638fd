import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  type CallToolResult,
  ListToolsRequestSchema,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { type DocketClient, ToolError } from './client.js';
import type { ToolDef } from './tools/common.js';
import { TOOLS } from './tools/index.js';

export const SERVER_INFO = { name: 'docket', version: '1.0.0' };

const INSTRUCTIONS =
  'Docket issue tracker. Tickets are named by key (PROJ-12); columns, sprints, labels and people by name ' +
  '(case-insensitive, partial names accepted when unique). Types: epic, story, task, bug, subtask. ' +
  'Priorities: lowest, low, medium, high, highest, critical. Column positions start at 1. Dates are YYYY-MM-DD. ' +
  'Long lists are paged: pass the nextCursor of a result back as cursor, with the same arguments.';

const errorResult = (text: string): CallToolResult => ({ content: [{ type: 'text', text }], isError: true });

/** JSON Schema of a tool's zod shape, without the `$schema` line the SDK repeats in every schema. */
function jsonSchema(shape: z.ZodRawShape, io: 'input' | 'output'): Tool['inputSchema'] {
  const { $schema: _, ...schema } = z.toJSONSchema(z.object(shape), { io, target: 'draft-7' });
  return (io === 'output' ? lean(schema) : schema) as Tool['inputSchema'];
}

/**
 * An output schema without `required` and `additionalProperties: false`: it still says what each
 * field is and its type, at two thirds of the size (docs/mcp.md "Size of the catalogue"). Every field
 * it names is always present in the result.
 */
function lean(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(lean);
  if (!schema || typeof schema !== 'object') return schema;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(schema)) {
    if (k === 'required' || k === 'additionalProperties') continue;
    out[k] =
      k === 'properties'
        ? Object.fromEntries(Object.entries(v as object).map(([p, x]) => [p, lean(x)]))
        : lean(v);
  }
  return out;
}

/**
 * Annotations without the values the MCP specification gives by default: a read-only tool says only
 * `readOnlyHint: true` (the other hints apply to tools that change things); a write omits
 * `readOnlyHint: false` and `idempotentHint: false`, and says `destructiveHint` only when false
 * (the default is true).
 */
function leanAnnotations(a: ToolDef['annotations']): Tool['annotations'] {
  if (a.readOnlyHint) return { readOnlyHint: true };
  return {
    ...(a.destructiveHint ? {} : { destructiveHint: false }),
    ...(a.idempotentHint ? { idempotentHint: true } : {}),
  };
}

/**
 * The catalogue that tools/list answers, computed once: the SDK's own listing with the per-schema
 * `$schema` and the default `execution` left out, and lean output schemas (docs/mcp.md).
 */
export const CATALOGUE: Tool[] = TOOLS.map((t) => ({
  name: t.name,
  description: t.description,
  inputSchema: jsonSchema(t.input, 'input'),
  outputSchema: jsonSchema(t.output, 'output'),
  annotations: leanAnnotations(t.annotations),
}));

const BY_NAME = new Map(TOOLS.map((t) => [t.name, t]));
/** Strict: a parameter the tool does not have is an error, not silently ignored. */
const ARGS = new Map(TOOLS.map((t) => [t.name, z.strictObject(t.input)]));

/** A zod issue in words, for the assistant: `priority: must be one of low, medium, …`. */
const TYPE_WORDS: Record<string, string> = { array: 'a list', int: 'a whole number', object: 'an object' };

function valueAt(args: unknown, path: PropertyKey[]): unknown {
  let v = args;
  for (const p of path) v = v && typeof v === 'object' ? (v as Record<PropertyKey, unknown>)[p] : undefined;
  return v;
}

function describeIssue(issue: z.core.$ZodIssue, args: unknown): string {
  const where = issue.path.join('.');
  const at = where ? `${where}: ` : '';
  switch (issue.code) {
    case 'invalid_type':
      return valueAt(args, issue.path) === undefined
        ? `${at}required`
        : `${at}must be ${TYPE_WORDS[issue.expected] ?? `a ${issue.expected}`}`;
    case 'invalid_value':
      return `${at}must be one of ${issue.values.map(String).join(', ')}`;
    case 'too_small':
      return issue.origin === 'string' && Number(issue.minimum) === 1
        ? `${at}must not be empty`
        : `${at}must be at least ${issue.minimum}`;
    case 'too_big':
      return `${at}must be at most ${issue.maximum}`;
    case 'unrecognized_keys':
      return `unknown parameter${issue.keys.length > 1 ? 's' : ''} ${issue.keys.join(', ')}`;
    default:
      return `${at}${issue.message}`;
  }
}

async function runTool(tool: ToolDef, args: unknown, client: DocketClient): Promise<CallToolResult> {
  try {
    // A client of the call's own, which keeps what its fuzzy names resolved to (not an
    // AsyncLocalStorage: on Node 20 its first use turns on promise hooks for the whole process,
    // which cost every request a third of a cached read's time from then on).
    const call = client.forCall();
    const result = await tool.run(args as never, call);
    // The reply names what fuzzy inputs became (`label "front" → frontend`), so a wrong guess shows.
    const unique = [...new Set(call.resolved)];
    const text = unique.length ? `${result.text}\nResolved: ${unique.join('; ')}` : result.text;
    return { content: [{ type: 'text', text }], structuredContent: result.data };
  } catch (err) {
    if (err instanceof ToolError) return errorResult(err.message);
    return errorResult(`Tool ${tool.name} failed: ${err instanceof Error ? err.message : String(err)}`);
  }
}

/** `all` tools, or `read`: only the tools that change nothing (chosen by the client, docs/mcp.md). */
export type Toolset = 'all' | 'read';
export const TOOLSETS: readonly Toolset[] = ['all', 'read'];

const READ_NAMES = new Set(TOOLS.filter((t) => t.annotations.readOnlyHint).map((t) => t.name));
const READ_CATALOGUE = CATALOGUE.filter((t) => READ_NAMES.has(t.name));

/** A tools/call: the tool by name, the toolset's rule, the arguments checked strictly, the run. */
async function callTool(
  params: { name: string; arguments?: Record<string, unknown> },
  client: DocketClient,
  readOnly: boolean,
  readKey: boolean,
): Promise<CallToolResult> {
  const { name } = params;
  const tool = BY_NAME.get(name);
  if (!tool) return errorResult(`Unknown tool: ${name}`);
  if (readOnly && !READ_NAMES.has(name)) {
    return errorResult(
      readKey
        ? `Read-only API key: ${name} changes data, and this key may only read`
        : `${name} changes data: this connection has the read-only toolset`,
    );
  }
  const args = params.arguments ?? {};
  const parsed = (ARGS.get(name) as z.ZodType).safeParse(args);
  if (!parsed.success) {
    const unknown = parsed.error.issues.some((i) => i.code === 'unrecognized_keys');
    const known = unknown ? ` (parameters: ${Object.keys(tool.input).join(', ')})` : '';
    return errorResult(
      `Invalid arguments for ${name}: ${parsed.error.issues.map((i) => describeIssue(i, args)).join('; ')}${known}`,
    );
  }
  return runTool(tool, parsed.data, client);
}

/**
 * An MCP server with Docket's tools, acting through `client` (the HTTP API, as the key's user): all
 * of them, or with `toolset: 'read'` only those that change nothing (the others are not listed, and
 * calling one is an error result).
 *
 * Built on the SDK's protocol-level `Server` with its two tool methods as request handlers of our
 * own (docs/decisions/060-server-code-shape.md): tools/list answers the precomputed compact
 * catalogue, and tools/call checks arguments strictly with errors in words. The SDK's `McpServer`
 * computes its listing from the schemas on every call and checks arguments with its own texts, so
 * it would have to have both handlers replaced. test/mcp-sdk.test.ts pins what a client receives.
 */
export function createMcpServer(
  client: DocketClient,
  /** `readKey`: the read-only toolset is forced by the key's scope, and its refusals say so. */
  opts: { toolset?: Toolset; readKey?: boolean } = {},
): Server {
  const readOnly = opts.toolset === 'read' || opts.readKey === true;
  const server = new Server(SERVER_INFO, {
    instructions: INSTRUCTIONS,
    // The tool list is fixed for the connection: no `listChanged`.
    capabilities: { tools: { listChanged: false } },
  });
  const catalogue = readOnly ? READ_CATALOGUE : CATALOGUE;
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: catalogue }));
  server.setRequestHandler(CallToolRequestSchema, (request) =>
    callTool(request.params, client, readOnly, opts.readKey === true),
  );
  return server;
}
