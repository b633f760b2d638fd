import { randomBytes } from 'node:crypto';
import os from 'node:os';
import type { Expression, ExpressionBuilder, Kysely, SqlBool } from 'kysely';
import type { Db } from '../db/connect.js';
import type { Database } from '../db/types.js';
import type { Logger } from './context.js';

/**
 * The claim/lease pattern of Docket's outboxes (the notification e-mail in src/mail, the webhook
 * deliveries in src/webhooks, the account requests of src/domain/account-requests.ts): rows with `status = 'pending'`, `attempts`, `next_attempt_at`,
 * `claimed_by` and `claimed_until`, shared by every instance.
 *
 * - A row is claimed in one statement: `attempts + 1`, the worker's name and a lease. On PostgreSQL
 *   the row is chosen with `for update skip locked`, so two instances never claim the same row;
 *   SQLite has one writer. A claim whose lease ran out (its instance died) can be claimed again.
 * - The worker then settles it: done, or back to pending with a later `next_attempt_at`, or failed,
 *   each only while the row is still pending (settling twice changes nothing).
 *
 * Delivery is therefore at least once; a row leaves `pending` only after the receiver accepted it.
 */
export type OutboxTable = 'mail_outbox' | 'webhook_deliveries' | 'account_requests';

/** A worker's name: host, process and a random part (a restarted process is another worker). */
export const workerName = () => `${os.hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;

/** Exponential back-off with ±20 % jitter: base, 2×base, 4×base, … up to `maxMs`. */
export function backoffMs(attempts: number, baseMs: number, maxMs: number): number {
  const exp = Math.min(maxMs, baseMs * 2 ** Math.max(0, attempts - 1));
  return Math.round(exp * (0.8 + Math.random() * 0.4));
}

type Narrow = (eb: ExpressionBuilder<any, any>) => Expression<SqlBool>;

/**
 * Claims the next due row of `table` for `worker` (oldest due first, then by id), or undefined.
 * `narrow` adds conditions on the candidate row (the table is aliased `o`).
 */
export async function claimNext<T extends OutboxTable>(
  db: Db,
  table: T,
  worker: string,
  leaseSeconds: number,
  narrow?: Narrow,
): Promise<Database[T] | undefined> {
  const k = db.kysely as unknown as Kysely<any>;
  const name: string = table;
  const now = new Date();
  const nowIso = now.toISOString();
  const until = new Date(now.getTime() + leaseSeconds * 1000).toISOString();
  const free = (eb: ExpressionBuilder<any, any>, col: string) =>
    eb.or([eb(col, 'is', null), eb(col, '<', nowIso)]);
  let pick = k
    .selectFrom(`${name} as o`)
    .select('o.id')
    .where('o.status', '=', 'pending')
    .where('o.next_attempt_at', '<=', nowIso)
    .where((eb) => free(eb, 'o.claimed_until'));
  if (narrow) pick = pick.where(narrow);
  pick = pick.orderBy('o.next_attempt_at').orderBy('o.id').limit(1);
  if (db.dialect === 'postgres') pick = pick.forUpdate('o').skipLocked();
  return (await k
    .updateTable(name)
    .set((eb: ExpressionBuilder<any, any>) => ({
      claimed_by: worker,
      claimed_until: until,
      attempts: eb('attempts', '+', 1),
    }))
    .where('id', '=', pick)
    .where('status', '=', 'pending')
    .where((eb) => free(eb, 'claimed_until'))
    .returningAll()
    .executeTakeFirst()) as Database[T] | undefined;
}

/**
 * Whether any row of `table` is due: a read, so that an idle worker's poll neither takes SQLite's
 * write lock nor counts as a write for the read cache (src/domain/read-cache.ts).
 */
export async function anyDue(db: Db, table: OutboxTable): Promise<boolean> {
  const k = db.kysely as unknown as Kysely<any>;
  const name: string = table;
  const row = await k
    .selectFrom(name)
    .select('id')
    .where('status', '=', 'pending')
    .where('next_attempt_at', '<=', new Date().toISOString())
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * Settles a claimed row with `set` (a new status, or pending again with a later next_attempt_at),
 * only while it is still pending, and, when `worker` is given, still claimed by that worker.
 * True when the row changed.
 */
export async function settle<T extends OutboxTable>(
  db: Db,
  table: T,
  id: string,
  set: Partial<Database[T]>,
  worker?: string,
): Promise<boolean> {
  const k = db.kysely as unknown as Kysely<any>;
  const name: string = table;
  let q = k.updateTable(name).set(set).where('id', '=', id).where('status', '=', 'pending');
  if (worker) q = q.where('claimed_by', '=', worker);
  const r = await q.executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}

/**
 * The polling loop of an outbox worker: runs `tick` at once, then `pollMs` after each tick ends,
 * until stopped; `stop` waits for the tick in flight.
 */
export class PollingLoop {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private stopped = false;

  constructor(
    private readonly what: string,
    private readonly pollMs: number,
    private readonly tick: () => Promise<unknown>,
    private readonly log: Logger,
  ) {}

  get isStopped(): boolean {
    return this.stopped;
  }

  start(): void {
    this.timer = setTimeout(this.loop, 0);
  }

  private readonly loop = () => {
    this.timer = null;
    if (this.stopped) return;
    this.running = this.tick()
      .then(() => undefined)
      .catch((err) => this.log.warn({ err }, `${this.what} tick failed`))
      .finally(() => {
        this.running = null;
        if (!this.stopped) this.timer = setTimeout(this.loop, this.pollMs);
      });
  };

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.running;
  }
}
