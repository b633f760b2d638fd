import { ERR } from '../shared/errors.js';
import { queueAccountRequest } from './account-requests.js';
import { audit } from './audit.js';
import { findUserByLogin } from './auth.js';
import type { Ctx, Services, Tx } from './context.js';
import { type EndedCredentials, endCredentials } from './credentials.js';
import { badRequest, notFound } from './errors.js';
import { newId, nowIso } from './ids.js';
import { publicBase, queuePasswordResetMail } from './notifications/mail.js';
import { mailEnabled } from './notifications/settings.js';
import { hashPassword } from './passwords.js';
import { hashToken, newSessionToken } from './tokens.js';

/**
 * Forgotten passwords (docs/security.md, docs/decisions/043-sso-and-password-reset.md): a request
 * by e-mail address or username answers the same whether or not an account matches; a matching
 * active account with an e-mail address gets a single-use link valid one hour, through the mail
 * outbox. Only the SHA-256 of the link's token is stored. The request is queued and the link made
 * by the mail sender (src/domain/account-requests.ts), so the answer takes as long either way.
 */
export const RESET_VALID_MINUTES = 60;
/** Links sent to one account per hour; more requests answer the same and send nothing. */
export const RESETS_PER_ACCOUNT_PER_HOUR = 3;

/** Refuses when no e-mail can be sent (the sign-in page then hides the link). */
export function assertPasswordResetAvailable(ctx: Ctx): void {
  if (!mailEnabled(ctx.config)) throw notFound(ERR.passwordResetOff);
}

/**
 * A forgotten-password request: queued for the mail sender in one statement, whatever the login
 * names, so that the request does the same work and takes the same time for a known address as for
 * an unknown one (docs/decisions/057-account-discovery-and-origin.md). `sendPasswordResetLink` acts
 * on it.
 */
export async function requestPasswordReset(ctx: Ctx, login: string): Promise<void> {
  assertPasswordResetAvailable(ctx);
  await queueAccountRequest(ctx, { kind: 'password_reset', login: login.trim().slice(0, 320) });
}

/**
 * Acts on a queued request, in the mail sender's transaction: when an account matches (active, with
 * an e-mail address, allowed to sign in with a password) and has had fewer than three links in the
 * last hour, a link is stored and its message written to the mail outbox. Nothing else happens
 * otherwise.
 */
export async function sendPasswordResetLink(
  s: Services,
  tx: Tx,
  request: { login: string; address: string | null },
): Promise<void> {
  const now = new Date();
  const user = await findUserByLogin(tx, request.login);
  if (!user?.email || user.is_active !== 1) return;
  // With single sign-on only, passwords are for administrators (their way in when the provider is down).
  if (s.config.oidc?.only && user.is_system_admin !== 1) return;
  const since = new Date(now.getTime() - 3_600_000).toISOString();
  const recent = await tx
    .selectFrom('password_resets')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('user_id', '=', user.id)
    .where('created_at', '>', since)
    .executeTakeFirstOrThrow();
  if (Number(recent.n) >= RESETS_PER_ACCOUNT_PER_HOUR) return;
  const token = newSessionToken();
  await tx
    .insertInto('password_resets')
    .values({
      id: newId(),
      user_id: user.id,
      token_hash: hashToken(token),
      created_at: now.toISOString(),
      expires_at: new Date(now.getTime() + RESET_VALID_MINUTES * 60_000).toISOString(),
    })
    .execute();
  // The token travels in the fragment: browsers do not send it to the server or in Referer.
  const link = `${publicBase(s.config)}/reset-password#token=${encodeURIComponent(token)}`;
  await queuePasswordResetMail(
    tx,
    { userId: user.id, address: user.email, username: user.username },
    link,
    RESET_VALID_MINUTES,
  );
  await audit(
    tx,
    { actor: null, address: request.address },
    { action: 'account.password_reset_requested', actor: null, target: { type: 'user', id: user.id } },
  );
}

/**
 * Sets a new password with a reset link's token: the link and every other of the user's links are
 * spent, and every session, API key and OAuth grant of the user ends (the caller closes their
 * streams). Answers the user's id and what ended.
 */
export async function resetPassword(
  ctx: Ctx,
  token: string,
  password: string,
): Promise<{ userId: string; ended: EndedCredentials }> {
  const passwordHash = await hashPassword(password);
  return ctx.db.kysely.transaction().execute(async (tx) => {
    const now = nowIso();
    const link = await tx
      .deleteFrom('password_resets')
      .where('token_hash', '=', hashToken(token))
      .returning(['user_id', 'expires_at'])
      .executeTakeFirst();
    if (!link || link.expires_at <= now) throw badRequest(ERR.invalidResetLink);
    const user = await tx
      .selectFrom('users')
      .select(['id', 'username', 'is_active', 'is_system_admin'])
      .where('id', '=', link.user_id)
      .executeTakeFirst();
    if (user?.is_active !== 1) throw badRequest(ERR.invalidResetLink);
    if (ctx.config.oidc?.only && user.is_system_admin !== 1) throw badRequest(ERR.invalidResetLink);
    await tx
      .updateTable('users')
      .set({ password_hash: passwordHash, must_change_password: 0, updated_at: now })
      .where('id', '=', user.id)
      .execute();
    // Account recovery: whatever was signed in before, an intruder's keys and grants included,
    // ends; every other link of the user is spent too.
    const actor = { id: user.id, name: user.username };
    const ended = await endCredentials(tx, ctx, user.id, { reason: 'password reset', actor });
    await audit(tx, ctx, { action: 'account.password_reset', actor, target: { type: 'user', id: user.id } });
    return { userId: user.id, ended };
  });
}
