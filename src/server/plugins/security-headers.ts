import type { Socket } from 'node:net';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../../config.js';
import { ERR } from '../../shared/errors.js';
import { API_CSP, APP_CSP } from '../web.js';

/** The headers every answer carries, whatever answers it (a route, an error, Fastify or Node itself). */
function fixedHeaders(https: boolean): Record<string, string> {
  return {
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'same-origin',
    'X-Frame-Options': 'DENY',
    'Cross-Origin-Opener-Policy': 'same-origin',
    ...(https ? { 'Strict-Transport-Security': 'max-age=15552000' } : {}),
  };
}

/**
 * Adds the security headers to every answer that goes through Fastify's reply: the fixed ones, a
 * Content-Security-Policy (the app shell and stored files set their own; the API reference page is
 * a small app of its own; everything else may load nothing), and `Cache-Control: no-store` on API
 * answers that did not choose one, so that no shared or browser cache keeps private data.
 */
export function registerSecurityHeaders(app: FastifyInstance, config: Config) {
  const https = config.publicUrl?.startsWith('https:') ?? false;
  const fixed = Object.entries(fixedHeaders(https));
  const docsPrefix = `${config.basePath}/api/docs`;
  const apiPrefix = `${config.basePath}/api/`;
  // A callback hook, not an async one: it runs on every answer and awaits nothing.
  app.addHook('onSend', (req, reply, payload, done) => {
    for (const [k, v] of fixed) reply.header(k, v);
    const docs = req.url.startsWith(docsPrefix);
    const csp = reply.getHeader('Content-Security-Policy');
    if (typeof csp !== 'string') {
      reply.header('Content-Security-Policy', docs ? APP_CSP : API_CSP);
    } else if (!csp.includes('frame-ancestors')) {
      reply.header('Content-Security-Policy', `${csp}; frame-ancestors 'none'`);
    }
    if (!docs && req.url.startsWith(apiPrefix) && !reply.hasHeader('Cache-Control')) {
      reply.header('Cache-Control', 'no-store');
    }
    done(null, payload);
  });
}

const FRAMEWORK_STATUS: Record<string, { status: number; error: string }> = {
  FST_ERR_BAD_URL: { status: 400, error: 'Bad request' },
  FST_ERR_MAX_PARAM_LENGTH: { status: 414, error: 'URI too long' },
};

/**
 * Fastify's own answers to a URL it cannot route (bad encoding, a too long parameter) bypass the
 * hooks and echo the URL: these answer with the headers and a fixed text instead.
 */
export function frameworkErrors(config: Config) {
  const headers = {
    ...fixedHeaders(config.publicUrl?.startsWith('https:') ?? false),
    'Content-Security-Policy': API_CSP,
    'Cache-Control': 'no-store',
  };
  return (err: FastifyError, _req: FastifyRequest, reply: FastifyReply) => {
    const known = FRAMEWORK_STATUS[err.code];
    const status = known?.status ?? 500;
    reply
      .code(status)
      .headers(headers)
      .type('application/json; charset=utf-8')
      .send(JSON.stringify({ error: known?.error ?? ERR.internal }));
  };
}

/**
 * Node's answers to requests it cannot parse (malformed, headers too large, too slow): the same
 * texts as Fastify's, plus the security headers.
 */
export function clientErrorHandler(config: Config) {
  const fixed = Object.entries({
    ...fixedHeaders(config.publicUrl?.startsWith('https:') ?? false),
    'Content-Security-Policy': API_CSP,
    'Cache-Control': 'no-store',
  })
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('');
  return (err: NodeJS.ErrnoException, socket: Socket) => {
    if (err.code === 'ECONNRESET' || socket.destroyed) return;
    const [status, text, error] =
      err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? [408, 'Request Timeout', 'Request timeout']
        : err.code === 'HPE_HEADER_OVERFLOW'
          ? [431, 'Request Header Fields Too Large', 'Request headers too large']
          : [400, 'Bad Request', 'Bad request'];
    const body = JSON.stringify({ error });
    if (socket.writable) {
      socket.write(
        `HTTP/1.1 ${status} ${text}\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n${fixed}\r\n${body}`,
      );
    }
    socket.destroy(err);
  };
}
