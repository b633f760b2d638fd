import { sql } from 'kysely';
import type { Config } from '../../config.js';
import type { Tx } from '../context.js';
import { escapeHtml, publicBase, writeOutbox } from './mail.js';

/**
 * The e-mail of a registration that needs confirming (docs/decisions/057-account-discovery-and-origin.md),
 * written to the outbox in the transaction that decides it. Like the password-reset link: sent
 * whatever any notification setting says, without an unsubscribe link (nobody asked for a list).
 * What a registration answers never tells whether the username or address was free; these messages
 * tell only the owner of the address.
 */

const paragraphs = (lines: string[]) => ({
  text: `${lines.join('\n\n')}\n`,
  html: lines.map((l) => `<p>${escapeHtml(l)}</p>`).join(''),
});

/** Account messages sent to `address` (any letter case) since `since`: at most a few an hour. */
export async function accountMailsSince(tx: Tx, address: string, since: string): Promise<number> {
  const row = await tx
    .selectFrom('mail_outbox')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where(sql`lower(to_address)`, '=', address.toLowerCase())
    .where('created_at', '>', since)
    .where('kind', 'in', ['account_confirmation', 'account_notice'])
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** The link that confirms a new account (the token in the fragment, as for password resets). */
export async function queueConfirmationMail(
  tx: Tx,
  to: { address: string; username: string },
  link: string,
  validHours: number,
) {
  const body = paragraphs([
    `Someone (hopefully you) registered the Docket account ${to.username} with this e-mail address.`,
    `Confirm it within ${validHours} hours with the password you chose (the link works once):`,
    link,
    'If you did not register, ignore this message: no account is made.',
  ]);
  body.html = body.html.replace(
    `<p>${escapeHtml(link)}</p>`,
    `<p><a href="${escapeHtml(link)}">Confirm the account</a></p>`,
  );
  await writeOutbox(tx, {
    subject: 'Confirm your new Docket account',
    ...body,
    userId: null,
    address: to.address,
    kind: 'account_confirmation',
    projectId: null,
    unsubscribe: '',
  });
}

/** To the owner of an address someone tried to register again: no new account was made. */
export async function queueAddressTakenMail(
  tx: Tx,
  config: Config,
  to: { userId: string; address: string; username: string },
) {
  const base = publicBase(config);
  const body = paragraphs([
    `Someone tried to register a new Docket account with this e-mail address, which already belongs to your account ${to.username}. No new account was made.`,
    `If it was you, sign in at ${base}/sign-in, or choose a new password at ${base}/forgot-password.`,
    'If it was not you, ignore this message: nothing has changed.',
  ]);
  await writeOutbox(tx, {
    subject: 'Someone tried to register with your address',
    ...body,
    userId: to.userId,
    address: to.address,
    kind: 'account_notice',
    projectId: null,
    unsubscribe: '',
  });
}

/** To the address of a registration whose username is taken: register again with another one. */
export async function queueUsernameTakenMail(
  tx: Tx,
  config: Config,
  to: { address: string; username: string },
) {
  const base = publicBase(config);
  const body = paragraphs([
    `Someone (hopefully you) tried to register the Docket account ${to.username} with this e-mail address, but that username is taken. No account was made.`,
    `Register again with another username at ${base}/register.`,
    'If it was not you, ignore this message.',
  ]);
  await writeOutbox(tx, {
    subject: 'Your Docket registration: choose another username',
    ...body,
    userId: null,
    address: to.address,
    kind: 'account_notice',
    projectId: null,
    unsubscribe: '',
  });
}
