import type { FastifyInstance } from 'fastify';
import { invalidField, notFound } from '../../domain/errors.js';

/** Where in a parsed value the first string (or key) with a NUL character is, or null. */
export function findNul(value: unknown, base = ''): string | null {
  const stack: [unknown, string][] = [[value, base]];
  while (stack.length) {
    const [v, at] = stack.pop() as [unknown, string];
    if (typeof v === 'string') {
      if (v.includes('\u0000')) return at;
    } else if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) stack.push([v[i], at ? `${at}.${i}` : String(i)]);
    } else if (v && typeof v === 'object') {
      for (const [k, inner] of Object.entries(v)) {
        const p = at ? `${at}.${k}` : k;
        if (k.includes('\u0000')) return p;
        stack.push([inner, p]);
      }
    }
  }
  return null;
}

/**
 * Text with a NUL character is refused before any handler runs: PostgreSQL cannot store it (the
 * driver fails the whole query, which was a 500), and no field of Docket has a use for it. A body
 * or query field answers 400 naming the field; a path parameter names no record, so 404.
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
    const inBody = findNul(req.body);
    if (inBody !== null) return done(invalidField(inBody, 'Must not contain NUL characters'));
    done();
  });
}
