import type { Db } from '../db/connect.js';
import type { Services } from './context.js';
import { nowIso } from './ids.js';
import { anyDue, backoffMs, claimNext, settle } from './outbox.js';
import { sendPasswordResetLink } from './password-reset.js';
import { resolveRegistration } from './registration.js';

/**
 * Works off the queued account requests (src/domain/account-requests.ts), run by the mail sender
 * of every instance (src/mail/sender.ts) before it sends:
 *
 * - a row is claimed with the outbox claim (src/domain/outbox.ts): one instance at a time, again
 *   after its lease when the instance died;
 * - it is acted on in one transaction that starts by deleting it (only while this worker still
 *   holds it), so its link or message is written once, or not at all when the transaction fails;
 * - a failure puts it back with exponential back-off; after MAX_ATTEMPTS it is marked failed (its
 *   password hash cleared) and logged.
 *
 * Hourly it also deletes expired reset links and unconfirmed registrations.
 */
export const MAX_ATTEMPTS = 8;
const BACKOFF_BASE_MS = 2000;
const BACKOFF_MAX_MS = 10 * 60_000;
const PRUNE_EVERY_MS = 60 * 60_000;

const lastPrune = new WeakMap<Db, number>();

async function pruneExpired(s: Services) {
  const last = lastPrune.get(s.db) ?? 0;
  if (Date.now() - last < PRUNE_EVERY_MS) return;
  lastPrune.set(s.db, Date.now());
  const now = nowIso();
  await s.db.kysely.deleteFrom('password_resets').where('expires_at', '<=', now).execute();
  await s.db.kysely.deleteFrom('registration_confirmations').where('expires_at', '<=', now).execute();
}

/** Acts on every due request, one at a time, until none is due or `stopped` says so. */
export async function processAccountRequests(
  s: Services,
  worker: string,
  leaseSeconds: number,
  stopped: () => boolean = () => false,
): Promise<number> {
  await pruneExpired(s);
  // A read first, so that an idle poll takes no write lock.
  if (!(await anyDue(s.db, 'account_requests'))) return 0;
  let done = 0;
  while (!stopped()) {
    const row = await claimNext(s.db, 'account_requests', worker, leaseSeconds);
    if (!row) break;
    try {
      await s.db.kysely.transaction().execute(async (tx) => {
        const mine = await tx
          .deleteFrom('account_requests')
          .where('id', '=', row.id)
          .where('claimed_by', '=', worker)
          .executeTakeFirst();
        // Another instance took it over after this one's lease ran out: it acts, not this one.
        if (Number(mine.numDeletedRows) === 0) return;
        if (row.kind === 'password_reset')
          await sendPasswordResetLink(s, tx, { login: row.login ?? '', address: row.address });
        else await resolveRegistration(s, tx, row);
      });
      done++;
    } catch (err) {
      const attempts = Number(row.attempts);
      const failed = attempts >= MAX_ATTEMPTS;
      const message = (err instanceof Error ? err.message : String(err)).slice(0, 1000);
      await settle(
        s.db,
        'account_requests',
        row.id,
        {
          status: failed ? 'failed' : 'pending',
          next_attempt_at: new Date(
            Date.now() + backoffMs(attempts, BACKOFF_BASE_MS, BACKOFF_MAX_MS),
          ).toISOString(),
          claimed_by: null,
          claimed_until: null,
          last_error: message,
          ...(failed ? { password_hash: null } : {}),
        },
        worker,
      );
      s.log.warn(
        { requestId: row.id, kind: row.kind, attempts, failed, err: message },
        'account request failed',
      );
    }
  }
  return done;
}
