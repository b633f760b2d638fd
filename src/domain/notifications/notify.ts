import type { Insertable } from 'kysely';
import type { NotificationsTable } from '../../db/types.js';
import { NOTIFICATION_TYPES, type NotificationType } from '../../shared/mentions.js';
import { NOTIFICATION_LIMITS } from '../../shared/notifications.js';
import type { Ctx, Emit, Services, Tx } from '../context.js';
import { newId, nowIso } from '../ids.js';
import { queueNotificationMail } from './mail.js';
import { notificationRows, presentNotification, unreadCountsOf } from './present.js';
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

/** One change's reasons to tell people, by whom, in which project (notifyMany). */
export interface Change {
  projectId: string;
  /** Who made the change: never told about it; null for the system. */
  actorId: string | null;
  intents: Intent[];
}

/**
 * Creates the notifications of one change, inside the change's transaction (notifyMany).
 */
export async function notify(ctx: Ctx, tx: Tx, emit: Emit, projectId: string, intents: Intent[]) {
  await notifyMany(ctx, tx, emit, [{ projectId, actorId: ctx.actor?.userId ?? null, intents }]);
}

/** A notification as the changes of one call leave it: new, or folded into (from the table or this call). */
interface Target {
  id: string;
  userId: string;
  type: NotificationType;
  excerpt: string;
  mail: NotificationsTable['mail'];
  /** Folds made by this call (an existing row's count grows by as many). */
  folds: number;
  inserted: Insertable<NotificationsTable> | null;
}

/**
 * Creates the notifications of several changes, in their order, in a constant number of statements
 * for any number of them (a worker's batch of comments, src/domain/notifications/jobs.ts; one
 * change through `notify`): never for the change's actor, only for active users who can see its
 * project (members, system administrators), one per person and ticket for each change (the most
 * important reason wins), folded into an unread notification from the same actor about the same
 * ticket made within the fold window (by an earlier change of the same call too). E-mail follows
 * each person's settings: queued in the outbox now, or left for the digest. Each person's stream
 * gets `notification.created` with their unread count after the commit, once per notification.
 */
export async function notifyMany(s: Services, tx: Tx, emit: Emit, changes: readonly Change[]) {
  const chosenOf = changes.map((c) => {
    const chosen = new Map<string, Intent>();
    for (const i of c.intents) {
      if (i.userId === c.actorId) continue;
      const key = `${i.userId}\u0000${i.ticketId ?? ''}`;
      const had = chosen.get(key);
      if (!had || rank(i.type) < rank(had.type)) chosen.set(key, i);
    }
    return [...chosen.values()];
  });
  const everyone = chosenOf.flat();
  if (everyone.length === 0) return;
  const userIds = [...new Set(everyone.map((i) => i.userId))];
  const projectIds = [...new Set(changes.map((c) => c.projectId))];
  const rows = await tx
    .selectFrom('users as u')
    .leftJoin('project_members as m', (j) =>
      j.onRef('m.user_id', '=', 'u.id').on('m.project_id', 'in', projectIds),
    )
    .select(['u.id', 'u.email', 'u.is_system_admin', 'm.project_id'])
    .where('u.id', 'in', userIds)
    .where('u.is_active', '=', 1)
    .execute();
  const people = new Map<string, { email: string | null; admin: boolean; projects: Set<string> }>();
  for (const r of rows) {
    let p = people.get(r.id);
    if (!p) {
      p = { email: r.email, admin: Number(r.is_system_admin) === 1, projects: new Set() };
      people.set(r.id, p);
    }
    if (r.project_id) p.projects.add(r.project_id);
  }
  const allowed = (userId: string, projectId: string) => {
    const p = people.get(userId);
    return p && (p.admin || p.projects.has(projectId)) ? p : undefined;
  };
  const settings = await settingsOf(
    tx,
    [...people.keys()].filter((u) => changes.some((c) => allowed(u, c.projectId))),
  );
  const wantedOf = changes.map((c, k) =>
    chosenOf[k].filter((i) => allowed(i.userId, c.projectId) && settings.has(i.userId)),
  );
  const now = nowIso();
  const foldSince = new Date(Date.now() - NOTIFICATION_LIMITS.foldSeconds * 1000).toISOString();
  // The unread notifications from the same actors about the same tickets, made within the fold
  // window: one read for every person (the latest per person, ticket and actor folds new reasons in).
  const foldKey = (userId: string, ticketId: string, actorId: string) =>
    `${userId}\u0000${ticketId}\u0000${actorId}`;
  const targets = new Map<string, Target>();
  const foldable = changes.flatMap((c, k) => (c.actorId ? wantedOf[k].filter((i) => i.ticketId) : []));
  const actors = [...new Set(changes.map((c) => c.actorId).filter((a): a is string => a !== null))];
  if (foldable.length > 0) {
    const found = await tx
      .selectFrom('notifications')
      .selectAll()
      .where('user_id', 'in', [...new Set(foldable.map((i) => i.userId))])
      .where('ticket_id', 'in', [...new Set(foldable.map((i) => i.ticketId as string))])
      .where('actor_id', 'in', actors)
      .where('read_at', 'is', null)
      .where('created_at', '>=', foldSince)
      .orderBy('created_at', 'desc')
      .execute();
    for (const r of found) {
      const key = foldKey(r.user_id, r.ticket_id ?? '', r.actor_id ?? '');
      if (!targets.has(key))
        targets.set(key, {
          id: r.id,
          userId: r.user_id,
          type: r.type as NotificationType,
          excerpt: r.excerpt,
          mail: r.mail,
          folds: 0,
          inserted: null,
        });
    }
  }
  const mails = new Map<string, { userId: string; address: string }>();
  const touched = new Map<string, Target>();
  for (const [k, c] of changes.entries()) {
    for (const intent of wantedOf[k]) {
      const person = allowed(intent.userId, c.projectId);
      const st = settings.get(intent.userId);
      if (!person || !st) continue;
      const key = intent.ticketId && c.actorId ? foldKey(intent.userId, intent.ticketId, c.actorId) : null;
      const folded = key ? targets.get(key) : undefined;
      let target: Target;
      let queueNow = false;
      if (folded) {
        target = folded;
        const type = rank(intent.type) <= rank(folded.type) ? intent.type : folded.type;
        const want = mailModeOf(s.config, st, type, person.email);
        if (type === intent.type) folded.excerpt = intent.excerpt;
        folded.type = type;
        // Already queued (alone or in a digest): a folded change is not mailed again.
        if (folded.mail !== 'queued' && want === 'instant') {
          folded.mail = 'queued';
          queueNow = true;
        } else if (folded.mail === 'none' && want === 'digest') folded.mail = 'digest';
        if (folded.inserted) {
          folded.inserted.fold_count = Number(folded.inserted.fold_count) + 1;
          Object.assign(folded.inserted, {
            type,
            excerpt: folded.excerpt,
            mail: folded.mail,
            updated_at: now,
          });
        } else folded.folds++;
      } else {
        const want = mailModeOf(s.config, st, intent.type, person.email);
        queueNow = want === 'instant';
        const mail = want === 'instant' ? 'queued' : want;
        const inserted: Insertable<NotificationsTable> = {
          id: newId(),
          user_id: intent.userId,
          type: intent.type,
          actor_id: c.actorId,
          project_id: c.projectId,
          ticket_id: intent.ticketId ?? null,
          excerpt: intent.excerpt,
          fold_count: 1,
          mail,
          created_at: now,
          updated_at: now,
          read_at: null,
        };
        target = {
          id: inserted.id,
          userId: intent.userId,
          type: intent.type,
          excerpt: intent.excerpt,
          mail,
          folds: 0,
          inserted,
        };
        if (key) targets.set(key, target);
      }
      if (queueNow && person.email) mails.set(target.id, { userId: intent.userId, address: person.email });
      touched.set(target.id, target);
    }
  }
  if (touched.size === 0) return;
  const inserts = [...touched.values()].flatMap((t) => (t.inserted ? [t.inserted] : []));
  for (let i = 0; i < inserts.length; i += 200)
    await tx
      .insertInto('notifications')
      .values(inserts.slice(i, i + 200))
      .execute();
  for (const t of touched.values())
    if (!t.inserted && t.folds > 0)
      await tx
        .updateTable('notifications')
        .set((eb) => ({
          type: t.type,
          excerpt: t.excerpt,
          fold_count: eb('fold_count', '+', t.folds),
          updated_at: now,
          mail: t.mail,
        }))
        .where('id', '=', t.id)
        .execute();
  // Every notification made or folded, as its person sees it, and each person's unread count: one
  // read each for everyone.
  const ids = [...touched.keys()];
  const shown = new Map(
    (await notificationRows(tx).where('n.id', 'in', ids).execute()).map((r) => [r.id, r]),
  );
  for (const [id, to] of mails) {
    const row = shown.get(id);
    if (row) await queueNotificationMail(s, tx, presentNotification(row), to);
  }
  const unread = await unreadCountsOf(tx, [...new Set([...touched.values()].map((t) => t.userId))]);
  for (const t of touched.values()) {
    const r = shown.get(t.id);
    if (!r) continue;
    emit({
      scope: 'user',
      type: 'notification.created',
      userId: t.userId,
      audience: [t.userId],
      data: { notification: presentNotification(r), unreadCount: unread.get(t.userId) ?? 0 },
    });
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
