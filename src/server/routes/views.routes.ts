import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { createView, deleteView, listViews, updateView } from '../../domain/search/views.js';
import { successResponse } from '../../shared/common.js';
import { createViewBody, updateViewBody, viewOut, viewParams } from '../../shared/search.js';

/** Saved views: mine and those shared in my projects (docs/search.md). */
export const viewsRoutes: FastifyPluginAsyncZod = async (app) => {
  const tags = ['Views'];
  app.get(
    '/api/views',
    {
      schema: {
        tags,
        summary: 'My views and the views shared in my projects',
        response: { 200: viewOut.array() },
      },
    },
    async (req) => listViews(req.ctx),
  );
  app.post(
    '/api/views',
    { schema: { tags, summary: 'Save a view', response: { 201: viewOut }, body: createViewBody } },
    async (req, reply) => reply.status(201).send(await createView(req.ctx, req.body)),
  );
  app.patch(
    '/api/views/:viewId',
    {
      schema: {
        tags,
        summary: 'Change a view (its author, or an admin of its project for a shared view)',
        response: { 200: viewOut },
        params: viewParams,
        body: updateViewBody,
      },
    },
    async (req) => updateView(req.ctx, req.params.viewId, req.body),
  );
  app.delete(
    '/api/views/:viewId',
    {
      schema: { tags, summary: 'Delete a view', response: { 200: successResponse }, params: viewParams },
    },
    async (req) => deleteView(req.ctx, req.params.viewId),
  );
};
