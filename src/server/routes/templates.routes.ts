import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { createTemplate, deleteTemplate, listTemplates, updateTemplate } from '../../domain/templates.js';
import { successResponse } from '../../shared/common.js';
import { projectParams } from '../../shared/projects.js';
import {
  createTemplateBody,
  templateOut,
  templateParams,
  updateTemplateBody,
} from '../../shared/templates.js';

const P = '/api/projects/:projectId/templates';

/** Ticket templates of a project (docs/decisions/050-ticket-templates.md). */
export const templatesRoutes: FastifyPluginAsyncZod = async (app) => {
  const tags = ['Templates'];
  app.get(
    P,
    {
      schema: {
        tags,
        summary: 'Ticket templates in their order (members)',
        response: { 200: templateOut.array() },
        params: projectParams,
      },
    },
    async (req) => listTemplates(req.ctx, req.params.projectId),
  );
  app.post(
    P,
    {
      schema: {
        tags,
        summary: 'Add a ticket template (admin or owner)',
        response: { 201: templateOut },
        params: projectParams,
        body: createTemplateBody,
      },
    },
    async (req, reply) =>
      reply.status(201).send(await createTemplate(req.ctx, req.params.projectId, req.body)),
  );
  app.patch(
    `${P}/:templateId`,
    {
      schema: {
        tags,
        summary: 'Edit, reorder or make default a ticket template (admin or owner)',
        response: { 200: templateOut },
        params: templateParams,
        body: updateTemplateBody,
      },
    },
    async (req) => updateTemplate(req.ctx, req.params.projectId, req.params.templateId, req.body),
  );
  app.delete(
    `${P}/:templateId`,
    {
      schema: {
        tags,
        summary: 'Delete a ticket template (admin or owner)',
        response: { 200: successResponse },
        params: templateParams,
      },
    },
    async (req) => deleteTemplate(req.ctx, req.params.projectId, req.params.templateId),
  );
};
