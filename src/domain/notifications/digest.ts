import { sql } from 'kysely';
import type { Services } from '../context.js';
import { transact } from '../context.js';
import { presentNotification } from '../presenters/notifications.js';
import { queueDigestMail } from './mail.js';
import { notificationRows } from './rows.js';
import { mailEnabled, settingsOf } from './settings.js';

class DigestTaken extends Error {}

/**
 * Queues the digests that are due at `now`: for each user whose oldest waiting notification
 * (mail = 'digest') is at least their digestMinutes old, one message with every waiting unread
 * notification, and those notifications marked queued, in one transaction. Two instances may
 * compose at once: the marking update only takes rows still waiting, and when it takes fewer than
 * were read (another instance took them first) the transaction rolls back, so each notification is
 * in at most one digest. Returns how many digests were queued.
 */
export async function composeDueDigests(s: Services, now = new Date()): Promise<number> {
  const db = s.db.kysely;
  const waiting = await db
    .selectFrom('notifications')
    .select(['user_id', sql<string>`min(created_at)`.as('oldest')])
    .where('mail', '=', 'digest')
    .groupBy('user_id')
    .execute();
  if (waiting.length === 0) return 0;
  const settings = await settingsOf(
    db,
    waiting.map((w) => w.user_id),
  );
  let queued = 0;
  for (const w of waiting) {
    const st = settings.get(w.user_id);
    if (!st) continue;
    if (Date.parse(w.oldest) + st.digestMinutes * 60_000 > now.getTime()) continue;
    try {
      queued += await transact(s, async (tx) => {
        const rows = await notificationRows(tx)
          .where('n.user_id', '=', w.user_id)
          .where('n.mail', '=', 'digest')
          .orderBy('n.updated_at')
          .orderBy('n.id')
          .execute();
        if (rows.length === 0) return 0;
        const user = await tx
          .selectFrom('users')
          .select(['email', 'is_active'])
          .where('id', '=', w.user_id)
          .executeTakeFirst();
        const send =
          mailEnabled(s.config) && !!user?.email && Number(user.is_active) === 1 && st.email !== 'off';
        const unread = rows.filter((r) => r.read_at === null);
        const taken = await tx
          .updateTable('notifications')
          .set({ mail: send && unread.length > 0 ? 'queued' : 'none' })
          .where(
            'id',
            'in',
            rows.map((r) => r.id),
          )
          .where('mail', '=', 'digest')
          .executeTakeFirst();
        if (Number(taken.numUpdatedRows) !== rows.length) throw new DigestTaken();
        if (!send || unread.length === 0 || !user?.email) return 0;
        await queueDigestMail(s, tx, unread.map(presentNotification), {
          userId: w.user_id,
          address: user.email,
        });
        return 1;
      });
    } catch (err) {
      if (!(err instanceof DigestTaken)) throw err;
    }
  }
  return queued;
}
