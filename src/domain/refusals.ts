import { audit } from './audit.js';
import type { Actor, Services } from './context.js';
import { type Refusal, WindowCounter } from './rate-limit.js';

/**
 * Requests refused by a rate limit, in the audit log (issue 49, docs/decisions/058-trust-findings.md)
 * without letting a flood of refused requests flood the log:
 *
 * - one entry `rate_limit.refused` per counter key and window: the first refusal of a window (the
 *   counter row counts the rest, `rate_limits.refused`);
 * - at most AUDITED_REFUSALS_PER_WINDOW such entries per window over the whole instance (every
 *   instance on the database together); the refusal that finds the cap reached writes one
 *   `rate_limit.audit_capped` entry, and later ones in that window write nothing.
 */
export const AUDITED_REFUSALS_PER_WINDOW = 100;

const caps = new WeakMap<object, WindowCounter>();

function capOf(s: Services): WindowCounter {
  let cap = caps.get(s.db);
  if (!cap) {
    cap = new WindowCounter(
      s.db,
      'audit-refusals',
      AUDITED_REFUSALS_PER_WINDOW,
      s.config.registerWindowSeconds * 1000,
    );
    caps.set(s.db, cap);
  }
  return cap;
}

/** Records a refused request when it is the first of its key's window and the cap allows. */
export async function auditRefusal(
  s: Services,
  who: { actor: Actor | null; address: string | null },
  refusal: Refusal,
  route: string,
): Promise<void> {
  if (!refusal.first) return;
  const capped = await capOf(s).check('all');
  if (capped && !capped.first) return;
  if (capped) {
    await audit(s.db.kysely, who, {
      action: 'rate_limit.audit_capped',
      details: {
        perWindow: AUDITED_REFUSALS_PER_WINDOW,
        windowSeconds: s.config.registerWindowSeconds,
        retryAfter: capped.retryAfter,
      },
    });
    return;
  }
  const user = refusal.key.startsWith('user:') ? refusal.key.slice(5) : null;
  const login = refusal.key.startsWith('name:') ? refusal.key.slice(5) : undefined;
  await audit(s.db.kysely, who, {
    action: 'rate_limit.refused',
    ...(user ? { target: { type: 'user', id: user } } : {}),
    details: {
      limit: refusal.limit,
      route,
      retryAfter: refusal.retryAfter,
      ...(login !== undefined ? { login } : {}),
    },
  });
}
