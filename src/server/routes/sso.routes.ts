import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { WindowCounter } from '../../domain/rate-limit.js';
import { finishSignOn, SSO_PENDING_MS, SsoError, startSignOn } from '../../domain/sso.js';
import { setSessionCookie } from '../plugins/auth.js';
import { safeCallback } from './auth.routes.js';

const tags = ['Authentication'];

/** The state of a single sign-on under way, kept by the browser that started it. */
const STATE_COOKIE = 'docket_oidc';

/**
 * Single sign-on with OpenID Connect (src/domain/sso.ts): both routes are browser navigations, so
 * they answer redirects. A refused sign-in goes back to the sign-in page with `?sso=<reason>`.
 */
export const ssoRoutes: FastifyPluginAsyncZod = async (app) => {
  const { config } = app.services;
  const cookieOptions = {
    httpOnly: true,
    path: `${config.basePath}/api/auth/oidc`,
    sameSite: 'lax' as const,
    secure: config.publicUrl?.startsWith('https:') ?? false,
  };
  // Each start writes a row: starts count per client address like password attempts do.
  const starts = new WindowCounter(
    app.services.db,
    'sso-start',
    config.loginAddressLimit,
    config.registerWindowSeconds * 1000,
  );
  const refused = (reason: string) => `${config.basePath}/sign-in?sso=${encodeURIComponent(reason)}`;

  app.get(
    '/api/auth/oidc/start',
    {
      schema: {
        tags,
        summary: 'Sign in with the configured OpenID provider (redirects there)',
        querystring: z.object({ callbackUrl: z.string().max(2048).optional() }),
      },
      config: { auth: 'public' },
      onRequest: async (req) => {
        await starts.take(req.ip);
      },
    },
    async (req, reply) => {
      try {
        const { url, state } = await startSignOn(
          req.ctx,
          safeCallback(req.query.callbackUrl, config.basePath),
        );
        reply.setCookie(STATE_COOKIE, state, { ...cookieOptions, maxAge: SSO_PENDING_MS / 1000 });
        return reply.redirect(url, 302);
      } catch (err) {
        if (err instanceof SsoError) return reply.redirect(refused(err.reason), 302);
        throw err;
      }
    },
  );

  app.get(
    '/api/auth/oidc/callback',
    {
      schema: {
        tags,
        summary: 'Where the OpenID provider sends the browser back (signs in, then redirects)',
        querystring: z.looseObject({
          code: z.string().max(4096).optional(),
          state: z.string().max(2048).optional(),
          error: z.string().max(2048).optional(),
        }),
      },
      config: { auth: 'public' },
    },
    async (req, reply) => {
      const query = req.url.includes('?') ? req.url.slice(req.url.indexOf('?') + 1) : '';
      const cookieState = req.cookies[STATE_COOKIE];
      reply.clearCookie(STATE_COOKIE, cookieOptions);
      try {
        const { session, returnTo, user } = await finishSignOn(req.ctx, query, cookieState);
        if (session.ended.length > 0) app.sessionEnded({ userId: user.id, hashes: session.ended });
        setSessionCookie(reply, config, session);
        return reply.redirect(returnTo, 302);
      } catch (err) {
        if (err instanceof SsoError) return reply.redirect(refused(err.reason), 302);
        throw err;
      }
    },
  );
};
