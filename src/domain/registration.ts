import { sql } from 'kysely';
import type { z } from 'zod';
import type { AccountRequestsTable } from '../db/types.js';
import { CONFIRMATION_VALID_HOURS, type registerBody } from '../shared/accounts.js';
import { ERR } from '../shared/errors.js';
import { queueAccountRequest } from './account-requests.js';
import type { Ctx, Services, Tx } from './context.js';
import { AppError, badRequest, invalidField } from './errors.js';
import { newId, nowIso } from './ids.js';
import {
  accountMailsSince,
  queueAddressTakenMail,
  queueConfirmationMail,
  queueUsernameTakenMail,
} from './notifications/account-mail.js';
import { publicBase } from './notifications/mail.js';
import { mailEnabled } from './notifications/settings.js';
import { hashPassword, verifyPassword } from './passwords.js';
import { getSecuritySettings } from './settings.js';
import { hashToken, newSessionToken } from './tokens.js';
import { createRegistered, register } from './users.js';

/**
 * Registration, and its confirmation by e-mail when administrators turned that on
 * (docs/security.md, docs/decisions/057-account-discovery-and-origin.md).
 *
 * With confirmation on, a registration answers 202 `{confirmationRequired: true}` after the same
 * work whatever it names: the password is hashed and the request queued, nothing is looked up.
 * The mail sender then decides (`resolveRegistration`): a free username and address get a
 * confirmation link; a registered address gets its owner a notice that someone tried; a taken
 * username gets the address a message saying so. The account is created only when the link is
 * used with the password chosen (`confirmRegistration`), so an unconfirmed registration holds no
 * username or address, cannot sign in, and cannot be linked to by single sign-on.
 *
 * With it off, registration is as it always was: the account at once, and the taken username or
 * address named in the answer (there is no other way to tell the person registering).
 */
/** Account messages (confirmations, notices) to one address per hour; more requests send nothing. */
export const ACCOUNT_MAILS_PER_ADDRESS_PER_HOUR = 3;

export type RegisterAnswer = Awaited<ReturnType<typeof register>> | { confirmationRequired: true };

/** POST /api/auth/register. */
export async function registerAccount(
  ctx: Ctx,
  input: z.infer<typeof registerBody>,
): Promise<RegisterAnswer> {
  const { requireEmailConfirmation } = await getSecuritySettings(ctx);
  if (!requireEmailConfirmation) return register(ctx, input);
  if (!mailEnabled(ctx.config)) throw new AppError(503, ERR.registrationNeedsMail);
  if (!input.email)
    throw invalidField('email', 'An e-mail address is required: new accounts are confirmed by e-mail');
  const passwordHash = await hashPassword(input.password);
  await queueAccountRequest(ctx, {
    kind: 'registration',
    username: input.username,
    email: input.email,
    name: input.name || null,
    passwordHash,
  });
  return { confirmationRequired: true };
}

/** Acts on a queued registration, in the mail sender's transaction (src/domain/account-request-worker.ts). */
export async function resolveRegistration(s: Services, tx: Tx, r: AccountRequestsTable): Promise<void> {
  if (!r.username || !r.email || !r.password_hash) return;
  const now = new Date();
  const since = new Date(now.getTime() - 3_600_000).toISOString();
  const owner = await tx
    .selectFrom('users')
    .select(['id', 'username', 'email'])
    .where(sql`lower(email)`, '=', r.email.toLowerCase())
    .executeTakeFirst();
  if (owner?.email) {
    if ((await accountMailsSince(tx, owner.email, since)) >= ACCOUNT_MAILS_PER_ADDRESS_PER_HOUR) return;
    await queueAddressTakenMail(tx, s.config, {
      userId: owner.id,
      address: owner.email,
      username: owner.username,
    });
    return;
  }
  if ((await accountMailsSince(tx, r.email, since)) >= ACCOUNT_MAILS_PER_ADDRESS_PER_HOUR) return;
  const taken = await tx
    .selectFrom('users')
    .select('id')
    .where(sql`lower(username)`, '=', r.username.toLowerCase())
    .executeTakeFirst();
  if (taken) {
    await queueUsernameTakenMail(tx, s.config, { address: r.email, username: r.username });
    return;
  }
  const token = newSessionToken();
  await tx
    .insertInto('registration_confirmations')
    .values({
      id: newId(),
      token_hash: hashToken(token),
      username: r.username,
      email: r.email,
      name: r.name,
      password_hash: r.password_hash,
      created_at: now.toISOString(),
      expires_at: new Date(now.getTime() + CONFIRMATION_VALID_HOURS * 3_600_000).toISOString(),
    })
    .execute();
  // In the fragment, as reset links: not sent to the server by the browser, nor in Referer.
  const link = `${publicBase(s.config)}/confirm-email#token=${encodeURIComponent(token)}`;
  await queueConfirmationMail(tx, { address: r.email, username: r.username }, link, CONFIRMATION_VALID_HOURS);
}

/**
 * POST /api/auth/confirm: creates the account of a confirmation link, with the password chosen when
 * registering (so that whoever holds the mailbox but not the password, such as the owner of an
 * address someone else registered, cannot make the account theirs). The link is spent by the
 * transaction that creates the account, with every other unconfirmed registration of the address.
 * A wrong password leaves the link as it is. It does not sign in.
 */
export async function confirmRegistration(ctx: Ctx, token: string, password: string) {
  const now = nowIso();
  const row = await ctx.db.kysely
    .selectFrom('registration_confirmations')
    .selectAll()
    .where('token_hash', '=', hashToken(token))
    .executeTakeFirst();
  const live = row && row.expires_at > now ? row : undefined;
  // Spends a hash's time whether or not the link is live.
  const ok = await verifyPassword(live?.password_hash, password);
  if (!live) throw badRequest(ERR.invalidConfirmationLink);
  if (!ok) throw badRequest(ERR.invalidPassword);
  return createRegistered(
    ctx,
    { username: live.username, email: live.email, name: live.name, passwordHash: live.password_hash },
    async (tx) => {
      const spent = await tx
        .deleteFrom('registration_confirmations')
        .where('id', '=', live.id)
        .executeTakeFirst();
      if (Number(spent.numDeletedRows) === 0) throw badRequest(ERR.invalidConfirmationLink);
      await tx
        .deleteFrom('registration_confirmations')
        .where(sql`lower(email)`, '=', live.email.toLowerCase())
        .execute();
    },
  );
}
