import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Config } from '../../config.js';
import type { Db } from '../../db/connect.js';
import type { MailOutboxTable } from '../../db/types.js';
import { notificationHeadline } from '../../shared/mentions.js';
import type { NotificationOut } from '../../shared/notifications.js';
import type { Services, Tx } from '../context.js';
import { newId, nowIso } from '../ids.js';

/**
 * Composing notification e-mail into the outbox (the sender in src/mail delivers it): one message
 * per urgent notification, or a digest. Every message carries a link to the ticket (from
 * DOCKET_PUBLIC_URL), a List-Unsubscribe URL and the same link in its text: a token signed with a
 * key kept in the database (shared by every instance), so unsubscribing needs no sign-in.
 */

/** The web app's address: DOCKET_PUBLIC_URL (with any base path), else the listening address. */
export function publicBase(config: Config): string {
  if (config.publicUrl) return config.publicUrl.replace(/\/+$/, '');
  const host = config.host === '0.0.0.0' || config.host === '::' ? 'localhost' : config.host;
  return `http://${host}:${config.port}${config.basePath}`;
}

const secrets = new WeakMap<Db, string>();

/** The unsubscribe signing key: made once per database, by whichever instance needs it first. */
async function signingSecret(db: Db, tx: Tx): Promise<string> {
  const cached = secrets.get(db);
  if (cached) return cached;
  await tx
    .insertInto('signing_keys')
    .values({ name: 'unsubscribe', secret: randomBytes(32).toString('base64url'), created_at: nowIso() })
    .onConflict((oc) => oc.column('name').doNothing())
    .execute();
  const row = await tx
    .selectFrom('signing_keys')
    .select('secret')
    .where('name', '=', 'unsubscribe')
    .executeTakeFirstOrThrow();
  secrets.set(db, row.secret);
  return row.secret;
}

const sign = (secret: string, userId: string) =>
  createHmac('sha256', secret).update(`unsubscribe:${userId}`).digest('base64url');

export async function unsubscribeToken(db: Db, tx: Tx, userId: string): Promise<string> {
  return `${userId}.${sign(await signingSecret(db, tx), userId)}`;
}

/** The user a token was signed for, or null for a forged or malformed one. */
export async function verifyUnsubscribeToken(db: Db, tx: Tx, token: string): Promise<string | null> {
  const dot = token.lastIndexOf('.');
  if (dot <= 0) return null;
  const userId = token.slice(0, dot);
  const given = Buffer.from(token.slice(dot + 1));
  const expected = Buffer.from(sign(await signingSecret(db, tx), userId));
  return given.length === expected.length && timingSafeEqual(given, expected) ? userId : null;
}

const escapeHtml = (s: string) =>
  s.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c,
  );

export function linkOf(config: Config, n: NotificationOut): string {
  const base = publicBase(config);
  return n.ticket
    ? `${base}/projects/${encodeURIComponent(n.project.key)}/${encodeURIComponent(n.ticket.key)}`
    : `${base}/projects/${encodeURIComponent(n.project.key)}`;
}

export function subjectOf(n: NotificationOut): string {
  const where = n.ticket ? `[${n.ticket.key}] ` : `[${n.project.key}] `;
  const what = n.ticket ? `: ${n.ticket.title}` : n.excerpt ? `: ${n.excerpt}` : '';
  return `${where}${notificationHeadline(n)}${what}`.slice(0, 250);
}

interface Message {
  subject: string;
  text: string;
  html: string;
}

function footer(config: Config, unsubscribe: string): { text: string; html: string } {
  const settings = `${publicBase(config)}/profile`;
  return {
    text: `\n--\nYou receive this because of your Docket notification settings: ${settings}\nUnsubscribe from all Docket e-mail: ${unsubscribe}\n`,
    html: `<hr><p style="color:#666;font-size:12px">You receive this because of your <a href="${escapeHtml(settings)}">Docket notification settings</a>. <a href="${escapeHtml(unsubscribe)}">Unsubscribe from all Docket e-mail</a>.</p>`,
  };
}

function single(config: Config, n: NotificationOut, unsubscribe: string): Message {
  const link = linkOf(config, n);
  const f = footer(config, unsubscribe);
  const title = n.ticket ? `${n.ticket.key} ${n.ticket.title}` : n.project.key;
  return {
    subject: subjectOf(n),
    text: `${notificationHeadline(n)}: ${title}\n\n${n.excerpt}\n\nOpen: ${link}\n${f.text}`,
    html:
      `<p><strong>${escapeHtml(notificationHeadline(n))}</strong>: ${escapeHtml(title)}</p>` +
      `<blockquote>${escapeHtml(n.excerpt)}</blockquote>` +
      `<p><a href="${escapeHtml(link)}">Open in Docket</a></p>${f.html}`,
  };
}

function digest(config: Config, items: NotificationOut[], unsubscribe: string): Message {
  const f = footer(config, unsubscribe);
  const lines = items.map((n) => {
    const title = n.ticket ? `${n.ticket.key} ${n.ticket.title}` : n.project.key;
    return {
      text: `- ${notificationHeadline(n)}: ${title}\n  ${n.excerpt}\n  ${linkOf(config, n)}`,
      n,
      title,
    };
  });
  return {
    subject: `Docket: ${items.length} notification${items.length === 1 ? '' : 's'}`,
    text: `Since your last digest:\n\n${lines.map((l) => l.text).join('\n\n')}\n\nInbox: ${publicBase(config)}/inbox\n${f.text}`,
    html: `<p>Since your last digest:</p><ul>${lines
      .map(
        (l) =>
          `<li><a href="${escapeHtml(linkOf(config, l.n))}">${escapeHtml(notificationHeadline(l.n))}: ${escapeHtml(l.title)}</a><br>${escapeHtml(l.n.excerpt)}</li>`,
      )
      .join(
        '',
      )}</ul><p><a href="${escapeHtml(`${publicBase(config)}/inbox`)}">Open the inbox</a></p>${f.html}`,
  };
}

/** Writes one message to the outbox, in the caller's transaction; the sender delivers it. */
async function writeOutbox(
  tx: Tx,
  m: Message & {
    userId: string;
    address: string;
    kind: MailOutboxTable['kind'];
    projectId: string | null;
    /** Empty for account mail (no List-Unsubscribe header). */
    unsubscribe: string;
  },
) {
  const now = nowIso();
  await tx
    .insertInto('mail_outbox')
    .values({
      id: newId(),
      user_id: m.userId,
      project_id: m.projectId,
      kind: m.kind,
      to_address: m.address,
      subject: m.subject,
      text_body: m.text,
      html_body: m.html,
      unsubscribe_url: m.unsubscribe,
      status: 'pending',
      attempts: 0,
      next_attempt_at: now,
      claimed_by: null,
      claimed_until: null,
      last_error: null,
      created_at: now,
      sent_at: null,
    })
    .execute();
}

async function insertOutbox(
  s: Services,
  tx: Tx,
  to: { userId: string; address: string },
  kind: 'instant' | 'digest',
  projectId: string | null,
  build: (unsubscribe: string) => Message,
) {
  const token = await unsubscribeToken(s.db, tx, to.userId);
  const unsubscribe = `${publicBase(s.config)}/api/notifications/unsubscribe?token=${encodeURIComponent(token)}`;
  await writeOutbox(tx, { ...build(unsubscribe), ...to, kind, projectId, unsubscribe });
}

/**
 * A forgotten-password link (src/domain/password-reset.ts): sent whatever the user's notification
 * settings say, since they asked for it, and without an unsubscribe link.
 */
export async function queuePasswordResetMail(
  tx: Tx,
  to: { userId: string; address: string; username: string },
  link: string,
  validMinutes: number,
) {
  const text =
    `Someone (hopefully you) asked to reset the Docket password of ${to.username}.\n\n` +
    `Choose a new password here, within ${validMinutes} minutes (the link works once):\n${link}\n\n` +
    `If you did not ask, ignore this message: your password stays as it is.\n`;
  const html =
    `<p>Someone (hopefully you) asked to reset the Docket password of <strong>${escapeHtml(to.username)}</strong>.</p>` +
    `<p><a href="${escapeHtml(link)}">Choose a new password</a> within ${validMinutes} minutes (the link works once).</p>` +
    `<p style="color:#666">If you did not ask, ignore this message: your password stays as it is.</p>`;
  await writeOutbox(tx, {
    subject: 'Reset your Docket password',
    text,
    html,
    userId: to.userId,
    address: to.address,
    kind: 'password_reset',
    projectId: null,
    unsubscribe: '',
  });
}

/** One e-mail about one notification, written to the outbox in the change's transaction. */
export async function queueNotificationMail(
  s: Services,
  tx: Tx,
  n: NotificationOut,
  to: { userId: string; address: string },
) {
  await insertOutbox(s, tx, to, 'instant', n.project.id, (u) => single(s.config, n, u));
}

/** A digest of several notifications (src/domain/notifications/digest.ts decides when). */
export async function queueDigestMail(
  s: Services,
  tx: Tx,
  items: NotificationOut[],
  to: { userId: string; address: string },
) {
  await insertOutbox(s, tx, to, 'digest', null, (u) => digest(s.config, items, u));
}
