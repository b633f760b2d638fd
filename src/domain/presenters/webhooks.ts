import type { WebhookDeliveriesTable, WebhooksTable } from '../../db/types.js';
import type { DeliveryOut, WebhookEvent, WebhookOut, WebhookPayload } from '../../shared/webhooks.js';

/** A webhook without its secret (shown once, when made). */
export function presentWebhook(r: WebhooksTable): WebhookOut {
  return {
    id: r.id,
    projectId: r.project_id,
    url: r.url,
    events: JSON.parse(r.events) as WebhookEvent[],
    active: Number(r.active) === 1,
    disabledReason: r.disabled_reason,
    failingSince: r.failing_since,
    createdById: r.created_by,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

/** A delivery with the payload it sends; when it is tried next only while it is pending. */
export function presentDelivery(r: WebhookDeliveriesTable): DeliveryOut {
  return {
    id: r.id,
    webhookId: r.hook_id,
    event: r.event_type,
    status: r.status,
    attempts: Number(r.attempts),
    responseStatus: r.response_status === null ? null : Number(r.response_status),
    durationMs: r.duration_ms === null ? null : Number(r.duration_ms),
    error: r.last_error,
    nextAttemptAt: r.status === 'pending' ? r.next_attempt_at : null,
    redeliveryOf: r.redelivery_of,
    createdAt: r.created_at,
    finishedAt: r.finished_at,
    payload: JSON.parse(r.body) as WebhookPayload,
  };
}
