import type { Tx } from '../context.js';

/** Notifications joined with their actor, project and ticket, as presentNotification reads them. */
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
