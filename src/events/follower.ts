import pg from 'pg';
import type { Db } from '../db/connect.js';
import type { Logger } from '../domain/context.js';
import { PG_CHANNEL_SQL } from '../domain/event-log.js';
import { headEventId, readEventsAfter } from './log.js';
import type { StoredEvent } from './types.js';

const PAGE = 1000;

export interface FollowerOptions {
  db: Db;
  log: Logger;
  /** Receives every committed event once, in id order. */
  deliver(events: StoredEvent[]): Promise<void> | void;
  /** Poll interval while nothing else wakes the follower: SQLite (other processes on the file). */
  sqlitePollMs?: number;
  /** Poll interval on PostgreSQL while LISTEN is connected (a safety net) and while it is not. */
  pgPollMs?: number;
  pgDisconnectedPollMs?: number;
}

/**
 * Follows the event log by id. It is woken after a local commit, by a PostgreSQL NOTIFY from
 * another instance, and by a timer; each wake reads the rows with an id above the last one seen.
 * Because ids commit in order (see appendEvents), reading by id neither skips nor reorders events,
 * whichever instance wrote them; a rolled-back event was never committed and is never read.
 */
export class LogFollower {
  private lastId = 0;
  private reading = false;
  private again = false;
  private stopped = true;
  private timer: NodeJS.Timeout | null = null;
  private listener: PgListener | null = null;
  private idle: Promise<void> = Promise.resolve();
  private resolveIdle: (() => void) | null = null;

  /** Captured once: the follower works in the background and must not pick up a swapped instance. */
  private readonly kysely: FollowerOptions['db']['kysely'];

  constructor(private readonly opts: FollowerOptions) {
    this.kysely = opts.db.kysely;
  }

  /** The highest id read so far. */
  get position(): number {
    return this.lastId;
  }

  async start(): Promise<void> {
    this.lastId = await headEventId(this.kysely);
    this.stopped = false;
    if (this.opts.db.dialect === 'postgres' && this.opts.db.pg) {
      this.listener = new PgListener(
        this.opts.db.pg,
        this.opts.log,
        () => this.wake(),
        () => this.schedule(),
      );
      await this.listener.start();
    }
    this.schedule();
  }

  private pollMs(): number {
    if (this.opts.db.dialect === 'sqlite') return this.opts.sqlitePollMs ?? 1000;
    return this.listener?.connected
      ? (this.opts.pgPollMs ?? 30_000)
      : (this.opts.pgDisconnectedPollMs ?? 1000);
  }

  private schedule(): void {
    if (this.timer) clearTimeout(this.timer);
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.wake();
      this.schedule();
    }, this.pollMs());
    this.timer.unref();
  }

  /** Reads the log now (coalesced: one read at a time, and one more if woken meanwhile). */
  wake(): void {
    if (this.stopped) return;
    if (this.reading) {
      this.again = true;
      return;
    }
    this.reading = true;
    this.idle = new Promise((r) => {
      this.resolveIdle = r;
    });
    void this.loop();
  }

  private async loop(): Promise<void> {
    try {
      do {
        this.again = false;
        await this.readAll();
      } while (this.again && !this.stopped);
    } catch (err) {
      if (!this.stopped) this.opts.log.warn({ err }, 'reading the event log failed; retrying');
      // The timer retries.
    } finally {
      this.reading = false;
      this.resolveIdle?.();
    }
  }

  private async readAll(): Promise<void> {
    for (;;) {
      if (this.stopped) return;
      const events = await readEventsAfter(this.kysely, this.lastId, PAGE);
      if (events.length === 0) return;
      this.lastId = events[events.length - 1].id;
      await this.opts.deliver(events);
      if (events.length < PAGE) return;
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.listener?.stop();
    await this.idle;
  }
}

/**
 * A dedicated PostgreSQL connection that LISTENs on the schema's channel and reconnects with
 * back-off when the connection drops; on every (re)connect it wakes the follower, which catches up.
 */
class PgListener {
  private client: pg.Client | null = null;
  private stopped = false;
  private retry: NodeJS.Timeout | null = null;
  private backoff = 250;
  connected = false;

  constructor(
    private readonly settings: { connectionString: string; schema?: string },
    private readonly log: Logger,
    private readonly onNotify: () => void,
    private readonly onState: () => void,
  ) {}

  async start(): Promise<void> {
    try {
      await this.connect();
    } catch (err) {
      this.log.warn({ err }, 'event LISTEN connection failed; polling until it is back');
      this.reconnectLater();
    }
  }

  private async connect(): Promise<void> {
    const client = new pg.Client({
      connectionString: this.settings.connectionString,
      keepAlive: true,
      application_name: 'docket-events',
      ...(this.settings.schema ? { options: `-c search_path="${this.settings.schema}"` } : {}),
    });
    this.client = client;
    const lost = (err?: unknown) => {
      if (this.client !== client) return;
      this.client = null;
      this.connected = false;
      client.removeAllListeners('notification');
      client.end().catch(() => {});
      if (this.stopped) return;
      this.log.warn({ err }, 'event LISTEN connection lost; reconnecting');
      this.onState();
      this.reconnectLater();
    };
    client.on('error', lost);
    client.on('end', () => lost());
    client.on('notification', () => this.onNotify());
    await client.connect();
    const { rows } = await client.query<{ channel: string }>(`select ${PG_CHANNEL_SQL} as channel`);
    await client.query(`listen "${rows[0].channel.replaceAll('"', '""')}"`);
    if (this.stopped) {
      await client.end().catch(() => {});
      return;
    }
    this.connected = true;
    this.backoff = 250;
    this.onState();
    this.onNotify(); // catch up on anything committed while not listening
  }

  private reconnectLater(): void {
    if (this.stopped || this.retry) return;
    const delay = this.backoff;
    this.backoff = Math.min(this.backoff * 2, 5000);
    this.retry = setTimeout(() => {
      this.retry = null;
      this.connect().catch((err) => {
        if (this.client) {
          this.client.removeAllListeners();
          this.client.end().catch(() => {});
          this.client = null;
        }
        this.connected = false;
        if (!this.stopped) {
          this.log.warn({ err }, 'event LISTEN reconnect failed');
          this.reconnectLater();
        }
      });
    }, delay);
    this.retry.unref();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.retry) clearTimeout(this.retry);
    const c = this.client;
    this.client = null;
    this.connected = false;
    if (c) {
      c.removeAllListeners('notification');
      await c.end().catch(() => {});
    }
  }
}
