import type { Kysely } from 'kysely';
import type { Config } from '../config.js';
import type { Db } from '../db/connect.js';
import type { Database } from '../db/types.js';
import type { EventSink, NewEvent, StoredEvent } from '../events/types.js';
import type { FileStore } from '../files/storage.js';
import { contractBreach } from '../shared/contracts.js';
import { EVENT_PAYLOADS } from '../shared/events.js';
import { unauthorized } from './errors.js';
import { appendEvents } from './event-log.js';
import { hooksFor, queueWebhookDeliveries } from './webhooks/queue.js';

export interface Actor {
  userId: string;
  isSystemAdmin: boolean;
  via: 'session' | 'apiKey';
  sessionId: string | null;
  /** The user must change their password first: the API refuses everything else (403). */
  mustChangePassword?: boolean;
  /** Two-factor sign-in is required of everyone and this user has not turned it on. */
  twoFactorSetupRequired?: boolean;
  /** For an API key: what it may do (a read key may not write). */
  keyScope?: 'read' | 'write';
}

/**
 * The actor of an API key or an OAuth access token: its user with the key's scope, never with
 * system-administrator powers over projects (administration refuses keys).
 */
export function keyActor(
  user: {
    id: string;
    must_change_password: number;
    two_factor_enabled: number;
    require_two_factor: number | null;
  },
  scope: string,
): Actor {
  return {
    userId: user.id,
    isSystemAdmin: false,
    via: 'apiKey',
    sessionId: null,
    mustChangePassword: user.must_change_password === 1,
    twoFactorSetupRequired: user.require_two_factor === 1 && user.two_factor_enabled !== 1,
    keyScope: scope === 'read' ? 'read' : 'write',
  };
}

export interface Logger {
  info(obj: object | string, msg?: string): void;
  warn(obj: object | string, msg?: string): void;
  error(obj: object | string, msg?: string): void;
}

/** What the use cases need from the outside world, built once per app. */
export interface Services {
  db: Db;
  config: Config;
  events: EventSink;
  files: FileStore;
  log: Logger;
}

/** One request's context: the services, who acts, and the tab that caused it. */
export interface Ctx extends Services {
  actor: Actor | null;
  tabId: string | null;
  /** The client's address (behind the configured proxies) and browser, for limits and sessions. */
  address: string | null;
  userAgent: string | null;
  /** The request's view for the read cache (src/domain/read-cache.ts); absent outside requests. */
  readView?: { refreshed?: boolean };
}

/**
 * A request's context. The fields are listed, not spread: on this V8 a spread followed by more
 * properties leaves the fast object-cloning path, and cost 3 µs on every request.
 */
export function requestCtx(
  services: Services,
  tabId: string | null,
  address: string | null = null,
  userAgent: string | null = null,
): Ctx {
  const { db, config, events, files, log } = services;
  return { db, config, events, files, log, actor: null, tabId, address, userAgent, readView: {} };
}

export type Tx = Kysely<Database>;
export type Emit = (event: NewEvent) => void;

/**
 * Runs `fn` in one transaction. Events emitted inside are written to the log (and to the webhook
 * outbox, src/domain/webhooks/queue.ts) in the same transaction and handed to the event sink only
 * after the commit, so no client or hook sees a change that rolled back, and none misses one that
 * committed.
 */
export async function transact<T>(
  ctx: Services & { tabId?: string | null },
  fn: (tx: Tx, emit: Emit) => Promise<T>,
): Promise<T> {
  let stored: StoredEvent[] = [];
  let appending: Promise<StoredEvent[]> | null = null;
  const result = await ctx.db.kysely.transaction().execute(async (tx) => {
    const pending: NewEvent[] = [];
    const value = await fn(tx, (e) => pending.push(e));
    if (ctx.config.checkContracts) checkEvents(pending);
    // From the event log's ordering lock (PostgreSQL) to the COMMIT every writer of the database
    // waits: the hooks are read before it, and when no hook needs the events' ids before the
    // COMMIT, the events go in the COMMIT's own message (their ids come back with it).
    const hooks = await hooksFor(tx, pending);
    const origin = ctx.events.origin;
    if (hooks.length === 0 && ctx.db.dialect === 'postgres' && pending.length <= 500) {
      appending = appendEvents(tx, ctx.db.dialect, pending, ctx.tabId ?? null, origin, { withCommit: true });
      // Answered with the COMMIT, or refused with it (then the transaction fails anyway).
      appending.catch(() => {});
      return value;
    }
    stored = await appendEvents(tx, ctx.db.dialect, pending, ctx.tabId ?? null, origin);
    await queueWebhookDeliveries(tx, stored, hooks);
    return value;
  });
  if (appending) stored = await appending;
  if (stored.length > 0) ctx.events.published(stored);
  return result;
}

/** Test mode (Config.checkContracts): every emitted payload must keep its type's contract. */
function checkEvents(events: NewEvent[]) {
  for (const e of events) {
    const breach = contractBreach(EVENT_PAYLOADS[e.type], e.data);
    if (breach) {
      const message = `Breaks its contract: event ${e.type}: ${breach}`;
      console.error(message);
      throw new Error(message);
    }
  }
}

/** The acting user, or a 401 when there is none (routes normally guarantee one). */
export function actorOf(ctx: Ctx): Actor {
  if (!ctx.actor) throw unauthorized();
  return ctx.actor;
}
