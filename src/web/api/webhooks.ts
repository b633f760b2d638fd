/** A project's webhooks and their deliveries, and their writes (docs/webhooks.md). */
import { type QueryClient, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
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
import { optimistic } from './query-client';

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

const refreshHooks = (qc: QueryClient, projectId: string) =>
  qc.invalidateQueries({ queryKey: qk.webhooks(projectId) });

/** Adds a hook; the answer holds its signing secret, the only time it is shown. */
export function useCreateWebhook(projectId: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (body: z.input<typeof createWebhookBody>) =>
      api<WebhookWithSecretOut>(hooksPath(projectId), { method: 'POST', body: body as CreateWebhookBody }),
    onSuccess: () => {
      refreshHooks(qc, projectId);
    },
  });
}

/** Turns a hook on or off, shown at once (turning it on clears its failure). */
export function useSetWebhookActive(projectId: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ webhookId, active }: { webhookId: string; active: boolean }) =>
      api<Webhook>(hooksPath(projectId, webhookId), {
        method: 'PATCH',
        body: { active } satisfies UpdateWebhookBody,
      }),
    onMutate: ({ webhookId, active }) =>
      optimistic<Webhook[]>(qc, qk.webhooks(projectId), (list) =>
        list?.map((x) =>
          x.id === webhookId
            ? { ...x, active, ...(active ? { disabledReason: null, failingSince: null } : {}) }
            : x,
        ),
      ),
    onError: (_err, _vars, rollback) => rollback?.(),
    onSettled: () => {
      refreshHooks(qc, projectId);
    },
  });
}

export function useDeleteWebhook(projectId: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (webhookId: string) => api(hooksPath(projectId, webhookId), { method: 'DELETE' }),
    onSuccess: () => {
      refreshHooks(qc, projectId);
    },
  });
}

/** Queues a delivery again. */
export function useRedeliver(projectId: string, webhookId: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (deliveryId: string) =>
      api<Delivery>(`${hooksPath(projectId, webhookId)}/deliveries/${enc(deliveryId)}/redeliver`, {
        method: 'POST',
      }),
    onSuccess: () => {
      qc.invalidateQueries({ queryKey: qk.deliveries(projectId, webhookId) });
    },
  });
}
