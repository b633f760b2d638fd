import type { NotificationType } from '../../shared/mentions.js';
import type { NotificationOut } from '../../shared/notifications.js';
import type { Tx } from '../context.js';

/** Notifications joined with their actor, project and ticket: the public shape (src/shared/notifications.ts). */
export function notificationRows(tx: Tx) {
  return tx
    .selectFrom('notifications as n')
    .innerJoin('projects as p', 'p.id', 'n.project_id')
    .leftJoin('users as a', 'a.id', 'n.actor_id')
    .leftJoin('tickets as t', 't.id', 'n.ticket_id')
    .select([
      'n.id',
      'n.user_id',
      'n.type',
      'n.excerpt',
      'n.fold_count',
      'n.created_at',
      'n.updated_at',
      'n.read_at',
      'n.mail',
      'p.id as project_id',
      'p.key as project_key',
      'a.id as actor_id',
      'a.username as actor_username',
      'a.name as actor_name',
      't.id as ticket_id',
      't.number as ticket_number',
      't.title as ticket_title',
    ]);
}

export type NotificationRow = Awaited<
  ReturnType<ReturnType<typeof notificationRows>['executeTakeFirstOrThrow']>
>;

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

/** Several people's unread counts, in one read (0 for those with none). */
export async function unreadCountsOf(tx: Tx, userIds: string[]): Promise<Map<string, number>> {
  const rows = await tx
    .selectFrom('notifications')
    .select(['user_id', (eb) => eb.fn.countAll<number>().as('n')])
    .where('user_id', 'in', userIds)
    .where('read_at', 'is', null)
    .groupBy('user_id')
    .execute();
  return new Map(rows.map((r) => [r.user_id, Number(r.n)]));
}

/** One person's unread count. */
export async function unreadCountOf(tx: Tx, userId: string): Promise<number> {
  return (await unreadCountsOf(tx, [userId])).get(userId) ?? 0;
}
