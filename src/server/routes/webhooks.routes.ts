import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import {
  createWebhook,
  deleteWebhook,
  getWebhook,
  listDeliveries,
  listWebhooks,
  redeliver,
  updateWebhook,
} from '../../domain/webhooks/hooks.js';
import { successResponse } from '../../shared/common.js';
import {
  createWebhookBody,
  deliveriesOut,
  deliveriesQuery,
  deliveryOut,
  deliveryParams,
  updateWebhookBody,
  webhookOut,
  webhookParams,
  webhookProjectParams,
  webhookWithSecretOut,
} from '../../shared/webhooks.js';

/** A project's webhooks and their deliveries, for its admins and owners (docs/webhooks.md). */
export const webhooksRoutes: FastifyPluginAsyncZod = async (app) => {
  const tags = ['Webhooks'];
  const base = '/api/projects/:projectId/webhooks';
  app.get(
    base,
    {
      schema: {
        tags,
        summary: "The project's webhooks",
        params: webhookProjectParams,
        response: { 200: webhookOut.array() },
      },
    },
    async (req) => listWebhooks(req.ctx, req.params.projectId),
  );
  app.post(
    base,
    {
      schema: {
        tags,
        summary: 'Add a webhook (the secret is shown in this answer only)',
        params: webhookProjectParams,
        body: createWebhookBody,
        response: { 201: webhookWithSecretOut },
      },
    },
    async (req, reply) =>
      reply.status(201).send(await createWebhook(req.ctx, req.params.projectId, req.body)),
  );
  app.get(
    `${base}/:webhookId`,
    { schema: { tags, summary: 'A webhook', params: webhookParams, response: { 200: webhookOut } } },
    async (req) => getWebhook(req.ctx, req.params.projectId, req.params.webhookId),
  );
  app.patch(
    `${base}/:webhookId`,
    {
      schema: {
        tags,
        summary: 'Change a webhook (turning it on again clears its failure)',
        params: webhookParams,
        body: updateWebhookBody,
        response: { 200: webhookOut },
      },
    },
    async (req) => updateWebhook(req.ctx, req.params.projectId, req.params.webhookId, req.body),
  );
  app.delete(
    `${base}/:webhookId`,
    {
      schema: {
        tags,
        summary: 'Delete a webhook and its deliveries',
        params: webhookParams,
        response: { 200: successResponse },
      },
    },
    async (req) => deleteWebhook(req.ctx, req.params.projectId, req.params.webhookId),
  );
  app.get(
    `${base}/:webhookId/deliveries`,
    {
      schema: {
        tags,
        summary: "A webhook's deliveries, newest first",
        params: webhookParams,
        querystring: deliveriesQuery,
        response: { 200: deliveriesOut },
      },
    },
    async (req) => listDeliveries(req.ctx, req.params.projectId, req.params.webhookId, req.query),
  );
  app.post(
    `${base}/:webhookId/deliveries/:deliveryId/redeliver`,
    {
      schema: {
        tags,
        summary: 'Send a delivery again (as a new delivery)',
        params: deliveryParams,
        response: { 201: deliveryOut },
      },
    },
    async (req, reply) =>
      reply
        .status(201)
        .send(await redeliver(req.ctx, req.params.projectId, req.params.webhookId, req.params.deliveryId)),
  );
};
