import type { FastifyInstance } from 'fastify';

/**
 * HTML form bodies (`application/x-www-form-urlencoded`), parsed only in the scopes where a form is
 * expected (sign-in and sign-out): elsewhere they are refused with 415, so a cross-site form cannot
 * reach an endpoint that expects JSON (issue 19, finding 3). Keys like `__proto__` stay plain keys.
 */
export function acceptForms(scope: FastifyInstance) {
  scope.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string' },
    (_req, body, done) => {
      const out: Record<string, string> = Object.create(null);
      for (const [k, v] of new URLSearchParams(body as string)) out[k] = v;
      done(null, { ...out });
    },
  );
}
