import fs from 'node:fs';
import path from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';
import type { Config } from '../config.js';
import { ERR } from '../shared/errors.js';

/** The app's Content-Security-Policy: nothing inline runs, nothing frames it. */
export const APP_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "media-src 'self' blob:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/** The policy of every other answer (JSON, errors, redirects): nothing may load, nothing frames it. */
export const API_CSP = "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

const PLACEHOLDER = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Docket</title>
<meta name="viewport" content="width=device-width, initial-scale=1"></head>
<body style="font:14px system-ui,sans-serif;max-width:40rem;margin:4rem auto;padding:0 1rem">
<h1>Docket</h1><p>The server is running. The web app has not been built yet: run <code>npm run build</code>.</p>
<p>The API reference is at <a href="%BASE%/api/docs">/api/docs</a>.</p></body></html>`;

/**
 * Serves the built single-page app under the base path, with the SPA fallback: any GET outside
 * /api and /uploads that accepts HTML gets index.html, so client-side routes survive a reload.
 * Unknown /api routes get a JSON 404.
 */
export async function registerWeb(scope: FastifyInstance, config: Config, webRoot: string) {
  const base = config.basePath;
  const indexFile = path.join(webRoot, 'index.html');
  const hasApp = fs.existsSync(indexFile);
  // <base> makes the relative asset URLs of the build work at any depth and under any base path.
  const indexHtml = (hasApp ? fs.readFileSync(indexFile, 'utf8') : PLACEHOLDER)
    .replace('<head>', `<head><base href="${base}/"><meta name="docket-base" content="${base}">`)
    .replaceAll('%BASE%', base);

  if (hasApp && fs.existsSync(path.join(webRoot, 'assets'))) {
    // The built assets are public like index.html: the sign-in page needs them before any session.
    scope.addHook('onRoute', (route) => {
      if (route.url.includes('/assets/') && !route.url.includes('/api/'))
        route.config = { ...(route.config ?? {}), auth: 'public' } as typeof route.config;
    });
    await scope.register(fastifyStatic, {
      root: path.join(webRoot, 'assets'),
      prefix: '/assets/',
      wildcard: false,
      index: false,
      immutable: true,
      maxAge: '365d',
      // The build wrote .br and .gz beside each file (scripts/build.js): sent by the browser's
      // Accept-Encoding, with Vary, no compression per request.
      preCompressed: true,
      setHeaders: (res) => res.setHeader('Vary', 'Accept-Encoding'),
    });
  }
  const sendIndex = (reply: import('fastify').FastifyReply) =>
    reply
      .type('text/html; charset=utf-8')
      .header('Cache-Control', 'no-cache')
      .header('Content-Security-Policy', APP_CSP)
      .send(indexHtml);

  scope.get('/', { schema: { hide: true }, config: { auth: 'public' } }, async (_req, reply) =>
    sendIndex(reply),
  );

  // Other files at the top of the build (favicon, manifest).
  if (hasApp) {
    for (const file of fs.readdirSync(webRoot)) {
      if (file === 'index.html' || file === 'assets' || /\.(br|gz)$/.test(file)) continue;
      const full = path.join(webRoot, file);
      if (!fs.statSync(full).isFile()) continue;
      scope.get(`/${file}`, { schema: { hide: true }, config: { auth: 'public' } }, async (_req, reply) =>
        reply.header('Cache-Control', 'public, max-age=3600').sendFile(file, webRoot),
      );
    }
  }

  scope.setNotFoundHandler(async (req, reply) => {
    const url = req.url.split('?')[0];
    const rel = url.startsWith(base) ? url.slice(base.length) : url;
    const isApi = rel === '/api' || rel.startsWith('/api/') || rel.startsWith('/uploads/');
    if (req.method === 'GET' && !isApi && String(req.headers.accept ?? '').includes('text/html'))
      return sendIndex(reply);
    return reply.status(404).send({ error: ERR.notFound });
  });
}
