import { createHmac } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import type { Db } from '../db/connect.js';
import type { WebhookDeliveriesTable, WebhooksTable } from '../db/types.js';
import { requestCtx, type Services, transact } from '../domain/context.js';
import { notifyWebhookDisabled } from '../domain/notifications/index.js';
import { anyDue, backoffMs, claimNext, PollingLoop, settle, workerName } from '../domain/outbox.js';
import { guardedLookup, hostOf, isPublicAddress, RefusedTarget } from '../domain/webhooks/targets.js';

/**
 * The webhook sender (docs/webhooks.md, docs/decisions/040-webhooks.md). Every instance may run
 * one; they share the delivery outbox through the claim/lease of src/domain/outbox.ts, so each
 * delivery is sent by one instance at a time, and a delivery whose instance died is sent again
 * after its lease (at least once; the X-Docket-Delivery id tells a receiver the copy).
 *
 * Order: a delivery is claimed only when no earlier delivery (by event id) of the same hook and
 * record (the ticket) is still pending, so a receiver gets one ticket's changes in order even with
 * retries and several instances. Failures are retried with exponential back-off (from
 * DOCKET_WEBHOOK_BACKOFF_SECONDS, doubling, at most an hour) for DOCKET_WEBHOOK_RETRY_SECONDS (a
 * day); a hook whose deliveries all failed for that long is turned off and its maker notified.
 */
const POLL_MS = 500;
/** Deliveries in flight at once in one instance (each to a different hook or record). */
const CONCURRENCY = 4;
const BACKOFF_MAX_MS = 60 * 60_000;
const PRUNE_EVERY_MS = 60 * 60_000;
/** Finished deliveries are kept this long for the deliveries list. */
const KEEP_FINISHED_MS = 30 * 24 * 60 * 60_000;

export interface PostResult {
  status: number | null;
  error: string | null;
  durationMs: number;
}

export const signatureOf = (secret: string, body: string) =>
  `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;

/**
 * One POST: never follows redirects (a 3xx is a failure), times out after `timeoutMs` (the whole
 * exchange), and, unless private targets are allowed, connects only to public addresses: an
 * address in the URL is checked here, a name by the connection's own lookup (DNS rebinding).
 */
export function postDelivery(
  url: string,
  body: string,
  headers: Record<string, string>,
  timeoutMs: number,
  allowPrivate: boolean,
): Promise<PostResult> {
  const started = performance.now();
  const done = (status: number | null, error: string | null): PostResult => ({
    status,
    error,
    durationMs: Math.round(performance.now() - started),
  });
  return new Promise((resolve) => {
    let u: URL;
    try {
      u = new URL(url);
    } catch {
      return resolve(done(null, 'Invalid URL'));
    }
    const host = hostOf(u);
    if (!allowPrivate && net.isIP(host) && !isPublicAddress(host))
      return resolve(done(null, `Refused: ${host} is not a public address`));
    const signal = AbortSignal.timeout(timeoutMs);
    const req = (u.protocol === 'https:' ? https : http).request(
      u,
      {
        method: 'POST',
        headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
        lookup: allowPrivate ? undefined : guardedLookup,
        agent: false,
        signal,
      },
      (res) => {
        const status = res.statusCode ?? 0;
        res.resume();
        res.on('error', () => resolve(done(status, 'The answer broke off')));
        res.on('end', () => {
          if (status >= 200 && status < 300) resolve(done(status, null));
          else if (status >= 300 && status < 400)
            resolve(done(status, `Redirects are not followed (answered ${status})`));
          else resolve(done(status, `The receiver answered ${status}`));
        });
      },
    );
    req.on('error', (err) => {
      const message =
        err instanceof RefusedTarget || (err as { cause?: unknown }).cause instanceof RefusedTarget
          ? `Refused: ${err.message} is not a public address`
          : signal.aborted
            ? `Timed out after ${timeoutMs} ms`
            : err.message;
      resolve(done(null, message.slice(0, 1000)));
    });
    req.end(body);
  });
}

export class WebhookSender {
  readonly name = workerName();
  private readonly loop: PollingLoop;
  private lastPrune = 0;

  constructor(private readonly s: Services) {
    this.loop = new PollingLoop('webhook sender', POLL_MS, () => this.tick(), s.log);
  }

  start(): void {
    this.loop.start();
  }

  /** Stops after the deliveries in flight are sent and marked. */
  stop(): Promise<void> {
    return this.loop.stop();
  }

  /** Sends every due delivery (several at once); hourly, forgets old finished ones. */
  async tick(): Promise<number> {
    if (Date.now() - this.lastPrune > PRUNE_EVERY_MS) {
      this.lastPrune = Date.now();
      await this.s.db.kysely
        .deleteFrom('webhook_deliveries')
        .where('status', '!=', 'pending')
        .where('finished_at', '<', new Date(Date.now() - KEEP_FINISHED_MS).toISOString())
        .execute();
    }
    if (!(await anyDue(this.s.db, 'webhook_deliveries'))) return 0;
    let sent = 0;
    const worker = async () => {
      while (!this.loop.isStopped) {
        const row = await this.claim();
        if (!row) break;
        if (await this.deliver(row)) sent++;
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    return sent;
  }

  /** The next due delivery of an active hook with no earlier pending delivery about the same record. */
  private claim() {
    return claimNext(this.s.db, 'webhook_deliveries', this.name, this.s.config.webhookLeaseSeconds, (eb) =>
      eb.and([
        eb.exists(
          eb
            .selectFrom('webhooks as h')
            .select('h.id')
            .whereRef('h.id', '=', 'o.hook_id')
            .where('h.active', '=', 1),
        ),
        eb.not(
          eb.exists(
            eb
              .selectFrom('webhook_deliveries as e')
              .select('e.id')
              .whereRef('e.hook_id', '=', 'o.hook_id')
              .whereRef('e.order_key', '=', 'o.order_key')
              .where('e.status', '=', 'pending')
              .whereRef('e.seq', '<', 'o.seq'),
          ),
        ),
      ]),
    );
  }

  private async deliver(row: WebhookDeliveriesTable): Promise<boolean> {
    const { db, config } = this.s;
    const hook = await db.kysely
      .selectFrom('webhooks')
      .selectAll()
      .where('id', '=', row.hook_id)
      .executeTakeFirst();
    if (!hook) return false; // deleted meanwhile (its deliveries go with it)
    const r = await postDelivery(
      hook.url,
      row.body,
      {
        'content-type': 'application/json',
        'user-agent': 'Docket-Webhook/1',
        'x-docket-event': row.event_type,
        'x-docket-delivery': row.id,
        'x-docket-signature': signatureOf(hook.secret, row.body),
      },
      config.webhookTimeoutSeconds * 1000,
      config.webhookAllowPrivate,
    );
    const now = new Date();
    const nowIso = now.toISOString();
    if (r.error === null) {
      await settle(db, 'webhook_deliveries', row.id, {
        status: 'delivered',
        response_status: r.status,
        duration_ms: r.durationMs,
        last_error: null,
        claimed_until: null,
        finished_at: nowIso,
      });
      if (hook.failing_since)
        await db.kysely
          .updateTable('webhooks')
          .set({ failing_since: null })
          .where('id', '=', hook.id)
          .where('failing_since', 'is not', null)
          .execute();
      return true;
    }

    const retryMs = config.webhookRetrySeconds * 1000;
    const failingSince = hook.failing_since ?? nowIso;
    const hookDead = now.getTime() - Date.parse(failingSince) >= retryMs;
    const givenUp = hookDead || now.getTime() - Date.parse(row.created_at) >= retryMs;
    await settle(
      db,
      'webhook_deliveries',
      row.id,
      {
        status: givenUp ? 'failed' : 'pending',
        next_attempt_at: new Date(
          now.getTime() +
            backoffMs(Number(row.attempts), config.webhookBackoffSeconds * 1000, BACKOFF_MAX_MS),
        ).toISOString(),
        claimed_by: givenUp ? this.name : null,
        claimed_until: null,
        response_status: r.status,
        duration_ms: r.durationMs,
        last_error: r.error,
        finished_at: givenUp ? nowIso : null,
      },
      this.name,
    );
    this.s.log.warn(
      { deliveryId: row.id, hookId: hook.id, attempts: row.attempts, givenUp, err: r.error },
      'webhook delivery failed',
    );
    if (!hook.failing_since)
      await db.kysely
        .updateTable('webhooks')
        .set({ failing_since: nowIso })
        .where('id', '=', hook.id)
        .where('failing_since', 'is', null)
        .execute();
    if (hookDead) await this.disable(hook, r.error);
    return false;
  }

  /** Turns a hook off after a day of failures and tells its maker, once (whichever instance wins). */
  private async disable(hook: WebhooksTable, error: string) {
    const hours = Math.round(this.s.config.webhookRetrySeconds / 360) / 10;
    const reason = `Every delivery failed for ${hours} h; the last: ${error}`.slice(0, 1000);
    await transact(this.s, async (tx, emit) => {
      const r = await tx
        .updateTable('webhooks')
        .set({ active: 0, disabled_reason: reason, updated_at: new Date().toISOString() })
        .where('id', '=', hook.id)
        .where('active', '=', 1)
        .executeTakeFirst();
      if (Number(r.numUpdatedRows) === 0) return;
      await notifyWebhookDisabled(
        requestCtx(this.s, null),
        tx,
        emit,
        hook.project_id,
        hook.created_by,
        `${hook.url}: ${reason}`,
      );
    });
  }
}

/** Deliveries waiting to be sent (GET /metrics, `docket_outbox_depth{outbox="webhooks"}`). */
export async function webhookOutboxDepth(db: Db): Promise<number> {
  const row = await db.kysely
    .selectFrom('webhook_deliveries')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('status', '=', 'pending')
    .executeTakeFirstOrThrow();
  return Number(row.n);
}
