import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { listActiveUsers } from '../../domain/users.js';
import { usersQuery } from '../../shared/accounts.js';

export const usersRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/api/users',
    {
      schema: {
        tags: ['Users'],
        summary: 'Active users, for member and assignee pickers',
        querystring: usersQuery,
      },
    },
    async (req, reply) => {
      const { items, total } = await listActiveUsers(req.ctx, req.query);
      reply.header('X-Total-Count', String(total));
      return items;
    },
  );
};
