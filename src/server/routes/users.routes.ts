import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { listActiveUsers } from '../../domain/users.js';
import { usersQuery } from '../../shared/accounts.js';
import { userSummaryOut } from '../../shared/common.js';

export const usersRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/api/users',
    {
      schema: {
        tags: ['Users'],
        summary: 'Active users, for member and assignee pickers',
        response: { 200: userSummaryOut.array() },
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
