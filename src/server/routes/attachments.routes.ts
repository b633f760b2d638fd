import type { FastifyPluginAsyncZod, ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { addAttachment, deleteAttachment, listAttachments } from '../../domain/attachments.js';
import { idParam, paging, successResponse } from '../../shared/common.js';
import { attachmentOut } from '../../shared/tickets.js';
import { acceptUploads, multipartSource } from '../multipart.js';

const tags = ['Attachments'];
const ticketParams = z.object({ projectId: idParam, ticketId: idParam });
const base = '/api/projects/:projectId/tickets/:ticketId/attachments';

export const attachmentsRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    base,
    {
      schema: {
        tags,
        summary: "A ticket's attachments, oldest first",
        response: { 200: attachmentOut.array() },
        params: ticketParams,
        querystring: paging,
      },
    },
    async (req, reply) => {
      const { items, total } = await listAttachments(
        req.ctx,
        req.params.projectId,
        req.params.ticketId,
        req.query,
      );
      reply.header('X-Total-Count', String(total));
      return items;
    },
  );

  await app.register(async (scope) => {
    await acceptUploads(scope);
    scope.withTypeProvider<ZodTypeProvider>().post(
      base,
      {
        schema: {
          tags,
          summary:
            'Attach a file (multipart/form-data, field file); limited per ticket by the system settings',
          response: { 201: attachmentOut },
          consumes: ['multipart/form-data'],
          params: ticketParams,
        },
      },
      async (req, reply) =>
        reply
          .status(201)
          .send(
            await addAttachment(req.ctx, req.params.projectId, req.params.ticketId, multipartSource(req)),
          ),
    );
  });

  app.delete(
    `${base}/:attachmentId`,
    {
      schema: {
        tags,
        summary: 'Delete an attachment and its file (the uploader, or a project admin or owner)',
        response: { 200: successResponse },
        params: ticketParams.extend({ attachmentId: idParam }),
      },
    },
    async (req) =>
      deleteAttachment(req.ctx, req.params.projectId, req.params.ticketId, req.params.attachmentId),
  );
};
