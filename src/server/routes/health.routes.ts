import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { databaseNotReady, databaseReachable } from '../../domain/health.js';
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
      if (await databaseReachable(req.ctx)) return { status: 'ok' as const, database: req.ctx.db.dialect };
      return reply.status(503).send({ status: 'unavailable', error: 'Database unreachable' });
    },
  );

  app.get(
    '/api/ready',
    {
      schema: {
        tags: ['Operations'],
        summary:
          'Readiness for a load balancer: 503 while draining (SIGTERM), while migrations run or are pending, or when the database is unreachable',
        response: { 200: healthOut, 503: healthDownOut },
      },
      config: { auth: 'public' },
    },
    async (req, reply) => {
      const down = (error: string) => reply.status(503).send({ status: 'unavailable' as const, error });
      if (app.draining) return down('Draining');
      const why = await databaseNotReady(req.ctx);
      if (why) return down(why);
      return { status: 'ok' as const, database: req.ctx.db.dialect };
    },
  );
};
