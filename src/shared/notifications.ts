import { z } from 'zod';
import { EMAIL_MODES, NOTIFICATION_TYPES } from './mentions.js';

/** Notifications and their settings (issue 18, docs/notifications.md). */
export const NOTIFICATION_LIMITS = {
  listMax: 100,
  listDefault: 30,
  markMax: 500,
  excerptMax: 200,
  digestMinutesMin: 5,
  digestMinutesMax: 7 * 24 * 60,
  digestMinutesDefault: 60,
  /** Changes by one actor to one ticket within this window fold into one notification. */
  foldSeconds: 300,
} as const;

export const notificationType = z.enum(NOTIFICATION_TYPES);

export const notificationOut = z.object({
  id: z.string(),
  type: notificationType,
  createdAt: z.string(),
  /** The latest change folded into it (equals createdAt when there was one). */
  updatedAt: z.string(),
  readAt: z.string().nullable(),
  actor: z.object({ id: z.string(), username: z.string(), name: z.string().nullable() }).nullable(),
  project: z.object({ id: z.string(), key: z.string() }),
  ticket: z.object({ id: z.string(), key: z.string(), title: z.string() }).nullable(),
  excerpt: z.string(),
  /** How many changes folded into it. */
  count: z.number().int(),
});
export type NotificationOut = z.infer<typeof notificationOut>;

const flag = z.enum(['true', 'false']).transform((v) => v === 'true');

export const notificationListQuery = z.object({
  unread: flag.optional().describe('true: only unread ones'),
  type: notificationType.optional().describe('Only this type'),
  limit: z.coerce.number().int().min(1).max(NOTIFICATION_LIMITS.listMax).optional(),
  cursor: z.string().max(200).optional().describe('nextCursor of the previous page'),
});
export type NotificationListQuery = z.infer<typeof notificationListQuery>;

export const notificationListOut = z.object({
  items: z.array(notificationOut),
  unreadCount: z.number().int(),
  nextCursor: z.string().nullable(),
});

export const markReadBody = z.union([
  z.strictObject({ ids: z.array(z.string().min(1).max(64)).min(1).max(NOTIFICATION_LIMITS.markMax) }),
  z.strictObject({ all: z.literal(true) }),
]);
export type MarkReadBody = z.infer<typeof markReadBody>;

export const markReadOut = z.object({ updated: z.number().int(), unreadCount: z.number().int() });

export const notificationSettingsOut = z.object({
  email: z.enum(EMAIL_MODES),
  digestMinutes: z.number().int(),
  types: z.record(notificationType, z.boolean()),
  /** Whether this instance sends e-mail at all (DOCKET_SMTP_URL and DOCKET_MAIL_FROM). */
  emailAvailable: z.boolean(),
});
export type NotificationSettingsOut = z.infer<typeof notificationSettingsOut>;

export const notificationSettingsBody = z.strictObject({
  email: z.enum(EMAIL_MODES).optional(),
  digestMinutes: z.coerce
    .number()
    .int()
    .min(NOTIFICATION_LIMITS.digestMinutesMin)
    .max(NOTIFICATION_LIMITS.digestMinutesMax)
    .optional(),
  types: z.partialRecord(notificationType, z.boolean()).optional(),
});
export type NotificationSettingsBody = z.infer<typeof notificationSettingsBody>;

/** The unsubscribe page's form and RFC 8058 one-click body. */
export const unsubscribeQuery = z.object({ token: z.string().min(1).max(500) });
export const unsubscribeOut = z.object({ success: z.literal(true), email: z.literal('off') });

/** Events on the user stream, to the one user (audience). */
export const notificationCreatedEvent = z.object({
  notification: notificationOut,
  unreadCount: z.number().int(),
});
export const notificationReadEvent = z.object({
  ids: z.array(z.string()).nullable(),
  unreadCount: z.number().int(),
});
