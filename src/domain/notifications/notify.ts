import type { Insertable, Selectable } from 'kysely';
import type { NotificationsTable } from '../../db/types.js';
import { NOTIFICATION_TYPES, type NotificationType } from '../../shared/mentions.js';
import { NOTIFICATION_LIMITS } from '../../shared/notifications.js';
import type { Ctx, Emit, Tx } from '../context.js';
import { newId, nowIso } from '../ids.js';
import { presentNotification } from '../presenters/notifications.js';
import { queueNotificationMail } from './mail.js';
import { notificationRows, unreadCountsOf } from './rows.js';
import { mailModeOf, settingsOf } from './settings.js';

/** One reason to tell one person about a change. */
export interface Intent {
  userId: string;
  type: NotificationType;
  excerpt: string;
  ticketId?: string | null;
}

const rank = (t: string) => {
  const i = NOTIFICATION_TYPES.indexOf(t as NotificationType);
  return i < 0 ? NOTIFICATION_TYPES.length : i;
};

/** A short one-line excerpt: Markdown markers and runs of white space removed, cut at the limit. */
export function excerptOf(text: string): string {
  const plain = text
    .replace(/```[\s\S]*?```/g, ' ')
    .replace(/!\[[^\]]*\]\([^)]*\)/g, ' ')
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/[`*_>#~]/g, '')
    .replace(/\s+/g, ' ')
    .trim();
  const max = NOTIFICATION_LIMITS.excerptMax;
  return plain.length <= max ? plain : `${plain.slice(0, max - 1).trimEnd()}…`;
}

/**
 * Creates the notifications of one change, inside the change's transaction: never for the actor
 * themself, only for active users who can see the project (members, system administrators), one per
 * person and ticket (the most important reason wins), folded into an unread notification from the
 * same actor about the same ticket made within the fold window. E-mail follows each person's
 * settings: queued in the outbox now, or left for the digest. The person's stream gets
 * `notification.created` with their unread count after the commit.
 */
export async function notify(ctx: Ctx, tx: Tx, emit: Emit, projectId: string, intents: Intent[]) {
  const actorId = ctx.actor?.userId ?? null;
  const chosen = new Map<string, Intent>();
  for (const i of intents) {
    if (i.userId === actorId) continue;
    const key = `${i.userId}\u0000${i.ticketId ?? ''}`;
    const had = chosen.get(key);
    if (!had || rank(i.type) < rank(had.type)) chosen.set(key, i);
  }
  if (chosen.size === 0) return;
  const userIds = [...new Set([...chosen.values()].map((i) => i.userId))];
  const people = await tx
    .selectFrom('users as u')
    .leftJoin('project_members as m', (j) =>
      j.onRef('m.user_id', '=', 'u.id').on('m.project_id', '=', projectId),
    )
    .select(['u.id', 'u.email', 'u.is_system_admin', 'm.id as member_id'])
    .where('u.id', 'in', userIds)
    .where('u.is_active', '=', 1)
    .execute();
  const allowed = new Map(
    people.filter((p) => p.member_id !== null || Number(p.is_system_admin) === 1).map((p) => [p.id, p]),
  );
  const settings = await settingsOf(tx, [...allowed.keys()]);
  const now = nowIso();
  const foldSince = new Date(Date.now() - NOTIFICATION_LIMITS.foldSeconds * 1000).toISOString();
  const wanted = [...chosen.values()].filter((i) => allowed.has(i.userId) && settings.has(i.userId));
  if (wanted.length === 0) return;
  // The unread notifications from the same actor about the same tickets, made within the fold
  // window: one read for every person (the latest per person and ticket folds the new reason in).
  const foldable = wanted.filter((i) => i.ticketId);
  const folds = new Map<string, Selectable<NotificationsTable>>();
  if (actorId && foldable.length > 0) {
    const rows = await tx
      .selectFrom('notifications')
      .selectAll()
      .where('user_id', 'in', [...new Set(foldable.map((i) => i.userId))])
      .where('ticket_id', 'in', [...new Set(foldable.map((i) => i.ticketId as string))])
      .where('actor_id', '=', actorId)
      .where('read_at', 'is', null)
      .where('created_at', '>=', foldSince)
      .orderBy('created_at', 'desc')
      .execute();
    for (const r of rows) {
      const key = `${r.user_id}\u0000${r.ticket_id}`;
      if (!folds.has(key)) folds.set(key, r);
    }
  }
  const inserts: Insertable<NotificationsTable>[] = [];
  const mails: { id: string; userId: string; address: string }[] = [];
  const touched = new Map<string, string[]>();
  for (const intent of wanted) {
    const person = allowed.get(intent.userId);
    const s = settings.get(intent.userId);
    if (!person || !s) continue;
    const folded = intent.ticketId ? folds.get(`${intent.userId}\u0000${intent.ticketId}`) : undefined;
    let id: string;
    let queueNow = false;
    if (folded) {
      id = folded.id;
      const type = rank(intent.type) <= rank(folded.type) ? intent.type : (folded.type as NotificationType);
      const excerpt = type === intent.type ? intent.excerpt : folded.excerpt;
      const want = mailModeOf(ctx.config, s, type, person.email);
      // Already queued (alone or in a digest): a folded change is not mailed again.
      let mail = folded.mail;
      if (mail !== 'queued' && want === 'instant') {
        mail = 'queued';
        queueNow = true;
      } else if (mail === 'none' && want === 'digest') mail = 'digest';
      await tx
        .updateTable('notifications')
        .set((eb) => ({ type, excerpt, fold_count: eb('fold_count', '+', 1), updated_at: now, mail }))
        .where('id', '=', id)
        .execute();
    } else {
      id = newId();
      const want = mailModeOf(ctx.config, s, intent.type, person.email);
      queueNow = want === 'instant';
      inserts.push({
        id,
        user_id: intent.userId,
        type: intent.type,
        actor_id: actorId,
        project_id: projectId,
        ticket_id: intent.ticketId ?? null,
        excerpt: intent.excerpt,
        fold_count: 1,
        mail: want === 'instant' ? 'queued' : want,
        created_at: now,
        updated_at: now,
        read_at: null,
      });
    }
    if (queueNow && person.email) mails.push({ id, userId: intent.userId, address: person.email });
    touched.set(intent.userId, [...(touched.get(intent.userId) ?? []), id]);
  }
  if (inserts.length > 0) await tx.insertInto('notifications').values(inserts).execute();
  if (touched.size === 0) return;
  // Every notification made or folded, as its person sees it, and each person's unread count: one
  // read each for everyone.
  const ids = [...touched.values()].flat();
  const rows = new Map((await notificationRows(tx).where('n.id', 'in', ids).execute()).map((r) => [r.id, r]));
  for (const m of mails) {
    const row = rows.get(m.id);
    if (row)
      await queueNotificationMail(ctx, tx, presentNotification(row), {
        userId: m.userId,
        address: m.address,
      });
  }
  const unread = await unreadCountsOf(tx, [...touched.keys()]);
  for (const [userId, mine] of touched) {
    const unreadCount = unread.get(userId) ?? 0;
    for (const id of mine) {
      const r = rows.get(id);
      if (!r) continue;
      emit({
        scope: 'user',
        type: 'notification.created',
        userId,
        audience: [userId],
        data: { notification: presentNotification(r), unreadCount },
      });
    }
  }
}

/** A user who leaves a project (or is removed) loses its notifications and the mail not yet sent about it. */
export async function forgetProjectNotifications(tx: Tx, projectId: string, userId: string) {
  await tx
    .deleteFrom('notifications')
    .where('project_id', '=', projectId)
    .where('user_id', '=', userId)
    .execute();
  await tx
    .deleteFrom('mail_outbox')
    .where('project_id', '=', projectId)
    .where('user_id', '=', userId)
    .where('status', '=', 'pending')
    .execute();
}
