import type { FastifyInstance } from 'fastify';
import type { Services } from '../domain/context.js';
import { WebhookSender } from './sender.js';

/** Runs the webhook sender in this instance unless DOCKET_WEBHOOK_SENDER=off. */
export function setupWebhooks(app: FastifyInstance, services: Services): WebhookSender | null {
  if (!services.config.webhookSender) return null;
  const sender = new WebhookSender({ ...services, db: { ...services.db } });
  app.addHook('onReady', async () => sender.start());
  app.addHook('preClose', async () => sender.stop());
  return sender;
}
