import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { AppError } from '../../domain/errors.js';
import { ERR } from '../../shared/errors.js';
import { isMetricsToken } from '../metrics.js';

export const metricsRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/metrics',
    {
      schema: {
        tags: ['Operations'],
        summary:
          'Prometheus metrics (text format), with `Authorization: Bearer <DOCKET_METRICS_TOKEN>`; 404 when no token is configured',
      },
      // Not a user's credential: the token is checked here, so the key look-up is skipped.
      config: { auth: 'public' },
    },
    async (req, reply) => {
      const metrics = app.metrics;
      const token = app.services.config.metricsToken;
      if (!metrics || !token) throw new AppError(404, ERR.notFound);
      if (!isMetricsToken(req.headers.authorization, token)) {
        reply.header('www-authenticate', 'Bearer realm="metrics"');
        throw new AppError(401, ERR.authRequired);
      }
      const text = await metrics.registry.metrics();
      return reply
        .header('content-type', metrics.registry.contentType)
        .header('cache-control', 'no-store')
        .send(text);
    },
  );
};
