/** Webhooks: inputs, answers and the delivered payload (docs/webhooks.md). */
import { z } from 'zod';
import { idParam, paging } from './common.js';
import type { EventType } from './events.js';

/** The events a hook may subscribe to: every change inside a project. */
export const WEBHOOK_EVENTS = [
  'ticket.created',
  'ticket.updated',
  'ticket.moved',
  'ticket.deleted',
  'comment.created',
  'comment.updated',
  'comment.deleted',
  'attachment.added',
  'attachment.deleted',
  'link.created',
  'link.deleted',
  'label.created',
  'label.updated',
  'label.deleted',
  'template.created',
  'template.updated',
  'template.deleted',
  'column.created',
  'column.updated',
  'column.deleted',
  'sprint.created',
  'sprint.updated',
  'sprint.started',
  'sprint.completed',
  'sprint.extended',
  'sprint.deleted',
  'member.added',
  'member.updated',
  'member.removed',
  'project.updated',
] as const satisfies readonly EventType[];
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];

export const WEBHOOK_LIMITS = {
  urlMax: 2000,
  secretMin: 16,
  secretMax: 200,
  hooksPerProject: 20,
  deliveriesPageMax: 200,
} as const;

export const webhookUrl = z
  .string()
  .trim()
  .max(WEBHOOK_LIMITS.urlMax, `Must be at most ${WEBHOOK_LIMITS.urlMax} characters`)
  .refine((v) => {
    try {
      const u = new URL(v);
      return (u.protocol === 'http:' || u.protocol === 'https:') && !u.username && !u.password;
    } catch {
      return false;
    }
  }, 'Must be an http:// or https:// URL without a user name or password');

const secret = z
  .string()
  .min(WEBHOOK_LIMITS.secretMin, `Must be at least ${WEBHOOK_LIMITS.secretMin} characters`)
  .max(WEBHOOK_LIMITS.secretMax, `Must be at most ${WEBHOOK_LIMITS.secretMax} characters`);

const events = z
  .array(z.enum(WEBHOOK_EVENTS))
  .min(1, 'Choose at least one event')
  .refine((l) => new Set(l).size === l.length, 'Must not repeat an event');

export const webhookProjectParams = z.object({ projectId: idParam });
export const webhookParams = z.object({ projectId: idParam, webhookId: idParam });
export const deliveryParams = webhookParams.extend({ deliveryId: idParam });

/** POST /api/projects/:projectId/webhooks: without a secret, one is made (and shown once). */
export const createWebhookBody = z.strictObject({
  url: webhookUrl,
  secret: secret.optional(),
  events,
  active: z.boolean().default(true),
});
export type CreateWebhookBody = z.infer<typeof createWebhookBody>;

/** PATCH …/webhooks/:webhookId: turning a disabled hook on again clears its failure. */
export const updateWebhookBody = z
  .strictObject({ url: webhookUrl, secret, events, active: z.boolean() })
  .partial()
  .refine((b) => Object.keys(b).length > 0, 'Change at least one field');
export type UpdateWebhookBody = z.infer<typeof updateWebhookBody>;

export const webhookOut = z.object({
  id: z.string(),
  projectId: z.string(),
  url: z.string(),
  events: z.array(z.enum(WEBHOOK_EVENTS)),
  active: z.boolean(),
  /** Why Docket turned it off (it failed for a day), or null. */
  disabledReason: z.string().nullable(),
  /** Since when every delivery failed, or null. */
  failingSince: z.string().nullable(),
  createdById: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type WebhookOut = z.infer<typeof webhookOut>;

/** The answer of a create (and of a secret change): the secret, this once. */
export const webhookWithSecretOut = webhookOut.extend({ secret: z.string() });
export type WebhookWithSecretOut = z.infer<typeof webhookWithSecretOut>;

export const DELIVERY_STATUSES = ['pending', 'delivered', 'failed'] as const;

/** What a hook receives: the body of the POST, signed in X-Docket-Signature. */
export const webhookPayload = z.object({
  /** The same as X-Docket-Delivery: one id per delivery, kept across retries. */
  deliveryId: z.string(),
  /** The same as X-Docket-Event. */
  event: z.enum(WEBHOOK_EVENTS),
  /** The event's id in the log: increases with every change. */
  eventId: z.number().int(),
  timestamp: z.string(),
  project: z.object({ id: z.string(), key: z.string() }),
  /** The record as the API presents it: the event's data (EVENT_PAYLOADS in src/shared/events.ts). */
  data: z.unknown(),
});
export type WebhookPayload = z.infer<typeof webhookPayload>;

export const deliveryOut = z.object({
  id: z.string(),
  webhookId: z.string(),
  event: z.string(),
  status: z.enum(DELIVERY_STATUSES),
  /** Attempts so far. */
  attempts: z.number().int(),
  /** The receiver's answer code of the last attempt, or null (no answer: see error). */
  responseStatus: z.number().int().nullable(),
  durationMs: z.number().int().nullable(),
  error: z.string().nullable(),
  nextAttemptAt: z.string().nullable(),
  /** The delivery this one sends again, or null. */
  redeliveryOf: z.string().nullable(),
  createdAt: z.string(),
  finishedAt: z.string().nullable(),
  payload: webhookPayload,
});
export type DeliveryOut = z.infer<typeof deliveryOut>;

/** GET …/deliveries: newest first. */
export const deliveriesQuery = paging
  .pick({ offset: true })
  .extend({ limit: z.coerce.number().int().min(1).max(WEBHOOK_LIMITS.deliveriesPageMax).default(50) });
export const deliveriesOut = z.object({ items: z.array(deliveryOut), total: z.number().int() });
export type DeliveriesOut = z.infer<typeof deliveriesOut>;
