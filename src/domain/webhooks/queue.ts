import type { WebhookDeliveriesTable } from '../../db/types.js';
import type { StoredEvent } from '../../events/types.js';
import { WEBHOOK_EVENTS, type WebhookEvent, type WebhookPayload } from '../../shared/webhooks.js';
import type { Tx } from '../context.js';
import { newId, nowIso } from '../ids.js';

const SUBSCRIBABLE = new Set<string>(WEBHOOK_EVENTS);

/**
 * The record whose deliveries to one hook go out in order: the ticket for ticket, comment,
 * attachment and link events, else the record the event is about.
 */
export function orderKeyOf(e: Pick<StoredEvent, 'data' | 'projectId'>): string {
  const d = (e.data ?? {}) as { ticketId?: unknown; id?: unknown };
  if (typeof d.ticketId === 'string') return d.ticketId;
  if (typeof d.id === 'string') return d.id;
  return e.projectId ?? '';
}

/** The body of one delivery: the exact text that is signed and sent on every attempt. */
export function deliveryBody(deliveryId: string, e: StoredEvent, projectKey: string): string {
  const payload: WebhookPayload = {
    deliveryId,
    event: e.type as WebhookEvent,
    eventId: e.id,
    timestamp: e.timestamp,
    project: { id: e.projectId ?? '', key: projectKey },
    data: e.data,
  };
  return JSON.stringify(payload);
}

type DeliveryFields = Pick<
  WebhookDeliveriesTable,
  'id' | 'hook_id' | 'project_id' | 'seq' | 'event_type' | 'order_key' | 'body' | 'redelivery_of'
>;

/** A delivery row, pending and due now, never tried. */
export function newDelivery(f: DeliveryFields): WebhookDeliveriesTable {
  const now = nowIso();
  return {
    ...f,
    status: 'pending',
    attempts: 0,
    next_attempt_at: now,
    claimed_by: null,
    claimed_until: null,
    response_status: null,
    duration_ms: null,
    last_error: null,
    created_at: now,
    finished_at: null,
  };
}

/**
 * Writes the webhook outbox for events just appended to the log, in the same transaction
 * (src/domain/context.ts `transact`): one delivery per event and active hook of its project that
 * subscribed to its type. A change that rolls back sends nothing; one that commits is delivered.
 * True when something was queued.
 */
export async function queueWebhookDeliveries(tx: Tx, events: StoredEvent[]): Promise<boolean> {
  const relevant = events.filter((e) => e.projectId && SUBSCRIBABLE.has(e.type));
  if (relevant.length === 0) return false;
  const projectIds = [...new Set(relevant.map((e) => e.projectId as string))];
  const hooks = await tx
    .selectFrom('webhooks as w')
    .innerJoin('projects as p', 'p.id', 'w.project_id')
    .select(['w.id', 'w.project_id', 'w.events', 'p.key'])
    .where('w.project_id', 'in', projectIds)
    .where('w.active', '=', 1)
    .execute();
  if (hooks.length === 0) return false;
  const rows: WebhookDeliveriesTable[] = [];
  for (const h of hooks) {
    const wanted = new Set(JSON.parse(h.events) as string[]);
    for (const e of relevant) {
      if (e.projectId !== h.project_id || !wanted.has(e.type)) continue;
      const id = newId();
      rows.push(
        newDelivery({
          id,
          hook_id: h.id,
          project_id: h.project_id,
          seq: e.id,
          event_type: e.type,
          order_key: orderKeyOf(e),
          body: deliveryBody(id, e, h.key),
          redelivery_of: null,
        }),
      );
    }
  }
  for (let i = 0; i < rows.length; i += 200)
    await tx
      .insertInto('webhook_deliveries')
      .values(rows.slice(i, i + 200))
      .execute();
  return rows.length > 0;
}
