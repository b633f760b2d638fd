import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { sprintBurndown, sprintVelocity } from '../../domain/sprint-reports.js';
import {
  completeSprint,
  createSprint,
  deleteSprint,
  extendSprint,
  getActiveSprint,
  getSprint,
  getSprintSettings,
  listSprints,
  startSprint,
  updateSprint,
  updateSprintSettings,
} from '../../domain/sprints.js';
import { successResponse } from '../../shared/common.js';
import { projectParams } from '../../shared/projects.js';
import {
  burndownOut,
  completeSprintBody,
  completeSprintOut,
  createSprintBody,
  extendSprintBody,
  sprintDetailOut,
  sprintListQuery,
  sprintOut,
  sprintParams,
  sprintSettingsOut,
  startSprintBody,
  startSprintOut,
  updateSprintBody,
  updateSprintSettingsBody,
  velocityOut,
  velocityQuery,
} from '../../shared/sprints.js';

const P = '/api/projects/:projectId/sprints';

/**
 * Sprints of a project. The static paths (`active`, `settings`, `velocity`) win over `:sprintId`
 * in Fastify's router, so they are never read as a sprint id.
 */
export const sprintsRoutes: FastifyPluginAsyncZod = async (app) => {
  const tags = ['Sprints'];
  app.get(
    P,
    {
      schema: {
        tags,
        summary: 'Sprints of the project, by creation (optional status filter)',
        params: projectParams,
        querystring: sprintListQuery,
        response: { 200: sprintOut.array() },
      },
    },
    async (req, reply) => {
      const { items, total } = await listSprints(req.ctx, req.params.projectId, req.query);
      reply.header('X-Total-Count', String(total));
      return items;
    },
  );
  app.post(
    P,
    {
      schema: {
        tags,
        summary: 'Create a planning sprint (named `Sprint N` when no name is given)',
        params: projectParams,
        body: createSprintBody,
        response: { 201: sprintOut },
      },
    },
    async (req, reply) => reply.status(201).send(await createSprint(req.ctx, req.params.projectId, req.body)),
  );
  app.get(
    `${P}/active`,
    {
      schema: {
        tags,
        summary: 'The active sprint, or null',
        params: projectParams,
        response: { 200: sprintOut.nullable() },
      },
    },
    async (req) => getActiveSprint(req.ctx, req.params.projectId),
  );
  app.get(
    `${P}/settings`,
    {
      schema: {
        tags,
        summary: 'Sprint settings of the project',
        params: projectParams,
        response: { 200: sprintSettingsOut },
      },
    },
    async (req) => getSprintSettings(req.ctx, req.params.projectId),
  );
  app.patch(
    `${P}/settings`,
    {
      schema: {
        tags,
        summary: 'Change sprint settings (admin or owner)',
        params: projectParams,
        body: updateSprintSettingsBody,
        response: { 200: sprintSettingsOut },
      },
    },
    async (req) => updateSprintSettings(req.ctx, req.params.projectId, req.body),
  );
  app.get(
    `${P}/velocity`,
    {
      schema: {
        tags,
        summary:
          'Velocity of the last completed sprints (oldest first): committed and completed points, carry-overs',
        params: projectParams,
        querystring: velocityQuery,
        response: { 200: velocityOut },
      },
    },
    async (req) => sprintVelocity(req.ctx, req.params.projectId, req.query.limit),
  );
  app.get(
    `${P}/:sprintId`,
    {
      schema: {
        tags,
        summary: 'A sprint with its tickets and its membership history',
        params: sprintParams,
        response: { 200: sprintDetailOut },
      },
    },
    async (req) => getSprint(req.ctx, req.params.projectId, req.params.sprintId),
  );
  app.patch(
    `${P}/:sprintId`,
    {
      schema: {
        tags,
        summary: 'Change name, goal, dates or budget',
        params: sprintParams,
        body: updateSprintBody,
        response: { 200: sprintOut },
      },
    },
    async (req) => updateSprint(req.ctx, req.params.projectId, req.params.sprintId, req.body),
  );
  app.delete(
    `${P}/:sprintId`,
    {
      schema: {
        tags,
        summary: 'Delete a planning sprint; its tickets go to the backlog',
        params: sprintParams,
        response: { 200: successResponse },
      },
    },
    async (req) => deleteSprint(req.ctx, req.params.projectId, req.params.sprintId),
  );
  app.post(
    `${P}/:sprintId/start`,
    {
      schema: {
        tags,
        summary: 'Start a planning sprint (default dates: today, plus the default duration)',
        params: sprintParams,
        body: startSprintBody,
        response: { 200: startSprintOut },
      },
    },
    async (req) => startSprint(req.ctx, req.params.projectId, req.params.sprintId, req.body),
  );
  app.post(
    `${P}/:sprintId/complete`,
    {
      schema: {
        tags,
        summary: 'Complete the active sprint and handle its incomplete tickets',
        params: sprintParams,
        body: completeSprintBody,
        response: { 200: completeSprintOut },
      },
    },
    async (req) => completeSprint(req.ctx, req.params.projectId, req.params.sprintId, req.body),
  );
  app.post(
    `${P}/:sprintId/extend`,
    {
      schema: {
        tags,
        summary: 'Move the end date of the active sprint',
        params: sprintParams,
        body: extendSprintBody,
        response: { 200: sprintOut },
      },
    },
    async (req) => extendSprint(req.ctx, req.params.projectId, req.params.sprintId, req.body.newEndDate),
  );
  app.get(
    `${P}/:sprintId/burndown`,
    {
      schema: {
        tags,
        summary: 'Burndown: open story points and tickets per day, and the ideal line',
        params: sprintParams,
        response: { 200: burndownOut },
      },
    },
    async (req) => sprintBurndown(req.ctx, req.params.projectId, req.params.sprintId),
  );
};
