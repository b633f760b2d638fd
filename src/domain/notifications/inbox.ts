import type { MarkReadBody, NotificationListQuery } from '../../shared/notifications.js';
import { NOTIFICATION_LIMITS } from '../../shared/notifications.js';
import { actorOf, type Ctx, transact } from '../context.js';
import { invalidField } from '../errors.js';
import { nowIso } from '../ids.js';
import { presentNotification } from '../presenters/notifications.js';
import { notificationRows, unreadCountOf } from './rows.js';

/** The inbox: newest activity first (a folded change moves a notification up), paged by a cursor. */

const encodeCursor = (updatedAt: string, id: string) =>
  Buffer.from(`${updatedAt}|${id}`).toString('base64url');

function decodeCursor(cursor: string): { updatedAt: string; id: string } {
  const raw = Buffer.from(cursor, 'base64url').toString('utf8');
  const m = /^(\d{4}-\d{2}-\d{2}T[\d:.]+Z)\|([0-9a-f-]{1,64})$/.exec(raw);
  if (!m) throw invalidField('cursor', 'Not a cursor of this list');
  return { updatedAt: m[1], id: m[2] };
}

export async function listNotifications(ctx: Ctx, q: NotificationListQuery) {
  const userId = actorOf(ctx).userId;
  const db = ctx.db.kysely;
  const limit = q.limit ?? NOTIFICATION_LIMITS.listDefault;
  let query = notificationRows(db).where('n.user_id', '=', userId);
  if (q.unread) query = query.where('n.read_at', 'is', null);
  if (q.type) query = query.where('n.type', '=', q.type);
  if (q.cursor) {
    const c = decodeCursor(q.cursor);
    query = query.where((eb) =>
      eb.or([
        eb('n.updated_at', '<', c.updatedAt),
        eb.and([eb('n.updated_at', '=', c.updatedAt), eb('n.id', '<', c.id)]),
      ]),
    );
  }
  const rows = await query
    .orderBy('n.updated_at', 'desc')
    .orderBy('n.id', 'desc')
    .limit(limit + 1)
    .execute();
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  return {
    items: page.map(presentNotification),
    unreadCount: await unreadCountOf(db, userId),
    nextCursor: rows.length > limit && last ? encodeCursor(last.updated_at, last.id) : null,
  };
}

/** Marks the caller's notifications read (the given ids, or all); ids of others are ignored. */
export async function markNotificationsRead(ctx: Ctx, body: MarkReadBody) {
  const userId = actorOf(ctx).userId;
  return transact(ctx, async (tx, emit) => {
    let q = tx
      .updateTable('notifications')
      .set({ read_at: nowIso() })
      .where('user_id', '=', userId)
      .where('read_at', 'is', null);
    const ids = 'ids' in body ? [...new Set(body.ids.map((i) => i.toLowerCase()))] : null;
    if (ids) q = q.where('id', 'in', ids);
    const r = await q.executeTakeFirst();
    const updated = Number(r.numUpdatedRows);
    const unreadCount = await unreadCountOf(tx, userId);
    if (updated > 0)
      emit({
        scope: 'user',
        type: 'notification.read',
        userId,
        audience: [userId],
        data: { ids, unreadCount },
      });
    return { updated, unreadCount };
  });
}
