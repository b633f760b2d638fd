import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import type { Services } from '../domain/context.js';
import { readCache } from '../domain/read-cache.js';
import { mailOutboxDepth } from '../mail/sender.js';
import { webhookOutboxDepth } from '../webhooks/sender.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** The instance's metrics, or null when DOCKET_METRICS_TOKEN is unset (no /metrics, no cost). */
    metrics: Metrics | null;
  }
}

export interface Metrics {
  registry: Registry;
  /**
   * Adds an outbox to `docket_outbox_depth`: `depth` answers how many messages wait to be sent, read
   * at each scrape. The mail outbox is added here; other outboxes (webhooks) add themselves.
   */
  addOutbox(name: string, depth: () => Promise<number>): void;
}

/** Seconds: from a cached read (0.1 ms) to a slow export (10 s). */
const HTTP_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10];
const QUERY_BUCKETS = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.5, 2];
const LAG_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];

/**
 * Prometheus metrics (docs/deploy.md lists each one and what it means), on when
 * DOCKET_METRICS_TOKEN is set: an onResponse hook times every request by route and status, the event
 * streams report fan-out lag, the database its statement times, and the rest is read at each scrape.
 */
export function setupMetrics(app: FastifyInstance, services: Services): Metrics | null {
  if (!services.config.metricsToken) {
    app.decorate('metrics', null);
    return null;
  }
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });

  const http = new Histogram({
    name: 'docket_http_request_duration_seconds',
    help: 'HTTP requests by method, route (the pattern, not the URL) and status: time until the answer was sent; _count is the request count',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: HTTP_BUCKETS,
    registers: [registry],
  });
  // One labelled child per method, route and status, kept: prom-client checks and hashes the labels
  // on every unlabelled observe. A callback hook, not an async one (no promise per request).
  const httpChildren = new Map<string, { observe(seconds: number): void }>();
  app.addHook('onResponse', (req, reply, done) => {
    const route = req.routeOptions.url ?? 'unmatched';
    const key = `${req.method} ${reply.statusCode} ${route}`;
    let child = httpChildren.get(key);
    if (!child) {
      child = http.labels(req.method, route, String(reply.statusCode));
      httpChildren.set(key, child);
    }
    child.observe(reply.elapsedTime / 1000);
    done();
  });

  new Gauge({
    name: 'docket_event_streams_open',
    help: 'Event streams (SSE) open on this instance',
    registers: [registry],
    collect() {
      this.set(app.streams.size);
    },
  });
  const lag = new Histogram({
    name: 'docket_event_fanout_lag_seconds',
    help: 'Time from an event being written (any instance) to its fan-out to the streams of this instance',
    buckets: LAG_BUCKETS,
    registers: [registry],
  });
  app.streams.fanoutLag = (seconds) => lag.observe(seconds);

  const db = services.db;
  const queries = new Histogram({
    name: 'docket_db_query_duration_seconds',
    help: 'Database statements of this instance: time from sending to the answer',
    buckets: QUERY_BUCKETS,
    registers: [registry],
  });
  db.observeQueries((seconds) => queries.observe(seconds));
  new Gauge({
    name: 'docket_db_pool_connections',
    help: 'PostgreSQL pool connections by state (total, idle) and requests waiting for one (waiting)',
    labelNames: ['state'] as const,
    registers: [registry],
    collect() {
      const p = db.poolStats();
      if (!p) return;
      this.set({ state: 'total' }, p.total);
      this.set({ state: 'idle' }, p.idle);
      this.set({ state: 'waiting' }, p.waiting);
    },
  });

  const cache = readCache(db);
  new Counter({
    name: 'docket_read_cache_lookups_total',
    help: 'Read-cache look-ups by result (hit: answered from memory; miss: read from the database)',
    labelNames: ['result'] as const,
    registers: [registry],
    collect() {
      this.reset();
      const { hits, misses } = cache.stats;
      this.inc({ result: 'hit' }, hits);
      this.inc({ result: 'miss' }, misses);
    },
  });
  new Gauge({
    name: 'docket_read_cache_hit_ratio',
    help: 'Share of read-cache look-ups answered from memory since the start',
    registers: [registry],
    collect() {
      const { hits, misses } = cache.stats;
      this.set(hits + misses === 0 ? 0 : hits / (hits + misses));
    },
  });
  new Counter({
    name: 'docket_read_cache_drops_total',
    help: 'Read-cache entries dropped by reason (evicted: still valid, dropped to stay within the budget, least recently used first; stale: a change to what they show)',
    labelNames: ['reason'] as const,
    registers: [registry],
    collect() {
      this.reset();
      const { evictions, stale } = cache.drops;
      this.inc({ reason: 'evicted' }, evictions);
      this.inc({ reason: 'stale' }, stale);
    },
  });
  new Gauge({
    name: 'docket_read_cache_bytes',
    help: 'Read-cache bytes: kept (its entries as weighed: values, keys and records) and budget (DOCKET_READ_CACHE_MB)',
    labelNames: ['kind'] as const,
    registers: [registry],
    collect() {
      this.set({ kind: 'kept' }, cache.bytes);
      this.set({ kind: 'budget' }, cache.maxSize);
    },
  });
  new Gauge({
    name: 'docket_read_cache_entries',
    help: 'Read-cache entries kept (some may be stale, dropped when next looked up or evicted)',
    registers: [registry],
    collect() {
      this.set(cache.size);
    },
  });

  const outboxes = new Map<string, () => Promise<number>>();
  new Gauge({
    name: 'docket_outbox_depth',
    help: 'Messages waiting in each outbox (mail; webhooks when present): shared by all instances',
    labelNames: ['outbox'] as const,
    registers: [registry],
    async collect() {
      for (const [name, depth] of outboxes) {
        try {
          this.set({ outbox: name }, await depth());
        } catch (err) {
          services.log.warn({ err, outbox: name }, 'reading an outbox depth failed');
        }
      }
    },
  });
  const metrics: Metrics = {
    registry,
    addOutbox: (name, depth) => {
      outboxes.set(name, depth);
    },
  };
  metrics.addOutbox('mail', () => mailOutboxDepth(db));
  metrics.addOutbox('webhooks', () => webhookOutboxDepth(db));
  app.decorate('metrics', metrics);
  app.addHook('onClose', async () => {
    db.observeQueries(null);
    app.streams.fanoutLag = null;
  });
  return metrics;
}

const digest = (s: string) => createHash('sha256').update(s).digest();

/** Whether an Authorization header carries the metrics token (compared in constant time). */
export function isMetricsToken(authorization: string | undefined, token: string): boolean {
  const m = /^bearer\s+(.+)$/i.exec(authorization ?? '');
  return !!m && timingSafeEqual(digest(m[1].trim()), digest(token));
}
