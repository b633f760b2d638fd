import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { searchTickets } from '../../domain/search/search.js';
import { searchOut, searchParams } from '../../shared/search.js';

/** Search across every project the caller can see (docs/search.md). */
export const searchRoutes: FastifyPluginAsyncZod = async (app) => {
  const tags = ['Search'];
  app.get(
    '/api/search',
    {
      schema: {
        tags,
        summary: 'Tickets matching a query (docs/search.md) in every project the caller can see',
        response: { 200: searchOut },
        querystring: searchParams,
      },
    },
    async (req) => searchTickets(req.ctx, req.query),
  );
};
