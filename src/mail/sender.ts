import { randomBytes } from 'node:crypto';
import os from 'node:os';
import nodemailer from 'nodemailer';
import type { Db } from '../db/connect.js';
import type { Services } from '../domain/context.js';
import { composeDueDigests } from '../domain/notifications/index.js';

/**
 * The outbox sender (docs/notifications.md, docs/decisions/037-notifications.md). Every instance
 * may run one; they share the outbox table:
 *
 * - A message is claimed in one statement: `attempts + 1`, this instance's name and a lease
 *   (DOCKET_MAIL_LEASE_SECONDS). On PostgreSQL the row is chosen with `for update skip locked`, so
 *   two instances never claim the same row; SQLite has one writer. A claim whose lease ran out (its
 *   instance died) can be claimed again.
 * - One message at a time is in flight, sent with the outbox id as its Message-ID, then marked sent
 *   (`status = 'sent'` only where still pending: marking twice changes nothing).
 * - A temporary failure (connection, 4xx) is retried with exponential back-off and jitter; a
 *   permanent one (5xx) or the last attempt marks it failed.
 *
 * Delivery is at least once: a crash between the SMTP server's acceptance and the mark sends that
 * one message again after the lease, with the same Message-ID (receivers and tests can tell the
 * copy). Nothing is lost: a row leaves `pending` only after the server accepted it.
 */
export const MAX_ATTEMPTS = 8;
const POLL_MS = 1000;
const PRUNE_EVERY_MS = 60 * 60_000;
/** Sent messages are kept this long as a record, then deleted; failed ones stay for the operator. */
const KEEP_SENT_MS = 30 * 24 * 60 * 60_000;
const BACKOFF_BASE_MS = 2000;
const BACKOFF_MAX_MS = 60 * 60_000;

export function backoffMs(attempts: number): number {
  const exp = Math.min(BACKOFF_MAX_MS, BACKOFF_BASE_MS * 2 ** Math.max(0, attempts - 1));
  return Math.round(exp * (0.8 + Math.random() * 0.4));
}

/** The domain of the From address, for Message-IDs. */
function mailDomain(from: string): string {
  return /@([A-Za-z0-9.-]+)/.exec(from)?.[1] ?? 'docket.invalid';
}

export class MailSender {
  readonly name = `${os.hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private stopped = false;
  private readonly transport;
  private readonly from: string;

  constructor(private readonly s: Services) {
    const { smtpUrl, mailFrom, mailLeaseSeconds } = s.config;
    if (!smtpUrl || !mailFrom) throw new Error('MailSender needs DOCKET_SMTP_URL and DOCKET_MAIL_FROM');
    const timeout = Math.max(1000, Math.min(30_000, (mailLeaseSeconds * 1000) / 3));
    this.transport = nodemailer.createTransport(smtpUrl, {
      connectionTimeout: timeout,
      greetingTimeout: timeout,
      socketTimeout: timeout,
    } as never);
    this.from = mailFrom;
  }

  start(): void {
    const loop = () => {
      if (this.stopped) return;
      this.running = this.tick()
        .then(() => undefined)
        .catch((err) => this.s.log.warn({ err }, 'mail sender tick failed'))
        .finally(() => {
          this.running = null;
          if (!this.stopped) this.timer = setTimeout(loop, POLL_MS);
        });
    };
    this.timer = setTimeout(loop, 0);
  }

  /** Stops after the message in flight (if any) is sent and marked. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.running;
    this.transport.close();
  }

  private lastPrune = 0;

  /** Composes due digests, then sends every due message, one at a time; hourly, forgets old sent ones. */
  async tick(): Promise<number> {
    await composeDueDigests(this.s);
    if (Date.now() - this.lastPrune > PRUNE_EVERY_MS) {
      this.lastPrune = Date.now();
      await this.s.db.kysely
        .deleteFrom('mail_outbox')
        .where('status', '=', 'sent')
        .where('sent_at', '<', new Date(Date.now() - KEEP_SENT_MS).toISOString())
        .execute();
    }
    let sent = 0;
    while (!this.stopped) {
      const row = await this.claim();
      if (!row) break;
      if (await this.deliver(row)) sent++;
    }
    return sent;
  }

  private async claim() {
    const db = this.s.db.kysely;
    const now = new Date();
    const nowIso = now.toISOString();
    const until = new Date(now.getTime() + this.s.config.mailLeaseSeconds * 1000).toISOString();
    let pick = db
      .selectFrom('mail_outbox')
      .select('id')
      .where('status', '=', 'pending')
      .where('next_attempt_at', '<=', nowIso)
      .where((eb) => eb.or([eb('claimed_until', 'is', null), eb('claimed_until', '<', nowIso)]))
      .orderBy('next_attempt_at')
      .orderBy('id')
      .limit(1);
    if (this.s.db.dialect === 'postgres') pick = pick.forUpdate().skipLocked();
    return db
      .updateTable('mail_outbox')
      .set((eb) => ({ claimed_by: this.name, claimed_until: until, attempts: eb('attempts', '+', 1) }))
      .where('id', '=', pick)
      .where('status', '=', 'pending')
      .where((eb) => eb.or([eb('claimed_until', 'is', null), eb('claimed_until', '<', nowIso)]))
      .returningAll()
      .executeTakeFirst();
  }

  private async deliver(row: NonNullable<Awaited<ReturnType<MailSender['claim']>>>): Promise<boolean> {
    const db = this.s.db.kysely;
    try {
      await this.transport.sendMail({
        from: this.from,
        to: row.to_address,
        subject: row.subject,
        text: row.text_body,
        html: row.html_body,
        messageId: `<${row.id}@${mailDomain(this.from)}>`,
        headers: {
          // Account mail (a password reset) has no unsubscribe link.
          ...(row.unsubscribe_url
            ? {
                'List-Unsubscribe': `<${row.unsubscribe_url}>`,
                'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
              }
            : {}),
          'Auto-Submitted': 'auto-generated',
          'X-Docket-Outbox-Id': row.id,
        },
      });
    } catch (err) {
      const code = Number((err as { responseCode?: number }).responseCode ?? 0);
      const permanent = code >= 500 && code < 600;
      const attempts = Number(row.attempts);
      const failed = permanent || attempts >= MAX_ATTEMPTS;
      const message = (err instanceof Error ? err.message : String(err)).slice(0, 1000);
      await db
        .updateTable('mail_outbox')
        .set({
          status: failed ? 'failed' : 'pending',
          next_attempt_at: new Date(Date.now() + backoffMs(attempts)).toISOString(),
          claimed_by: null,
          claimed_until: null,
          last_error: message,
        })
        .where('id', '=', row.id)
        .where('claimed_by', '=', this.name)
        .where('status', '=', 'pending')
        .execute();
      this.s.log.warn(
        { outboxId: row.id, attempts, permanent: failed, err: message },
        'sending e-mail failed',
      );
      return false;
    }
    await db
      .updateTable('mail_outbox')
      .set({
        status: 'sent',
        sent_at: new Date().toISOString(),
        // claimed_by stays: the instance that sent it.
        claimed_until: null,
        last_error: null,
      })
      .where('id', '=', row.id)
      .where('status', '=', 'pending')
      .execute();
    return true;
  }
}

/** Messages waiting to be sent (GET /metrics, `docket_outbox_depth{outbox="mail"}`). */
export async function mailOutboxDepth(db: Db): Promise<number> {
  const row = await db.kysely
    .selectFrom('mail_outbox')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('status', '=', 'pending')
    .executeTakeFirstOrThrow();
  return Number(row.n);
}
