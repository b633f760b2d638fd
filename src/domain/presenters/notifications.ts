import type { NotificationType } from '../../shared/mentions.js';
import type { NotificationOut, NotificationSettingsOut } from '../../shared/notifications.js';
import type { NotificationRow } from '../notifications/rows.js';
import type { Settings } from '../notifications/settings.js';

/** A notification with its actor, project and ticket (notificationRows). */
export function presentNotification(r: NotificationRow): NotificationOut {
  return {
    id: r.id,
    type: r.type as NotificationType,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    readAt: r.read_at,
    actor:
      r.actor_id && r.actor_username
        ? { id: r.actor_id, username: r.actor_username, name: r.actor_name ?? null }
        : null,
    project: { id: r.project_id, key: r.project_key },
    ticket:
      r.ticket_id && r.ticket_number !== null
        ? { id: r.ticket_id, key: `${r.project_key}-${r.ticket_number}`, title: r.ticket_title ?? '' }
        : null,
    excerpt: r.excerpt,
    count: Number(r.fold_count),
  };
}

/** A user's e-mail preferences, and whether this instance sends e-mail at all. */
export const presentNotificationSettings = (
  s: Settings,
  emailAvailable: boolean,
): NotificationSettingsOut => ({
  email: s.email,
  digestMinutes: s.digestMinutes,
  types: s.types,
  emailAvailable,
});
