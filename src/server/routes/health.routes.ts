import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { sql } from 'kysely';
import { healthDownOut, healthOut } from '../../shared/common.js';

export const healthRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/api/health',
    {
      schema: {
        tags: ['Operations'],
        summary: 'Liveness and database reachability',
        response: { 200: healthOut, 503: healthDownOut },
      },
      config: { auth: 'public' },
    },
    async (req, reply) => {
      try {
        await sql`select 1`.execute(req.ctx.db.kysely);
        return { status: 'ok' as const, database: req.ctx.db.dialect };
      } catch {
        return reply.status(503).send({ status: 'unavailable', error: 'Database unreachable' });
      }
    },
  );
};
