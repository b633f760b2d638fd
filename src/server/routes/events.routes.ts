import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { requireProjectAccess } from '../../domain/access.js';
import { actorOf } from '../../domain/context.js';
import { AppError } from '../../domain/errors.js';
import { hashToken } from '../../domain/tokens.js';
import type { StreamHolder, StreamKind } from '../../events/streams.js';
import { idParam } from '../../shared/common.js';
import { ERR } from '../../shared/errors.js';
import { eventStreamQuery } from '../../shared/events.js';

const tags = ['Events'];
const description =
  'Server-sent events (`text/event-stream`). Each message has `id: <event id>` and `data: {type, data, tabId, timestamp}`; ' +
  'a `: keepalive` comment comes every DOCKET_SSE_KEEPALIVE_SECONDS. Reconnect with `Last-Event-ID` (or `?lastEventId=`) ' +
  'to receive the events missed in the last 10 minutes, or a `resync` event when they are no longer available. ' +
  'The stream ends when the session ends. Authenticated by the session cookie or an API key.';

function holderOf(req: FastifyRequest): StreamHolder {
  const actor = actorOf(req.ctx);
  if (actor.via === 'session') {
    if (!req.sessionToken) throw new AppError(401, ERR.authRequired);
    return {
      userId: actor.userId,
      isSystemAdmin: actor.isSystemAdmin,
      via: 'session',
      credentialHash: hashToken(req.sessionToken),
      expiresAt: req.sessionExpires,
    };
  }
  const key = String(req.headers.authorization ?? '')
    .slice(7)
    .trim();
  return {
    userId: actor.userId,
    isSystemAdmin: actor.isSystemAdmin,
    via: 'apiKey',
    credentialHash: hashToken(key),
    expiresAt: null,
  };
}

function lastEventIdOf(req: FastifyRequest, query: { lastEventId?: string }): string | undefined {
  const header = req.headers['last-event-id'];
  if (typeof header === 'string' && header !== '') return header;
  return query.lastEventId === '' ? undefined : query.lastEventId;
}

/**
 * The three event streams (SPEC "Event streams", DECISIONS section 6). Access is checked before
 * the response is taken over, so refusals are ordinary JSON errors; afterwards the stream manager
 * owns the raw response and Fastify sends nothing more.
 */
export const eventsRoutes: FastifyPluginAsyncZod = async (app) => {
  async function serve(
    req: FastifyRequest,
    reply: FastifyReply,
    kind: StreamKind,
    query: { lastEventId?: string },
  ) {
    const holder = holderOf(req);
    if (app.streams.isClosing) throw new AppError(503, 'Server is shutting down');
    if (!app.streams.mayOpen(holder.credentialHash)) throw new AppError(429, ERR.tooManyStreams);
    reply.hijack();
    await app.streams.open(reply.raw, holder, kind, { lastEventId: lastEventIdOf(req, query) });
  }

  app.get(
    '/api/projects/events',
    {
      schema: {
        tags,
        summary: 'Project list events (project created, updated, deleted)',
        description,
        querystring: eventStreamQuery,
      },
    },
    async (req, reply) => serve(req, reply, { kind: 'projects' }, req.query),
  );

  app.get(
    '/api/users/events',
    {
      schema: {
        tags,
        summary: 'User profile events (user.updated)',
        description,
        querystring: eventStreamQuery,
      },
    },
    async (req, reply) => serve(req, reply, { kind: 'user' }, req.query),
  );

  app.get(
    '/api/projects/:projectId/events',
    {
      schema: {
        tags,
        summary: "A project's events (tickets, labels, columns, sprints, members, comments…); members only",
        description,
        params: z.object({ projectId: idParam }),
        querystring: eventStreamQuery,
      },
    },
    async (req, reply) => {
      const { project } = await requireProjectAccess(req.ctx, req.params.projectId);
      return serve(req, reply, { kind: 'project', projectId: project.id }, req.query);
    },
  );
};
