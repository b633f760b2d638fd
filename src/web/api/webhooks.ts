/** A project's webhooks and their deliveries (docs/webhooks.md). */
import { useQuery } from '@tanstack/react-query';
import type { z } from 'zod';
import type {
  CreateWebhookBody,
  createWebhookBody,
  DeliveriesOut,
  DeliveryOut,
  UpdateWebhookBody,
  WebhookOut,
  WebhookWithSecretOut,
} from '../../shared/webhooks.js';
import { api, enc } from './client';
import { qk } from './keys';
import { projectPath } from './projects';

export type Webhook = WebhookOut;
export type Delivery = DeliveryOut;

const hooksPath = (projectId: string, webhookId?: string) =>
  projectPath(projectId, webhookId ? `/webhooks/${enc(webhookId)}` : '/webhooks');

export const useWebhooks = (projectId: string, enabled = true) =>
  useQuery({
    queryKey: qk.webhooks(projectId),
    queryFn: ({ signal }) => api<Webhook[]>(hooksPath(projectId), { signal }),
    enabled,
  });

/** A hook's latest deliveries, refreshed while any is pending. */
export const useDeliveries = (projectId: string, webhookId: string) =>
  useQuery({
    queryKey: qk.deliveries(projectId, webhookId),
    queryFn: ({ signal }) =>
      api<DeliveriesOut>(`${hooksPath(projectId, webhookId)}/deliveries?limit=50`, { signal }),
    refetchInterval: (q) => (q.state.data?.items.some((d) => d.status === 'pending') ? 2000 : 10_000),
  });

export const createWebhook = (projectId: string, body: z.input<typeof createWebhookBody>) =>
  api<WebhookWithSecretOut>(hooksPath(projectId), { method: 'POST', body: body as CreateWebhookBody });

export const updateWebhook = (projectId: string, webhookId: string, body: UpdateWebhookBody) =>
  api<Webhook>(hooksPath(projectId, webhookId), { method: 'PATCH', body });

export const deleteWebhook = (projectId: string, webhookId: string) =>
  api(hooksPath(projectId, webhookId), { method: 'DELETE' });

export const redeliver = (projectId: string, webhookId: string, deliveryId: string) =>
  api<Delivery>(`${hooksPath(projectId, webhookId)}/deliveries/${enc(deliveryId)}/redeliver`, {
    method: 'POST',
  });
