import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../../config.js';
import { resolveApiKey } from '../../domain/api-keys.js';
import { resolveSession } from '../../domain/auth.js';
import { type Ctx, requestCtx, type Services } from '../../domain/context.js';
import { AppError } from '../../domain/errors.js';
import { ERR } from '../../shared/errors.js';

export type AuthLevel = 'public' | 'optional' | 'user' | 'admin';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Who may call the route: default `user` (a session or an API key). */
    auth?: AuthLevel;
    /** False refuses API keys with 403 (password, e-mail, account, key and admin endpoints). */
    apiKey?: boolean;
    /** True lets NUL characters through in the body: /api/mcp, whose tools pass them to the API's own guard. */
    nulInBody?: boolean;
    /** Open to a user who must change their password (their profile, the password change). */
    beforePasswordChange?: boolean;
    /** Open to a user who must still turn on two-factor sign-in (their profile, the setup). */
    twoFactorSetup?: boolean;
    /** True lets cross-site writes through: the OAuth client endpoints, which read no cookie. */
    anyOrigin?: boolean;
    /** True answers the route's 400s as OAuth does (RFC 6749 5.2): `{error: 'invalid_request', error_description}`. */
    oauthErrors?: boolean;
  }
  interface FastifyRequest {
    ctx: Ctx;
    sessionToken: string | null;
    sessionExpires: string | null;
  }
}

export const SESSION_COOKIE = 'docket_session';

const STATE_CHANGING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

function cookiePath(config: Config) {
  return config.basePath || '/';
}

export function setSessionCookie(
  reply: FastifyReply,
  config: Config,
  session: { token: string; expires: string },
) {
  reply.setCookie(SESSION_COOKIE, session.token, {
    httpOnly: true,
    path: cookiePath(config),
    sameSite: 'lax',
    secure: config.publicUrl?.startsWith('https:') ?? false,
    expires: new Date(session.expires),
  });
}

export function clearSessionCookie(reply: FastifyReply, config: Config) {
  reply.clearCookie(SESSION_COOKIE, {
    httpOnly: true,
    path: cookiePath(config),
    sameSite: 'lax',
    secure: config.publicUrl?.startsWith('https:') ?? false,
  });
}

/**
 * True when the Origin names this site, scheme included: the public URL's origin, or the request's
 * own (its scheme is https only over TLS or when a trusted proxy says so in X-Forwarded-Proto;
 * its host is the Host header, or X-Forwarded-Host from a trusted proxy). With DOCKET_PUBLIC_URL
 * set, its host name under another scheme or port is another site, even when the request itself
 * came that way (a TLS-terminating proxy that also serves plain http).
 */
function sameSite(request: FastifyRequest, origin: string, config: Config): boolean {
  let o: URL;
  try {
    o = new URL(origin);
  } catch {
    return false;
  }
  if (config.publicUrl) {
    const pub = new URL(config.publicUrl);
    if (pub.origin === o.origin) return true;
    // The public name under another scheme or port is another site, however the request came.
    if (pub.hostname === o.hostname) return false;
  }
  // Fastify reads X-Forwarded-Host and -Proto only from a trusted proxy (DOCKET_TRUST_PROXY).
  const host = request.host;
  if (!host) return false;
  try {
    // Default ports are normalised the same way on both sides (Host: example.com:80 is http://example.com).
    return new URL(`${request.protocol}://${host}`).origin === o.origin;
  } catch {
    return false;
  }
}

/**
 * Turns the session cookie or the Bearer key into an actor, then enforces the route's auth level,
 * the API-key exclusions and the cross-site rule. Runs before body parsing, so 401 and 403 come
 * before any validation error.
 *
 * It is a hook of each route, added as the route registers, so it reads that route's options
 * directly; a global hook would have to build `request.routeOptions` on every request. The options
 * are read when the request comes, not when the route registers: hooks of inner scopes (the API
 * reference, the web app's assets) may still rewrite their `config` after this one ran. Requests
 * that match no route have no actor: they are answered 404 without one.
 */
export function registerAuth(app: FastifyInstance, services: Services) {
  app.decorateRequest('ctx', null as unknown as Ctx);
  app.decorateRequest('sessionToken', null);
  app.decorateRequest('sessionExpires', null);

  app.addHook('onRoute', (route) => {
    const authenticate = (request: FastifyRequest) =>
      authenticateRequest(
        request,
        services,
        route.config?.auth ?? 'user',
        route.config?.apiKey,
        route.config?.beforePasswordChange,
        route.config?.twoFactorSetup,
        route.config?.anyOrigin,
      );
    route.onRequest = [authenticate, ...(route.onRequest ? [route.onRequest].flat() : [])];
  });
}

async function authenticateRequest(
  request: FastifyRequest,
  services: Services,
  level: AuthLevel,
  apiKey: boolean | undefined,
  beforePasswordChange: boolean | undefined,
  twoFactorSetup?: boolean,
  anyOrigin?: boolean,
) {
  const tabHeader = request.headers['x-tab-id'];
  const tabId =
    typeof tabHeader === 'string' && tabHeader.length > 0 && tabHeader.length <= 100 ? tabHeader : null;
  const agent = request.headers['user-agent'];
  const ctx = requestCtx(
    services,
    tabId,
    request.ip ?? null,
    typeof agent === 'string' && agent.length > 0 ? agent.slice(0, 300) : null,
  );
  request.ctx = ctx;
  const authorization = request.headers.authorization;
  const bearer = !!authorization && /^bearer\s/i.test(authorization);
  // The cross-site rule holds for every browser write, signed in or not: a foreign page's form
  // must not sign a browser in (login CSRF), register, or sign it out. A Bearer key is not sent by
  // browsers on their own, so it needs no Origin.
  if (!bearer && !anyOrigin && STATE_CHANGING.has(request.method)) {
    const origin = request.headers.origin;
    if (origin && !sameSite(request, origin, services.config)) throw new AppError(403, ERR.crossSite);
  }
  if (level === 'public') return;

  if (bearer) {
    ctx.actor = await resolveApiKey(ctx, (authorization as string).slice(7).trim());
  } else {
    const token = request.cookies[SESSION_COOKIE];
    if (token) {
      const resolved = await resolveSession(ctx, token);
      if (resolved) {
        ctx.actor = resolved.actor;
        request.sessionToken = token;
        request.sessionExpires = resolved.expires;
      }
    }
  }

  const actor = ctx.actor;
  if ((level === 'user' || level === 'admin') && !actor) throw new AppError(401, ERR.authRequired);
  if (actor?.via === 'apiKey' && (apiKey === false || (level === 'admin' && apiKey !== true))) {
    throw new AppError(403, ERR.notWithApiKey);
  }
  if (level === 'admin' && !actor?.isSystemAdmin) throw new AppError(403, ERR.adminRequired);
  if (actor?.keyScope === 'read' && STATE_CHANGING.has(request.method))
    throw new AppError(403, ERR.readOnlyKey);
  // An account given a temporary password (a wipe, the command line, an administrator) acts only
  // after changing it: enforced here, not just by the web app (issue 19, finding 6).
  if (actor?.mustChangePassword && level !== 'optional' && !beforePasswordChange) {
    throw new AppError(403, ERR.passwordChangeRequired);
  }
  // Administrators may require two-factor sign-in of everyone: until it is on, only the profile
  // and the setup (and what a temporary password allows) are open.
  if (actor?.twoFactorSetupRequired && level !== 'optional' && !twoFactorSetup && !beforePasswordChange) {
    throw new AppError(403, ERR.twoFactorSetupRequired);
  }
}
