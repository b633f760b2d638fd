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
  /** This instance's NOTIFY payload: its own commits come through `offer`, not the log. */
  origin?: string | null;
  /** Poll interval while nothing else wakes the follower: SQLite (other processes on the file). */
  sqlitePollMs?: number;
  /** Poll interval on PostgreSQL while LISTEN is connected (a safety net) and while it is not. */
  pgPollMs?: number;
  pgDisconnectedPollMs?: number;
}

/**
 * Follows the event log by id. This instance's own committed events are handed over in memory
 * (`offer`) and delivered without reading them back when they follow the last delivered id. The
 * log is read (rows with an id above the last one delivered) when a PostgreSQL NOTIFY comes from
 * another instance, when a timer fires, and when offered events leave a gap (another instance's
 * or another process's commit, or an id a rolled-back transaction used). Because ids commit in
 * order (see appendEvents), neither path skips or reorders events, and an event is delivered once
 * whichever path brings it first; a rolled-back event was never committed and is never read.
 */
export class LogFollower {
  private lastId = 0;
  /** This instance's committed events not yet delivered, in id order. */
  private pending: StoredEvent[] = [];
  /** Whether the log must be read (NOTIFY, timer, start) rather than only the pending events. */
  private readRequested = false;
  private reading = false;
  private again = false;
  private stopped = true;
  private timer: NodeJS.Timeout | null = null;
  private listener: PgListener | null = null;
  private idle: Promise<void> = Promise.resolve();
  private resolveIdle: (() => void) | null = null;

  /** Captured once: the follower works in the background and must not pick up a swapped instance. */
  private readonly kysely: FollowerOptions['db']['kysely'];
  private readonly changes: FollowerOptions['db']['changes'];

  constructor(private readonly opts: FollowerOptions) {
    this.kysely = opts.db.kysely;
    this.changes = opts.db.changes;
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
        this.opts.origin ?? null,
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

  /** This instance's events, just committed: delivered from memory, in id order, once. */
  offer(events: StoredEvent[]): void {
    if (this.stopped || events.length === 0) return;
    this.pending.push(...events);
    this.run();
  }

  /** Reads the log now (coalesced: one read at a time, and one more if woken meanwhile). */
  wake(): void {
    this.readRequested = true;
    this.run();
  }

  private run(): void {
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
        await this.catchUp();
      } while (this.again && !this.stopped);
    } catch (err) {
      if (!this.stopped) this.opts.log.warn({ err }, 'reading the event log failed; retrying');
      // The timer retries.
    } finally {
      this.reading = false;
      this.resolveIdle?.();
    }
  }

  /** Delivers the pending events that follow the last delivered id; reads the log when asked or when a gap is left. */
  private async catchUp(): Promise<void> {
    await this.deliverPending();
    if (!this.readRequested && this.pending.length === 0) return;
    this.readRequested = false;
    await this.readAll();
    await this.deliverPending();
  }

  private async deliverPending(): Promise<void> {
    this.pending.sort((a, b) => a.id - b.id);
    const ready: StoredEvent[] = [];
    while (this.pending.length > 0 && this.pending[0].id <= this.lastId + 1) {
      const e = this.pending.shift() as StoredEvent;
      if (e.id <= this.lastId) continue; // already read from the log
      ready.push(e);
      this.lastId = e.id;
    }
    if (ready.length > 0) await this.opts.deliver(ready);
  }

  private async readAll(): Promise<void> {
    for (;;) {
      if (this.stopped) return;
      const events = await readEventsAfter(this.kysely, this.lastId, PAGE);
      if (events.length === 0) return;
      this.lastId = events[events.length - 1].id;
      // Read from the log: most likely another process's commits. The read cache learns of them
      // first (a reading that starts now sees their change-log entries, committed with them), so a
      // client that refetches on these events is never answered from before them (decision 053).
      await this.changes?.refresh(true);
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
    /** NOTIFY payload of this instance's own commits, which it delivers from memory. */
    private readonly origin: string | null,
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
    client.on('notification', (msg) => {
      if (this.origin && msg.payload === this.origin) return;
      this.onNotify();
    });
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
