import type { FastifyPluginAsyncZod, ZodTypeProvider } from 'fastify-type-provider-zod';
import { checkCredentials, deleteSessionByToken, login } from '../../domain/auth.js';
import { AppError } from '../../domain/errors.js';
import { mailEnabled } from '../../domain/notifications/settings.js';
import { requestPasswordReset, resetPassword } from '../../domain/password-reset.js';
import { WindowCounter } from '../../domain/rate-limit.js';
import { sessionUser } from '../../domain/sessions.js';
import { register } from '../../domain/users.js';
import {
  authOptionsOut,
  forgotPasswordBody,
  loginBody,
  registerBody,
  registerOut,
  resetPasswordBody,
  sessionOut,
  signedInOut,
  signoutBody,
  signoutOut,
  verifyCredentialsOut,
} from '../../shared/accounts.js';
import { successResponse } from '../../shared/common.js';
import { ERR } from '../../shared/errors.js';
import { clearSessionCookie, SESSION_COOKIE, setSessionCookie } from '../plugins/auth.js';
import { acceptForms } from '../plugins/forms.js';

const tags = ['Authentication'];

/** The session answer when nobody is signed in. */
const signedOut: Record<string, never> = {};

export const authRoutes: FastifyPluginAsyncZod = async (app) => {
  const { config } = app.services;
  const registrations = new WindowCounter(
    app.services.db,
    'register',
    config.registerLimit,
    config.registerWindowSeconds * 1000,
  );

  app.post(
    '/api/auth/register',
    {
      schema: { tags, summary: 'Register an account', response: { 201: registerOut }, body: registerBody },
      config: { auth: 'public' },
      // Count the attempt before validation, so that invalid attempts are limited too.
      onRequest: async (req) => {
        await registrations.take(req.ip);
        if (config.registration === 'closed' || config.oidc?.only)
          throw new AppError(403, ERR.registrationClosed);
      },
    },
    async (req, reply) => reply.status(201).send(await register(req.ctx, req.body)),
  );

  app.get(
    '/api/auth/options',
    {
      schema: { tags, summary: 'What the sign-in page offers', response: { 200: authOptionsOut } },
      config: { auth: 'public' },
    },
    async () => ({
      registration: config.oidc?.only ? ('closed' as const) : config.registration,
      passwordReset: mailEnabled(config),
      sso: config.oidc ? { name: config.oidc.name, url: `${config.basePath}/api/auth/oidc/start` } : null,
      passwordSignIn: config.oidc?.only ? ('admins' as const) : ('everyone' as const),
    }),
  );

  // Forgotten passwords: requests and resets share one per-address limit (the registration's
  // numbers); the answer to a request never tells whether an account matched.
  const resets = new WindowCounter(
    app.services.db,
    'password-reset',
    config.registerLimit,
    config.registerWindowSeconds * 1000,
  );
  const countReset = async (req: { ip: string }) => {
    await resets.take(req.ip);
  };

  app.post(
    '/api/auth/forgot',
    {
      schema: {
        tags,
        summary: 'Send a password reset link to the account with this e-mail address or username',
        response: { 200: successResponse },
        body: forgotPasswordBody,
      },
      config: { auth: 'public' },
      onRequest: countReset,
    },
    async (req) => {
      await requestPasswordReset(req.ctx, req.body.email ?? req.body.username ?? '');
      return { success: true as const };
    },
  );

  app.post(
    '/api/auth/reset',
    {
      schema: {
        tags,
        summary: 'Set a new password with the token of a reset link; ends every session',
        response: { 200: successResponse },
        body: resetPasswordBody,
      },
      config: { auth: 'public' },
      onRequest: countReset,
    },
    async (req) => {
      const userId = await resetPassword(req.ctx, req.body.token, req.body.password);
      app.sessionEnded({ userId });
      return { success: true as const };
    },
  );

  app.post(
    '/api/auth/verify-credentials',
    {
      schema: {
        tags,
        summary: 'Check credentials without creating a session',
        response: { 200: verifyCredentialsOut },
        body: loginBody,
      },
      config: { auth: 'public' },
    },
    async (req) => {
      try {
        const user = await checkCredentials(req.ctx, req.body.username, req.body.password);
        return { valid: true, user };
      } catch (err) {
        if (err instanceof AppError && (err.status === 401 || err.status === 403)) return { valid: false };
        throw err;
      }
    },
  );

  app.get(
    '/api/auth/session',
    {
      schema: { tags, summary: 'The current session, or {} when signed out', response: { 200: sessionOut } },
      config: { auth: 'optional', apiKey: true },
    },
    async (req) => {
      const user = await sessionUser(req.ctx);
      return user ? { user, expires: req.sessionExpires } : signedOut;
    },
  );

  // Sign-in and sign-out also take HTML forms; the cross-site Origin rule covers them
  // (plugins/auth.ts), so a foreign page's form cannot sign a browser in or out.
  await app.register(async (scope) => {
    acceptForms(scope);
    const forms = scope.withTypeProvider<ZodTypeProvider>();
    forms.post(
      '/api/auth/callback/credentials',
      {
        schema: {
          tags,
          summary: 'Sign in with a username or e-mail address and a password',
          response: { 200: signedInOut },
          body: loginBody,
        },
        config: { auth: 'public' },
      },
      async (req, reply) => {
        const { user, session } = await login(req.ctx, req.body.username, req.body.password, req.body.code);
        setSessionCookie(reply, config, session);
        return { user, expires: session.expires };
      },
    );

    forms.post(
      '/api/auth/signout',
      {
        schema: {
          tags,
          summary: 'Sign out and go to callbackUrl (a path on this site)',
          response: { 200: signoutOut },
          body: signoutBody,
        },
        config: { auth: 'public' },
      },
      async (req, reply) => {
        const token = req.cookies[SESSION_COOKIE];
        if (token) {
          const userId = await deleteSessionByToken(req.ctx, token);
          if (userId) app.sessionEnded({ userId, tokens: [token] });
        }
        clearSessionCookie(reply, config);
        const url = safeCallback(req.body?.callbackUrl, config.basePath);
        const accept = String(req.headers.accept ?? '');
        if (accept.includes('application/json') && !accept.includes('text/html')) return { url };
        return reply.redirect(url, 302);
      },
    );
  });
};

/**
 * A path on this site, or the site root: never another site. The path is resolved first
 * (`/..//evil.example` resolves to `//evil.example`, which a browser reads as another host), and
 * whatever resolves to a scheme-relative or backslash path goes to the root.
 */
export function safeCallback(callbackUrl: string | undefined, basePath: string): string {
  const root = `${basePath}/`;
  if (!callbackUrl) return root;
  if (!callbackUrl.startsWith('/') || callbackUrl.startsWith('//') || /[\\\s]/.test(callbackUrl)) return root;
  try {
    const u = new URL(callbackUrl, 'http://docket.invalid');
    if (u.origin !== 'http://docket.invalid') return root;
    const out = `${u.pathname}${u.search}${u.hash}`;
    if (!out.startsWith('/') || out.startsWith('//') || out.includes('\\')) return root;
    if (basePath && out !== basePath && !out.startsWith(`${basePath}/`)) return root;
    return out;
  } catch {
    return root;
  }
}
