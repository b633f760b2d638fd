import type { ServerResponse } from 'node:http';
import type { Kysely } from 'kysely';
import type { Database } from '../db/types.js';
import type { Services } from '../domain/context.js';
import { nowIso } from '../domain/ids.js';
import { hashToken } from '../domain/tokens.js';
import type { EventEnvelope } from '../shared/events.js';
import { LIMITS } from '../shared/limits.js';
import type { EventHub, SessionEnd } from './hub.js';
import { headEventId, replayBoundary, rowToEvent } from './log.js';
import type { StoredEvent } from './types.js';

/** Which stream: one project's, the project list's, or the users'. */
export type StreamKind = { kind: 'project'; projectId: string } | { kind: 'projects' } | { kind: 'user' };

/** Who holds the stream, and with which credential (so it ends when the credential does). */
export interface StreamHolder {
  userId: string;
  isSystemAdmin: boolean;
  via: 'session' | 'apiKey';
  /** SHA-256 of the session token or API key. */
  credentialHash: string;
  /** When the session, key or access token expires (ISO), once known; null for none. */
  expiresAt: string | null;
}

/** Replaying more than this many log rows sends `resync` instead (the client refetches). */
export const REPLAY_MAX_EVENTS = 10_000;
/** A client that does not read and lets this much pile up is disconnected (it resumes with Last-Event-ID). */
const MAX_BUFFERED_BYTES = 1 << 20;
const REPLAY_PAGE = 500;
/**
 * Open streams per session or API key on one instance: enough for a dozen browser tabs (each holds
 * up to three), and a bound on what one credential can hold open (issue 19, finding 5).
 */
export const MAX_STREAMS_PER_CREDENTIAL = 32;

export const SSE_HEADERS = {
  'Content-Type': 'text/event-stream',
  'Cache-Control': 'no-cache',
  'X-Accel-Buffering': 'no',
  Connection: 'keep-alive',
  'X-Content-Type-Options': 'nosniff',
} as const;

type Members = Map<string, Set<string>>;
const NO_MEMBERS: Members = new Map();

const frames = new WeakMap<StoredEvent, Buffer>();

/**
 * The SSE message of an event: its log id and the envelope `{type, data, tabId, timestamp}`.
 * Encoded once per event and shared by every stream that sends it.
 */
export function frameOf(e: StoredEvent): Buffer {
  let f = frames.get(e);
  if (f === undefined) {
    const envelope: EventEnvelope = { type: e.type, data: e.data, tabId: e.tabId, timestamp: e.timestamp };
    f = Buffer.from(`id: ${e.id}\ndata: ${JSON.stringify(envelope)}\n\n`);
    frames.set(e, f);
  }
  return f;
}

const KEEPALIVE = Buffer.from(': keepalive\n\n');

/** Adds `by` to a counter of open streams, dropping it at zero. */
function count(map: Map<string, number>, key: string, by: 1 | -1): void {
  const n = (map.get(key) ?? 0) + by;
  if (n <= 0) map.delete(key);
  else map.set(key, n);
}

function aboutUser(e: StoredEvent, userId: string): boolean {
  if (!e.type.startsWith('member.')) return false;
  const d = e.data as { userId?: unknown } | null;
  return d?.userId === userId;
}

/** One open event stream. */
class Stream {
  /** Highest event id already handled (sent or skipped); later events must be above it. */
  cursor = 0;
  live = false;
  closed = false;
  private buffer: StoredEvent[] = [];

  constructor(
    readonly holder: StreamHolder,
    readonly kind: StreamKind,
    private readonly res: ServerResponse,
    private readonly onClosed: (s: Stream) => void,
  ) {}

  /**
   * Whether the holder may see the event now (visibility at delivery, DECISIONS section 6):
   * `all` events go everywhere; project events to current members of that project (system
   * administrators see every project), plus member events about the holder; project-list events to
   * the project's members or, for a deleted project, its recorded audience; user events to everyone, or to their audience (notifications).
   */
  visible(e: StoredEvent, members: Members): boolean {
    if (e.scope === 'all') return true;
    const { userId, isSystemAdmin } = this.holder;
    switch (this.kind.kind) {
      case 'user':
        // A user event with an audience (a notification) goes to those users only.
        return e.scope === 'user' && (!e.audience || e.audience.includes(userId));
      case 'project':
        if (e.scope !== 'project' || e.projectId !== this.kind.projectId) return false;
        return isSystemAdmin || !!members.get(e.projectId)?.has(userId) || aboutUser(e, userId);
      case 'projects':
        if (e.scope === 'projects') {
          if (isSystemAdmin) return true;
          if (e.audience) return e.audience.includes(userId);
          return !!e.projectId && !!members.get(e.projectId)?.has(userId);
        }
        return e.scope === 'project' && aboutUser(e, userId);
    }
  }

  /** A live event from the hub: sent now, or kept until the replay is done. */
  offer(e: StoredEvent, members: Members): void {
    if (this.closed || !this.visible(e, members)) return;
    if (this.live) this.send(e);
    else this.buffer.push(e);
  }

  send(e: StoredEvent): void {
    if (e.id <= this.cursor) return;
    this.cursor = e.id;
    this.write(frameOf(e));
  }

  /** Ends the replay: sends what arrived meanwhile (above the cursor, so nothing twice) and goes live. */
  goLive(): void {
    const pending = this.buffer;
    this.buffer = [];
    for (const e of pending) this.send(e);
    this.live = true;
  }

  write(chunk: string | Buffer): void {
    if (this.closed) return;
    try {
      this.res.write(chunk);
    } catch {
      this.close();
      return;
    }
    if (this.res.writableLength > MAX_BUFFERED_BYTES) this.close();
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.buffer = [];
    try {
      if (!this.res.writableEnded) this.res.end();
    } catch {
      // The connection is already gone.
    }
    this.onClosed(this);
  }
}

export interface OpenOptions {
  /** Last-Event-ID header or lastEventId query parameter, as sent. */
  lastEventId?: string;
}

/**
 * The event streams of one instance. Committed events come from the hub in id order (the log
 * follower); each batch is fanned out to every stream that may see it. A new stream subscribes
 * first, then replays from the log, then drains what arrived meanwhile, so the boundary between
 * replay and live neither loses nor repeats an event.
 */
export class StreamManager {
  private readonly streams = new Set<Stream>();
  /** Open streams per credential hash. */
  private readonly perCredential = new Map<string, number>();
  /** Open streams per user, over all their sessions, keys and tokens (DOCKET_STREAMS_PER_USER). */
  private readonly perUser = new Map<string, number>();
  /** Highest id fanned out so far: a stream registered now receives every event above it. */
  private dispatched = 0;
  private chain: Promise<void> = Promise.resolve();
  private closing = false;
  private tickTimer: NodeJS.Timeout | null = null;
  private revalidating = false;
  private readonly unsubscribe: (() => void)[] = [];
  /** Told, for each event fanned out, the seconds since it was written (src/server/metrics.ts). */
  fanoutLag: ((seconds: number) => void) | null = null;

  constructor(
    private readonly services: Services,
    hub: EventHub,
  ) {
    this.db = services.db.kysely;
    this.unsubscribe.push(
      hub.subscribe((events) => {
        this.chain = this.chain.then(() => this.dispatch(events));
      }),
      hub.onSessionEnded((e) => this.sessionEnded(e)),
    );
  }

  /** Captured once: streams work in the background and must not pick up a swapped instance. */
  private readonly db: Kysely<Database>;

  get size(): number {
    return this.streams.size;
  }

  get isClosing(): boolean {
    return this.closing;
  }

  /**
   * Whether this holder may open one more stream: under the cap of its credential and under its
   * user's (`DOCKET_STREAMS_PER_USER`), both on this instance. The caller opens it without
   * awaiting in between, so streams asked for together cannot pass a cap between them.
   */
  mayOpen(holder: Pick<StreamHolder, 'credentialHash' | 'userId'>): boolean {
    return (
      (this.perCredential.get(holder.credentialHash) ?? 0) < MAX_STREAMS_PER_CREDENTIAL &&
      (this.perUser.get(holder.userId) ?? 0) < this.services.config.streamsPerUser
    );
  }

  /** Starts the keepalive / re-validation tick; `position` is the log id the follower starts after. */
  start(position: number): void {
    this.dispatched = Math.max(this.dispatched, position);
    const ms = Math.max(50, this.services.config.sseKeepaliveSeconds * 1000);
    this.tickTimer = setInterval(() => this.tick(), ms);
    this.tickTimer.unref();
  }

  /**
   * Ends every stream and refuses new ones (the server is closing). With `retryMs` (a drain), each
   * stream is first told to reconnect after that long plus up to as much again at random (SSE
   * `retry:`), so the clients come back through the balancer spread out, to another instance.
   */
  closeAll(retryMs?: number): void {
    this.closing = true;
    if (this.tickTimer) clearInterval(this.tickTimer);
    this.tickTimer = null;
    for (const s of [...this.streams]) {
      if (retryMs !== undefined) s.write(`retry: ${retryMs + Math.floor(Math.random() * retryMs)}\n\n`);
      s.close();
    }
    for (const u of this.unsubscribe) u();
  }

  /** Takes over the response and serves the stream until the client leaves or the session ends. */
  async open(res: ServerResponse, holder: StreamHolder, kind: StreamKind, opts: OpenOptions): Promise<void> {
    res.writeHead(200, SSE_HEADERS);
    res.flushHeaders();
    res.socket?.setNoDelay(true);
    res.socket?.setTimeout(0);

    const stream = new Stream(holder, kind, res, (s) => this.remove(s));
    res.on('close', () => stream.close());
    res.on('error', () => stream.close());
    if (res.destroyed) return;

    // Subscribe first: every event above `head` reaches this stream through offer().
    const head = this.dispatched;
    this.add(stream);

    try {
      if (opts.lastEventId === undefined) {
        stream.cursor = head;
        // An id without data moves the client's Last-Event-ID without dispatching a message, so a
        // client that loses the connection before any event arrives still resumes from here.
        stream.write(`id: ${head}\n\n`);
      } else {
        const from = await this.replayStart(opts.lastEventId);
        if (from === null) {
          stream.cursor = head;
          stream.write(
            `id: ${head}\ndata: ${JSON.stringify({ type: 'resync', data: {}, tabId: null, timestamp: nowIso() })}\n\n`,
          );
        } else {
          stream.cursor = from;
          await this.replay(stream, from);
        }
      }
      stream.goLive();
    } catch (err) {
      this.services.log.warn({ err }, 'event stream replay failed; closing the stream');
      stream.close();
    }
  }

  /**
   * The id to replay after, or null when the client must resync: the id is not a number of this log,
   * the first missed event is older than the replay window or was pruned, or too many were missed.
   */
  private async replayStart(raw: string): Promise<number | null> {
    if (!/^\d{1,15}$/.test(raw.trim())) return null;
    const after = Number(raw.trim());
    const head = await headEventId(this.db);
    if (after > head) return null;
    if (after === head) return after;
    const b = await replayBoundary(this.db, after);
    if (!b.next || b.count > REPLAY_MAX_EVENTS) return null;
    const cutoff = new Date(Date.now() - LIMITS.eventReplaySeconds * 1000).toISOString();
    if (b.next.createdAt < cutoff) return null;
    // Pruning removes the oldest rows; if none at or before `after` is left, a gap after it may be pruned.
    if (b.next.id !== after + 1 && !b.holdsEarlier) return null;
    return after;
  }

  private async replay(stream: Stream, from: number): Promise<void> {
    let after = from;
    for (;;) {
      let q = this.db.selectFrom('events').selectAll().where('id', '>', after);
      const kind = stream.kind;
      if (kind.kind === 'user') q = q.where('scope', 'in', ['user', 'all']);
      else if (kind.kind === 'project') {
        q = q.where((eb) =>
          eb.or([
            eb('scope', '=', 'all'),
            eb.and([eb('scope', '=', 'project'), eb('project_id', '=', kind.projectId)]),
          ]),
        );
      } else {
        q = q.where((eb) =>
          eb.or([
            eb('scope', 'in', ['projects', 'all']),
            eb.and([eb('scope', '=', 'project'), eb('type', 'like', 'member.%')]),
          ]),
        );
      }
      const rows = await q.orderBy('id').limit(REPLAY_PAGE).execute();
      if (stream.closed || rows.length === 0) return;
      const events = rows.map(rowToEvent);
      const members = await this.membersOf(events, [stream]);
      for (const e of events) if (stream.visible(e, members)) stream.send(e);
      after = events[events.length - 1].id;
      if (after > stream.cursor) stream.cursor = after;
      if (rows.length < REPLAY_PAGE) return;
    }
  }

  /** Current members of the projects these events concern, for the streams that need to know. */
  private async membersOf(events: StoredEvent[], streams: Iterable<Stream>): Promise<Members> {
    let anyList = false;
    const watched = new Set<string>();
    for (const s of streams) {
      if (s.holder.isSystemAdmin) continue;
      if (s.kind.kind === 'projects') anyList = true;
      else if (s.kind.kind === 'project') watched.add(s.kind.projectId);
    }
    const ids = new Set<string>();
    for (const e of events) {
      if (!e.projectId) continue;
      if (e.scope === 'project' && watched.has(e.projectId)) ids.add(e.projectId);
      else if (e.scope === 'projects' && !e.audience && anyList) ids.add(e.projectId);
    }
    if (ids.size === 0) return NO_MEMBERS;
    const members: Members = new Map();
    const list = [...ids];
    for (let i = 0; i < list.length; i += 500) {
      const rows = await this.db
        .selectFrom('project_members')
        .select(['project_id', 'user_id'])
        .where('project_id', 'in', list.slice(i, i + 500))
        .execute();
      for (const r of rows) {
        const set = members.get(r.project_id) ?? new Set<string>();
        set.add(r.user_id);
        members.set(r.project_id, set);
      }
    }
    return members;
  }

  private async dispatch(events: StoredEvent[]): Promise<void> {
    if (events.length === 0) return;
    let members = NO_MEMBERS;
    try {
      members = await this.membersOf(events, this.streams);
    } catch (err) {
      // Without membership nothing can be delivered safely: the streams reconnect and replay.
      this.services.log.warn({ err }, 'event delivery failed; closing streams so that they resume');
      for (const s of [...this.streams]) s.close();
      this.dispatched = events[events.length - 1].id;
      return;
    }
    const recheck = new Set<Stream>();
    for (const e of events) {
      for (const s of this.streams) {
        s.offer(e, members);
        if (s.kind.kind === 'project' && !s.closed) {
          const pid = s.kind.projectId;
          if (e.type === 'project.deleted' && e.projectId === pid) s.close();
          else if (
            e.type === 'database.projects.wiped' ||
            e.type === 'database.wiped' ||
            (e.projectId === pid && aboutUser(e, s.holder.userId))
          ) {
            recheck.add(s);
          }
        } else if (e.type === 'database.wiped') recheck.add(s);
      }
    }
    this.dispatched = events[events.length - 1].id;
    if (this.fanoutLag) {
      const now = Date.now();
      for (const e of events) this.fanoutLag(Math.max(0, now - Date.parse(e.timestamp)) / 1000);
    }
    if (recheck.size > 0) void this.revalidate([...recheck]);
  }

  private add(s: Stream): void {
    this.streams.add(s);
    count(this.perCredential, s.holder.credentialHash, 1);
    count(this.perUser, s.holder.userId, 1);
  }

  private remove(s: Stream): void {
    if (!this.streams.delete(s)) return;
    count(this.perCredential, s.holder.credentialHash, -1);
    count(this.perUser, s.holder.userId, -1);
  }

  /** Closes the user's streams: all of them, or those of the given sessions, keys or tokens. */
  private sessionEnded(e: SessionEnd): void {
    const hashes =
      e.tokens || e.hashes ? new Set([...(e.tokens ?? []).map(hashToken), ...(e.hashes ?? [])]) : null;
    for (const s of [...this.streams]) {
      if (s.holder.userId !== e.userId) continue;
      if (hashes && !hashes.has(s.holder.credentialHash)) continue;
      s.close();
    }
  }

  /** Every keepalive interval: the comment line, the local expiry check, and a re-validation. */
  private tick(): void {
    const now = nowIso();
    for (const s of [...this.streams]) {
      if (s.holder.expiresAt !== null && s.holder.expiresAt <= now) s.close();
      else s.write(KEEPALIVE);
    }
    if (!this.revalidating && this.streams.size > 0) {
      this.revalidating = true;
      this.revalidate([...this.streams])
        .catch((err) => this.services.log.warn({ err }, 'event stream re-validation failed'))
        .finally(() => {
          this.revalidating = false;
        });
    }
  }

  /**
   * Closes the streams whose session or key is gone or expired, whose user is disabled, or whose
   * holder lost access to the project; also picks up a changed system-administrator flag. This is
   * how sign-outs, password changes and disabling done through another instance reach this one.
   */
  async revalidate(streams: Stream[]): Promise<void> {
    const now = nowIso();
    const sessions = streams.filter((s) => s.holder.via === 'session');
    const keys = streams.filter((s) => s.holder.via === 'apiKey');
    const valid = new Map<string, { isSystemAdmin: boolean; expiresAt: string | null }>();
    for (let i = 0; i < sessions.length; i += 500) {
      const hashes = [...new Set(sessions.slice(i, i + 500).map((s) => s.holder.credentialHash))];
      const rows = await this.db
        .selectFrom('sessions')
        .innerJoin('users', 'users.id', 'sessions.user_id')
        .select([
          'sessions.token_hash as hash',
          'sessions.expires_at',
          'users.is_active',
          'users.is_system_admin',
        ])
        .where('sessions.token_hash', 'in', hashes)
        .execute();
      for (const r of rows) {
        if (r.is_active === 1 && r.expires_at > now) {
          valid.set(r.hash, { isSystemAdmin: r.is_system_admin === 1, expiresAt: r.expires_at });
        }
      }
    }
    for (let i = 0; i < keys.length; i += 500) {
      const hashes = [...new Set(keys.slice(i, i + 500).map((s) => s.holder.credentialHash))];
      const rows = await this.db
        .selectFrom('api_keys')
        .innerJoin('users', 'users.id', 'api_keys.user_id')
        .select(['api_keys.key_hash as hash', 'api_keys.expires_at', 'users.is_active'])
        .where('api_keys.key_hash', 'in', hashes)
        .execute();
      // OAuth access tokens hold streams as keys do (src/domain/oauth-grants.ts).
      const tokens = await this.db
        .selectFrom('oauth_tokens')
        .innerJoin('oauth_grants', 'oauth_grants.id', 'oauth_tokens.grant_id')
        .innerJoin('users', 'users.id', 'oauth_grants.user_id')
        .select(['oauth_tokens.token_hash as hash', 'oauth_tokens.expires_at', 'users.is_active'])
        .where('oauth_tokens.token_hash', 'in', hashes)
        .where('oauth_tokens.kind', '=', 'access')
        .execute();
      // A key never reads as a system administrator (src/domain/api-keys.ts).
      for (const r of [...rows, ...tokens]) {
        if (r.is_active === 1 && (r.expires_at === null || r.expires_at > now))
          valid.set(r.hash, { isSystemAdmin: false, expiresAt: r.expires_at });
      }
    }
    const projectStreams: Stream[] = [];
    for (const s of streams) {
      if (s.closed) continue;
      const v = valid.get(s.holder.credentialHash);
      if (!v) {
        s.close();
        continue;
      }
      s.holder.isSystemAdmin = v.isSystemAdmin;
      s.holder.expiresAt = v.expiresAt;
      if (s.kind.kind === 'project') projectStreams.push(s);
    }
    if (projectStreams.length === 0) return;
    const projectIds = [...new Set(projectStreams.map((s) => (s.kind as { projectId: string }).projectId))];
    const existing = new Set<string>();
    const membership = new Set<string>();
    for (let i = 0; i < projectIds.length; i += 500) {
      const chunk = projectIds.slice(i, i + 500);
      const projects = await this.db.selectFrom('projects').select('id').where('id', 'in', chunk).execute();
      for (const p of projects) existing.add(p.id);
      const members = await this.db
        .selectFrom('project_members')
        .select(['project_id', 'user_id'])
        .where('project_id', 'in', chunk)
        .execute();
      for (const m of members) membership.add(`${m.project_id} ${m.user_id}`);
    }
    for (const s of projectStreams) {
      const pid = (s.kind as { projectId: string }).projectId;
      const allowed =
        existing.has(pid) && (s.holder.isSystemAdmin || membership.has(`${pid} ${s.holder.userId}`));
      if (!allowed) s.close();
    }
  }
}
