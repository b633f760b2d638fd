import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { resolveApiKey } from '../../domain/api-keys.js';
import { AppError } from '../../domain/errors.js';
import { DocketClient, type FetchLike } from '../../mcp/client.js';
import { createMcpServer, TOOLSETS, type Toolset } from '../../mcp/server.js';
import { ERR } from '../../shared/errors.js';
import { oauthSite, resourceMetadataUrl } from './oauth.routes.js';

/**
 * Sends a request through this app's own HTTP API without a socket, so the in-process tool server
 * passes the same routes, validation, permissions and events as every other client.
 */
export function injectFetch(app: FastifyInstance): FetchLike {
  return async (url, init) => {
    const u = new URL(url);
    const res = await app.inject({
      method: (init.method ?? 'GET') as 'GET',
      url: u.pathname + u.search,
      headers: init.headers as Record<string, string>,
      payload: typeof init.body === 'string' ? init.body : undefined,
    });
    const headers = new Headers();
    for (const [k, v] of Object.entries(res.headers)) {
      if (v === undefined) continue;
      for (const one of Array.isArray(v) ? v : [v]) headers.append(k, String(one));
    }
    const empty = res.statusCode === 204 || res.statusCode === 304 || res.rawPayload.length === 0;
    return new Response(empty ? null : new Uint8Array(res.rawPayload), { status: res.statusCode, headers });
  };
}

function jsonRpcError(reply: FastifyReply, status: number, code: number, message: string) {
  return reply.status(status).send({ jsonrpc: '2.0', error: { code, message }, id: null });
}

/**
 * MCP Streamable HTTP at /api/mcp (stateless: one server and transport per request): a Bearer API
 * key or OAuth access token only.
 */
export const mcpRoutes: FastifyPluginAsyncZod = async (app) => {
  const base = `http://docket.internal${app.services.config.basePath}`;
  const fetchLocal = injectFetch(app);

  app.post(
    '/api/mcp',
    {
      schema: {
        tags: ['MCP'],
        summary: 'MCP Streamable HTTP endpoint (JSON-RPC); authenticate with Authorization: Bearer <apiKey>',
        hide: false,
      },
      config: { auth: 'public', nulInBody: true },
    },
    async (req, reply) => {
      const header = req.headers.authorization ?? '';
      const m = /^bearer\s+(.+)$/i.exec(header);
      // Where an OAuth client finds how to sign in (RFC 9728 section 5.1, the MCP authorization spec).
      const metadata = `resource_metadata="${resourceMetadataUrl(oauthSite(req, app.services.config))}"`;
      if (!m) {
        reply.header('WWW-Authenticate', `Bearer ${metadata}`);
        return jsonRpcError(reply, 401, -32001, `${ERR.authRequired}: send Authorization: Bearer <apiKey>`);
      }
      const apiKey = m[1].trim();
      let readKey = false;
      try {
        // A read-scoped key (or OAuth token) gets the read-only toolset whatever the client asks.
        readKey = (await resolveApiKey(app.services, apiKey)).keyScope === 'read';
      } catch (err) {
        if (err instanceof AppError && err.status === 401) {
          reply.header('WWW-Authenticate', `Bearer error="invalid_token", ${metadata}`);
          return jsonRpcError(reply, 401, -32001, err.message);
        }
        throw err;
      }
      // The read-only toolset, chosen by the client: /api/mcp?toolset=read or the X-MCP-Toolset header.
      const asked = (req.query as { toolset?: unknown }).toolset ?? req.headers['x-mcp-toolset'] ?? 'all';
      const toolset = String(asked).toLowerCase();
      if (!(TOOLSETS as readonly string[]).includes(toolset)) {
        return jsonRpcError(
          reply,
          400,
          -32602,
          `toolset must be ${TOOLSETS.join(' or ')}, not "${String(asked)}"`,
        );
      }

      const publicUrl =
        app.services.config.publicUrl ?? `${req.protocol}://${req.host}${app.services.config.basePath}`;
      const server = createMcpServer(
        new DocketClient({ baseUrl: base, apiKey, fetch: fetchLocal, publicUrl }),
        {
          toolset: toolset as Toolset,
          readKey,
        },
      );
      const transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: undefined,
        enableJsonResponse: true,
      });
      reply.raw.on('close', () => {
        void transport.close();
        void server.close();
      });
      reply.hijack();
      await server.connect(transport);
      await transport.handleRequest(req.raw, reply.raw, req.body);
    },
  );

  for (const method of ['GET', 'DELETE'] as const) {
    app.route({
      method,
      url: '/api/mcp',
      schema: { hide: true },
      config: { auth: 'public' },
      handler: async (_req, reply) => {
        reply.header('Allow', 'POST');
        return jsonRpcError(
          reply,
          405,
          -32000,
          'Method not allowed: this MCP endpoint is stateless; use POST',
        );
      },
    });
  }
};
