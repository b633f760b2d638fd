import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { resolveApiKey, resolveSession } from '../../domain/auth.js';
import type { Ctx, Services } from '../../domain/context.js';
import { AppError } from '../../domain/errors.js';
import { ERR } from '../../shared/errors.js';
import type { Config } from '../config.js';

export type AuthLevel = 'public' | 'optional' | 'user' | 'admin';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Who may call the route: default `user` (a session or an API key). */
    auth?: AuthLevel;
    /** False refuses API keys with 403 (password, e-mail, account, key and admin endpoints). */
    apiKey?: boolean;
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

/** True when the Origin names this site: the request's own Host, or the public URL. */
function sameSite(request: FastifyRequest, origin: string, config: Config): boolean {
  let o: URL;
  try {
    o = new URL(origin);
  } catch {
    return false;
  }
  if (config.publicUrl && new URL(config.publicUrl).origin === o.origin) return true;
  const host =
    request.headers['x-forwarded-host'] && config.trustProxy
      ? String(request.headers['x-forwarded-host'])
      : request.headers.host;
  if (!host) return false;
  try {
    // Normalise default ports the same way on both sides (Host: example.com:80 equals http://example.com).
    return new URL(`${o.protocol}//${host}`).host === o.host;
  } catch {
    return false;
  }
}

/**
 * Turns the session cookie or the Bearer key into an actor, then enforces the route's auth level,
 * the API-key exclusions and the cross-site rule. Runs before body parsing, so 401 and 403 come
 * before any validation error.
 */
export function registerAuth(app: FastifyInstance, services: Services) {
  app.decorateRequest('ctx', null as unknown as Ctx);
  app.decorateRequest('sessionToken', null);
  app.decorateRequest('sessionExpires', null);

  app.addHook('onRequest', async (request) => {
    const tabHeader = request.headers['x-tab-id'];
    const tabId =
      typeof tabHeader === 'string' && tabHeader.length > 0 && tabHeader.length <= 100 ? tabHeader : null;
    request.ctx = { ...services, actor: null, tabId, readView: {} };

    // routeOptions is a getter that builds a new object on every read.
    const route = request.routeOptions;
    const matched = route.url !== undefined;
    const config = route.config ?? {};
    const level: AuthLevel = matched ? (config.auth ?? 'user') : 'public';

    const authorization = request.headers.authorization;
    if (authorization && /^bearer\s/i.test(authorization)) {
      const key = authorization.slice(7).trim();
      if (level === 'public') return;
      request.ctx.actor = await resolveApiKey(request.ctx, key);
    } else {
      const token = request.cookies[SESSION_COOKIE];
      if (token && level !== 'public') {
        const resolved = await resolveSession(request.ctx, token);
        if (resolved) {
          request.ctx.actor = resolved.actor;
          request.sessionToken = token;
          request.sessionExpires = resolved.expires;
        }
      }
    }

    const actor = request.ctx.actor;
    if ((level === 'user' || level === 'admin') && !actor) throw new AppError(401, ERR.authRequired);
    if (
      actor?.via === 'apiKey' &&
      (config.apiKey === false || (level === 'admin' && config.apiKey !== true))
    ) {
      throw new AppError(403, ERR.notWithApiKey);
    }
    if (level === 'admin' && !actor?.isSystemAdmin) throw new AppError(403, ERR.adminRequired);

    if (actor?.via === 'session' && STATE_CHANGING.has(request.method)) {
      const origin = request.headers.origin;
      if (origin && !sameSite(request, origin, services.config)) throw new AppError(403, ERR.crossSite);
    }
  });
}
