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

/** An active hook, as the outbox needs it: what it subscribed to and its project's key. */
export interface ActiveHook {
  id: string;
  project_id: string;
  events: string;
  key: string;
}

/** Per write transaction, the active hooks of the projects it has checked access to. */
const knownHooks = new WeakMap<object, Map<string, ActiveHook[]>>();

/**
 * The active hooks of a project as its access check inside a write transaction read them
 * (src/domain/access.ts: `[id, events]` pairs), kept for `hooksFor` at the end of that transaction.
 */
export function knowHooks(tx: Tx, project: { id: string; key: string }, pairs: [string, string][]) {
  let byProject = knownHooks.get(tx);
  if (!byProject) {
    byProject = new Map();
    knownHooks.set(tx, byProject);
  }
  byProject.set(
    project.id,
    pairs.map(([id, events]) => ({ id, project_id: project.id, events, key: project.key })),
  );
}

/**
 * The active hooks of the projects whose subscribable events a transaction is about to append:
 * as the transaction's access check read them (`knowHooks`), else read now. Either way before the
 * event log's ordering lock, and a hook committed while the transaction runs starts with the next.
 */
export async function hooksFor(
  tx: Tx,
  events: readonly { projectId?: string | null; type: string }[],
): Promise<ActiveHook[]> {
  const projectIds = [
    ...new Set(
      events.filter((e) => e.projectId && SUBSCRIBABLE.has(e.type)).map((e) => e.projectId as string),
    ),
  ];
  const known = knownHooks.get(tx);
  const found = projectIds.flatMap((id) => known?.get(id) ?? []);
  const unknown = projectIds.filter((id) => !known?.has(id));
  if (unknown.length === 0) return found;
  const read = await tx
    .selectFrom('webhooks as w')
    .innerJoin('projects as p', 'p.id', 'w.project_id')
    .select(['w.id', 'w.project_id', 'w.events', 'p.key'])
    .where('w.project_id', 'in', unknown)
    .where('w.active', '=', 1)
    .execute();
  return [...found, ...read];
}

/**
 * Writes the webhook outbox for events just appended to the log, in the same transaction
 * (src/domain/context.ts `transact`): one delivery per event and active hook of its project
 * (`hooksFor`) that subscribed to its type. A change that rolls back sends nothing; one that
 * commits is delivered. True when something was queued.
 */
export async function queueWebhookDeliveries(
  tx: Tx,
  events: StoredEvent[],
  hooks: readonly ActiveHook[],
): Promise<boolean> {
  if (hooks.length === 0) return false;
  const relevant = events.filter((e) => e.projectId && SUBSCRIBABLE.has(e.type));
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
