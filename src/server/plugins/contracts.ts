import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ZodType } from 'zod';
import { errorOut } from '../../shared/common.js';
import { contractBreach } from '../../shared/contracts.js';

/**
 * Answers are serialised with plain JSON.stringify: the `response` schemas of the routes document
 * the API (/api/openapi.json) and type it, but checking every answer would cost time on every
 * request and turn a drift into a 500 for users.
 */
export const plainSerializer = () => (data: unknown) => JSON.stringify(data);

/** The schema a route declares for a status: the exact code, then `2xx`-style ranges. */
function declared(req: FastifyRequest, status: number): ZodType | undefined {
  const response = (req.routeOptions.schema as { response?: Record<string, ZodType> } | undefined)?.response;
  if (!response) return undefined;
  return response[status] ?? response[`${String(status)[0]}xx`];
}

/** Routes outside the contract: the API docs, the MCP endpoint (JSON-RPC) and the web app. */
const outside = (req: FastifyRequest) => {
  const url = req.routeOptions.url ?? '';
  return (
    !url.startsWith('/api/') ||
    url.startsWith('/api/docs') ||
    url === '/api/mcp' ||
    (req.routeOptions.schema as { hide?: boolean } | undefined)?.hide === true
  );
};

/**
 * Test mode (Config.checkContracts, set by the test suite): every JSON answer, including the
 * pre-serialised ones, must parse with the schema its route declares for that status, and hold no
 * field the schema lacks (the parsed value must equal the sent one); error answers must be
 * `{error, details?}`. A mismatch is logged with its route and fails the request with a 500, so
 * any test that meets it fails.
 */
export function registerContractChecks(app: FastifyInstance) {
  app.addHook('onSend', async (req: FastifyRequest, reply: FastifyReply, payload: unknown) => {
    // Text, or the bytes of JSON built elsewhere (the ticket list is kept as bytes).
    const text = typeof payload === 'string' ? payload : Buffer.isBuffer(payload) ? null : undefined;
    if (text === undefined || outside(req)) return payload;
    if (!String(reply.getHeader('content-type') ?? '').startsWith('application/json')) return payload;
    const status = reply.statusCode;
    const schema = declared(req, status) ?? (status >= 400 ? errorOut : undefined);
    const where = `${req.method} ${req.routeOptions.url} ${status}`;
    if (!schema) {
      // Bytes without a schema are a file, not an answer built from one.
      if (text === null) return payload;
      return fail(where, 'the route declares no response schema for this status');
    }
    const breach = contractBreach(schema, JSON.parse(text ?? (payload as Buffer).toString('utf8')));
    if (breach) fail(where, breach);
    return payload;
  });
}

function fail(where: string, why: string): never {
  const message = `Breaks its contract: ${where}: ${why}`;
  console.error(message);
  throw new Error(message);
}

/**
 * Sends JSON built elsewhere (the ticket list and the full read are serialised once and cached, as
 * bytes or text). Its shape is the route's declared schema; the test suite's contract checks parse
 * it like any other answer.
 */
export function sendJsonText(reply: FastifyReply, json: string | Buffer) {
  return reply.type('application/json; charset=utf-8').send(json as never);
}
