import type { Ctx } from './context.js';
import { newId, nowIso } from './ids.js';

/**
 * Account requests (docs/decisions/057-account-discovery-and-origin.md): a forgotten-password
 * request, or a registration while new accounts are confirmed by e-mail. The request that makes one
 * only writes it here, in one statement of the same shape whatever account it names, and answers;
 * whether an account matched is decided later by the mail sender (src/domain/account-request-worker.ts),
 * which claims the row like an outbox row and deletes it in the transaction that acts on it.
 */
export type AccountRequest =
  | { kind: 'password_reset'; login: string }
  | { kind: 'registration'; username: string; email: string; name: string | null; passwordHash: string };

export async function queueAccountRequest(ctx: Ctx, r: AccountRequest): Promise<void> {
  const now = nowIso();
  const registration = r.kind === 'registration' ? r : null;
  await ctx.db.kysely
    .insertInto('account_requests')
    .values({
      id: newId(),
      kind: r.kind,
      login: r.kind === 'password_reset' ? r.login : null,
      username: registration?.username ?? null,
      email: registration?.email ?? null,
      name: registration?.name ?? null,
      password_hash: registration?.passwordHash ?? null,
      address: ctx.address,
      status: 'pending',
      attempts: 0,
      next_attempt_at: now,
      claimed_by: null,
      claimed_until: null,
      last_error: null,
      created_at: now,
    })
    .execute();
}
