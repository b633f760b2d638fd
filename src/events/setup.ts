import type { FastifyInstance } from 'fastify';
import type { Services } from '../domain/context.js';
import { LIMITS } from '../shared/limits.js';
import { LogFollower } from './follower.js';
import type { EventHub } from './hub.js';
import { pruneEvents } from './log.js';
import { StreamManager } from './streams.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** The event streams of this instance (src/server/routes/events.routes.ts serves them). */
    streams: StreamManager;
  }
}

/** Log rows are kept this much longer than the replay window, so a replay never races the pruner. */
const PRUNE_MARGIN_SECONDS = 60;
const PRUNE_EVERY_MS = 60_000;

/** Deletes log rows older than the replay window (plus a margin). */
export async function pruneEventLog(services: Services, now = Date.now()): Promise<number> {
  const cutoff = new Date(now - (LIMITS.eventReplaySeconds + PRUNE_MARGIN_SECONDS) * 1000).toISOString();
  return pruneEvents(services.db.kysely, cutoff);
}

/**
 * Wires the real-time events of one app: the log follower (woken by local commits, PostgreSQL
 * NOTIFY and a timer), the stream manager, and the pruner. Everything stops when the app closes.
 */
export async function setupEvents(
  app: FastifyInstance,
  services: Services,
  hub: EventHub,
): Promise<StreamManager> {
  const streams = new StreamManager(services, hub);
  const follower = new LogFollower({
    db: services.db,
    log: services.log,
    origin: hub.origin,
    deliver: (events) => hub.deliver(events),
  });
  hub.attachFollower((events) => follower.offer(events));

  const background = { ...services, db: { ...services.db } };
  const prune = () =>
    pruneEventLog(background).catch((err) => services.log.warn({ err }, 'pruning the event log failed'));
  await prune();
  await follower.start();
  streams.start(follower.position);
  const pruner = setInterval(prune, PRUNE_EVERY_MS);
  pruner.unref();

  app.decorate('streams', streams);
  // preClose runs before the server stops listening: open streams would otherwise keep it open.
  app.addHook('preClose', async () => {
    clearInterval(pruner);
    streams.closeAll();
    hub.attachFollower(null);
    await follower.stop();
  });
  return streams;
}
