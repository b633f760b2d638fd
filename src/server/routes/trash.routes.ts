import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { listTrash, purgeTrashed } from '../../domain/trash.js';
import { restoreTrashed } from '../../domain/trash-restore.js';
import { successResponse } from '../../shared/common.js';
import { projectParams } from '../../shared/projects.js';
import { restoreOut, trashListOut, trashParams, trashQuery } from '../../shared/trash.js';

/** The trash of deleted tickets (docs/decisions/048-trash-and-undo.md). */
export const trashRoutes: FastifyPluginAsyncZod = async (app) => {
  const tags = ['Trash'];
  const P = '/api/projects/:projectId/trash';
  app.get(
    P,
    {
      schema: {
        tags,
        summary: 'Deleted tickets, newest first (admins: all; members: those they deleted)',
        response: { 200: trashListOut },
        params: projectParams,
        querystring: trashQuery,
      },
    },
    async (req) => listTrash(req.ctx, req.params.projectId, req.query),
  );
  app.post(
    `${P}/:trashId/restore`,
    {
      schema: {
        tags,
        summary: 'Restore a deleted ticket (project admins, or the user who deleted it)',
        response: { 200: restoreOut },
        params: trashParams,
      },
    },
    async (req) => restoreTrashed(req.ctx, req.params.projectId, req.params.trashId),
  );
  app.delete(
    `${P}/:trashId`,
    {
      schema: {
        tags,
        summary: 'Delete a trashed ticket for good now (project admins)',
        response: { 200: successResponse },
        params: trashParams,
      },
    },
    async (req) => purgeTrashed(req.ctx, req.params.projectId, req.params.trashId),
  );
};
