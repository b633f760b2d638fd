import type { Config } from '../../config.js';
import type { NotificationSettingsTable } from '../../db/types.js';
import {
  type EmailMode,
  NOTIFICATION_TYPES,
  type NotificationType,
  URGENT_NOTIFICATION_TYPES,
} from '../../shared/mentions.js';
import { NOTIFICATION_LIMITS, type NotificationSettingsBody } from '../../shared/notifications.js';
import { actorOf, type Ctx, type Services, type Tx, transact } from '../context.js';
import { badRequest } from '../errors.js';
import { nowIso } from '../ids.js';
import { presentNotificationSettings } from '../presenters/notifications.js';
import { verifyUnsubscribeToken } from './mail.js';

/**
 * Each user's e-mail preferences. Defaults (issue 18): assignments and mentions are e-mailed at
 * once, everything else in a digest every hour; every type is e-mailed. `email: 'digest'` is that
 * default; `instant` e-mails every type at once; `off` sends nothing. `types` turns e-mail of one
 * type off; the inbox always receives every type.
 */
export interface Settings {
  email: EmailMode;
  digestMinutes: number;
  types: Record<NotificationType, boolean>;
}

export const DEFAULT_SETTINGS: Settings = {
  email: 'digest',
  digestMinutes: NOTIFICATION_LIMITS.digestMinutesDefault,
  types: Object.fromEntries(NOTIFICATION_TYPES.map((t) => [t, true])) as Record<NotificationType, boolean>,
};

/** Whether this instance sends e-mail at all. */
export const mailEnabled = (config: Config) => Boolean(config.smtpUrl && config.mailFrom);

function fromRow(row: NotificationSettingsTable | undefined): Settings {
  if (!row) return { ...DEFAULT_SETTINGS, types: { ...DEFAULT_SETTINGS.types } };
  let stored: Record<string, unknown> = {};
  try {
    stored = JSON.parse(row.types) as Record<string, unknown>;
  } catch {
    stored = {};
  }
  const types = { ...DEFAULT_SETTINGS.types };
  for (const t of NOTIFICATION_TYPES) if (typeof stored[t] === 'boolean') types[t] = stored[t] as boolean;
  return { email: row.email, digestMinutes: Number(row.digest_minutes), types };
}

/** The settings of several users at once (defaults for those without a row). */
export async function settingsOf(tx: Tx, userIds: string[]): Promise<Map<string, Settings>> {
  const rows =
    userIds.length === 0
      ? []
      : await tx.selectFrom('notification_settings').selectAll().where('user_id', 'in', userIds).execute();
  const byUser = new Map(rows.map((r) => [r.user_id, r]));
  return new Map(userIds.map((id) => [id, fromRow(byUser.get(id))]));
}

/** How a notification of this type reaches this user by e-mail. */
export function mailModeOf(
  config: Config,
  settings: Settings,
  type: NotificationType,
  address: string | null,
): 'none' | 'instant' | 'digest' {
  if (!mailEnabled(config) || !address || settings.email === 'off' || !settings.types[type]) return 'none';
  if (settings.email === 'instant' || URGENT_NOTIFICATION_TYPES.includes(type)) return 'instant';
  return 'digest';
}

export async function getNotificationSettings(ctx: Ctx) {
  const userId = actorOf(ctx).userId;
  const s = (await settingsOf(ctx.db.kysely, [userId])).get(userId) ?? DEFAULT_SETTINGS;
  return presentNotificationSettings(s, mailEnabled(ctx.config));
}

/** Writes the whole settings row; `off` also drops the waiting digest entries (nothing will be sent). */
export async function writeSettings(tx: Tx, userId: string, next: Settings) {
  const row = {
    email: next.email,
    digest_minutes: next.digestMinutes,
    types: JSON.stringify(next.types),
    updated_at: nowIso(),
  };
  await tx
    .insertInto('notification_settings')
    .values({ user_id: userId, ...row })
    .onConflict((oc) => oc.column('user_id').doUpdateSet(row))
    .execute();
  if (next.email === 'off') {
    await tx
      .updateTable('notifications')
      .set({ mail: 'none' })
      .where('user_id', '=', userId)
      .where('mail', '=', 'digest')
      .execute();
  }
}

export async function updateNotificationSettings(ctx: Ctx, body: NotificationSettingsBody) {
  const userId = actorOf(ctx).userId;
  return transact(ctx, async (tx) => {
    const current = (await settingsOf(tx, [userId])).get(userId) ?? DEFAULT_SETTINGS;
    const next: Settings = {
      email: body.email ?? current.email,
      digestMinutes: body.digestMinutes ?? current.digestMinutes,
      types: { ...current.types, ...(body.types ?? {}) },
    };
    await writeSettings(tx, userId, next);
    return presentNotificationSettings(next, mailEnabled(ctx.config));
  });
}

/** RFC 8058 one-click unsubscribe: turns all e-mail off for the user the token was signed for. */
export async function unsubscribeByToken(s: Services, token: string): Promise<void> {
  await transact(s, async (tx) => {
    const userId = await verifyUnsubscribeToken(s.db, tx, token);
    const user = userId
      ? await tx.selectFrom('users').select('id').where('id', '=', userId).executeTakeFirst()
      : undefined;
    if (!user) throw badRequest(UNSUBSCRIBE_INVALID);
    const current = (await settingsOf(tx, [user.id])).get(user.id) ?? DEFAULT_SETTINGS;
    await writeSettings(tx, user.id, { ...current, email: 'off' });
  });
}

export const UNSUBSCRIBE_INVALID = 'This unsubscribe link is not valid';
