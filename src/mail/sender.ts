import nodemailer from 'nodemailer';
import type { Db } from '../db/connect.js';
import { processAccountRequests } from '../domain/account-request-worker.js';
import type { Services } from '../domain/context.js';
import { composeDueDigests } from '../domain/notifications/index.js';
import { backoffMs as backoff, claimNext, PollingLoop, settle, workerName } from '../domain/outbox.js';

/**
 * The outbox sender (docs/notifications.md, docs/decisions/037-notifications.md). Every instance
 * may run one; they share the outbox table:
 *
 * - A message is claimed with a lease (DOCKET_MAIL_LEASE_SECONDS) by the claim of every outbox
 *   (src/domain/outbox.ts): two instances never claim the same row, and a claim whose lease ran out
 *   (its instance died) can be claimed again.
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

export const backoffMs = (attempts: number) => backoff(attempts, BACKOFF_BASE_MS, BACKOFF_MAX_MS);

/** The domain of the From address, for Message-IDs. */
function mailDomain(from: string): string {
  return /@([A-Za-z0-9.-]+)/.exec(from)?.[1] ?? 'docket.invalid';
}

export class MailSender {
  readonly name = workerName();
  private readonly loop: PollingLoop;
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
    this.loop = new PollingLoop('mail sender', POLL_MS, () => this.tick(), s.log);
  }

  start(): void {
    this.loop.start();
  }

  /** Stops after the message in flight (if any) is sent and marked. */
  async stop(): Promise<void> {
    await this.loop.stop();
    this.transport.close();
  }

  private lastPrune = 0;

  /**
   * Acts on queued account requests (forgotten passwords, registrations to confirm) and composes due
   * digests, then sends every due message, one at a time; hourly, forgets old sent ones.
   */
  async tick(): Promise<number> {
    await processAccountRequests(
      this.s,
      this.name,
      this.s.config.mailLeaseSeconds,
      () => this.loop.isStopped,
    );
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
    while (!this.loop.isStopped) {
      const row = await this.claim();
      if (!row) break;
      if (await this.deliver(row)) sent++;
    }
    return sent;
  }

  private claim() {
    return claimNext(this.s.db, 'mail_outbox', this.name, this.s.config.mailLeaseSeconds);
  }

  private async deliver(row: NonNullable<Awaited<ReturnType<MailSender['claim']>>>): Promise<boolean> {
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
      await settle(
        this.s.db,
        'mail_outbox',
        row.id,
        {
          status: failed ? 'failed' : 'pending',
          next_attempt_at: new Date(Date.now() + backoffMs(attempts)).toISOString(),
          claimed_by: null,
          claimed_until: null,
          last_error: message,
        },
        this.name,
      );
      this.s.log.warn(
        { outboxId: row.id, attempts, permanent: failed, err: message },
        'sending e-mail failed',
      );
      return false;
    }
    await settle(this.s.db, 'mail_outbox', row.id, {
      status: 'sent',
      sent_at: new Date().toISOString(),
      // claimed_by stays: the instance that sent it.
      claimed_until: null,
      last_error: null,
    });
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
