import type { FastifyInstance } from 'fastify';
import { invalidField, notFound } from '../../domain/errors.js';

const join = (at: string, key: string) => (at ? `${at}.${key}` : key);

/**
 * Where in a parsed value the first string (or key) with a NUL character is, or null. It walks an
 * explicit stack (a JSON body may nest deeper than the call stack allows) and builds a path only for
 * nested containers and for the finding: it runs on the params, query and body of every request.
 */
export function findNul(value: unknown, base = ''): string | null {
  if (typeof value === 'string') return value.includes('\u0000') ? base : null;
  if (!value || typeof value !== 'object') return null;
  const stack: { v: object; at: string }[] = [{ v: value, at: base }];
  for (let top = stack.pop(); top; top = stack.pop()) {
    const { v, at } = top;
    for (const k in v) {
      if (k.includes('\u0000')) return join(at, k);
      const inner = (v as Record<string, unknown>)[k];
      if (typeof inner === 'string') {
        if (inner.includes('\u0000')) return join(at, k);
      } else if (inner && typeof inner === 'object') {
        stack.push({ v: inner, at: join(at, k) });
      }
    }
  }
  return null;
}

/**
 * Text with a NUL character is refused before any handler runs: PostgreSQL cannot store it (the
 * driver fails the whole query, which was a 500), and no field of Docket has a use for it. A body
 * or query field answers 400 naming the field; a path parameter names no record, so 404.
 * `/api/mcp` (`config.nulInBody`) passes the body on: its tools call the API, which refuses it there.
 */
export function registerInputGuard(app: FastifyInstance) {
  // A callback hook, not an async one: it runs on every request and awaits nothing.
  app.addHook('preValidation', (req, _reply, done) => {
    if (findNul(req.params) !== null) return done(notFound());
    const inQuery = findNul(req.query);
    if (inQuery !== null)
      return done(
        invalidField(['query', inQuery].filter(Boolean).join('.'), 'Must not contain NUL characters'),
      );
    // The MCP endpoint's body is a tool call: a NUL in its arguments becomes the tool's error result
    // when the tool passes it to the API (where this guard refuses it), not a transport-level 400.
    if (req.routeOptions.config.nulInBody === true) return done();
    const inBody = findNul(req.body);
    if (inBody !== null) return done(invalidField(inBody, 'Must not contain NUL characters'));
    done();
  });
}
