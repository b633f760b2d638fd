import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { listEpics, timeline } from '../../domain/planning.js';
import { epicsOut, epicsQuery, timelineOut, timelineQuery } from '../../shared/planning.js';
import { projectParams } from '../../shared/projects.js';

const P = '/api/projects/:projectId';

/**
 * Planning reads of a project (members): its epics with their progress, and the timeline. An
 * epic's children are the ticket list filtered by parent (`GET …/tickets?parentId=` or
 * `query=parent:KEY`); dates are changed by the ticket update.
 */
export const planningRoutes: FastifyPluginAsyncZod = async (app) => {
  const tags = ['Planning'];
  app.get(
    `${P}/epics`,
    {
      schema: {
        tags,
        summary: 'Epics of the project by number, with their children by count and points (done and all)',
        params: projectParams,
        querystring: epicsQuery,
        response: { 200: epicsOut },
      },
    },
    async (req) => listEpics(req.ctx, req.params.projectId, req.query),
  );
  app.get(
    `${P}/timeline`,
    {
      schema: {
        tags,
        summary: 'Epics and tickets whose start and due dates meet the window, grouped by epic (at most 500)',
        params: projectParams,
        querystring: timelineQuery,
        response: { 200: timelineOut },
      },
    },
    async (req) => timeline(req.ctx, req.params.projectId, req.query),
  );
};
