import type { FastifyError, FastifyInstance } from 'fastify';
import { hasZodFastifySchemaValidationErrors, isResponseSerializationError } from 'fastify-type-provider-zod';
import { AppError } from '../../domain/errors.js';
import { RateLimited } from '../../domain/rate-limit.js';
import { auditRefusal } from '../../domain/refusals.js';
import { ERR } from '../../shared/errors.js';

const toPath = (instancePath: string) => instancePath.replace(/^\//, '').split('/').filter(Boolean).join('.');

/**
 * The one error handler: stable texts from DECISIONS section 4, validation details, and never a
 * stack trace or SQL text to a client.
 */
export function registerErrorHandler(app: FastifyInstance) {
  // An OAuth client reads `error` as a code and `error_description` as its text (RFC 6749 5.2): the
  // OAuth endpoints' 400s that come before their handler (a body that is not JSON, a NUL character)
  // answer in that shape too.
  app.addHook('preSerialization', async (request, reply, payload) => {
    if (reply.statusCode !== 400 || !request.routeOptions.config.oauthErrors) return payload;
    const p = payload as {
      error?: unknown;
      error_description?: unknown;
      details?: { path: string; message: string }[];
    };
    if (p?.error_description !== undefined || typeof p?.error !== 'string') return payload;
    const where = (p.details ?? []).map((d) => (d.path ? `${d.path}: ${d.message}` : d.message)).join('; ');
    return { error: 'invalid_request', error_description: where ? `${p.error}: ${where}` : p.error };
  });
  app.setErrorHandler((err: FastifyError, request, reply) => {
    // A rate limit's refusal: the first of its window is recorded in the audit log (refusals.ts).
    if (err instanceof RateLimited && err.refusal.first) {
      const who = { actor: request.ctx?.actor ?? null, address: request.ctx?.address ?? request.ip ?? null };
      const route = `${request.method} ${request.routeOptions.url ?? request.url}`;
      return auditRefusal(app.services, who, err.refusal, route)
        .catch((failure) => request.log.error({ err: failure }, 'could not record a refusal'))
        .then(() => {
          reply.header('Retry-After', String(err.refusal.retryAfter));
          return reply.status(429).send({ error: err.message });
        });
    }
    if (err instanceof AppError) {
      if (err.status === 429 && typeof err.extra.retryAfter === 'number') {
        reply.header('Retry-After', String(err.extra.retryAfter));
        return reply.status(429).send({ error: err.message });
      }
      return reply.status(err.status).send({ error: err.message, ...err.extra });
    }
    if (hasZodFastifySchemaValidationErrors(err)) {
      const where = err.validationContext;
      const details = err.validation.map((v) => {
        const p = toPath(v.instancePath);
        return {
          path: where && where !== 'body' ? [where, p].filter(Boolean).join('.') : p,
          message: v.message ?? 'Invalid',
        };
      });
      return reply.status(400).send({ error: ERR.validation, details });
    }
    if (err.code === 'FST_ERR_CTP_BODY_TOO_LARGE' || err.statusCode === 413) {
      return reply.status(413).send({ error: ERR.bodyTooLarge });
    }
    if (err.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') {
      return reply.status(415).send({ error: 'Unsupported media type' });
    }
    if (
      err instanceof SyntaxError ||
      err.code === 'FST_ERR_CTP_INVALID_JSON_BODY' ||
      err.code === 'FST_ERR_CTP_EMPTY_JSON_BODY'
    ) {
      return reply
        .status(400)
        .send({ error: ERR.validation, details: [{ path: '', message: 'Body is not valid JSON' }] });
    }
    if (err.statusCode === 429) {
      return reply.status(429).send({ error: ERR.rateLimit });
    }
    if (isResponseSerializationError(err)) {
      request.log.error({ err }, 'response did not match its schema');
      return reply.status(500).send({ error: ERR.internal });
    }
    if (typeof err.statusCode === 'number' && err.statusCode >= 400 && err.statusCode < 500) {
      // Fastify's own client errors (bad content type, malformed URL, …): their texts are safe.
      const message = err.statusCode === 404 ? ERR.notFound : err.message || 'Bad request';
      return reply.status(err.statusCode).send({ error: message });
    }
    request.log.error({ err }, 'request failed');
    return reply.status(500).send({ error: ERR.internal });
  });
}
