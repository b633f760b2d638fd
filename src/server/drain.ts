import type { FastifyInstance } from 'fastify';

declare module 'fastify' {
  interface FastifyInstance {
    /** True from SIGTERM on: GET /api/ready answers 503 so that balancers stop sending requests. */
    draining: boolean;
    /** Starts the drain (see registerDrain); resolves when the streams are closed. */
    drain(): Promise<void>;
  }
}

/** What an event stream closed by a drain is told to wait before reconnecting (plus up to as much). */
export const DRAIN_RETRY_MS = 1000;

/**
 * The graceful drain on SIGTERM (docs/deploy.md): /api/ready fails at once while everything keeps
 * working for DOCKET_DRAIN_SECONDS, the time balancers need to notice; then the event streams close
 * with a reconnect hint (SSE `retry:`), and the caller closes the app, which finishes the requests in
 * flight. Clients resume on another instance with Last-Event-ID and miss nothing.
 */
export function registerDrain(app: FastifyInstance, drainSeconds: number): void {
  app.decorate('draining', false);
  app.decorate('drain', async () => {
    if (app.draining) return;
    app.draining = true;
    app.log.info({ seconds: drainSeconds }, 'draining: /api/ready fails, streams close after the wait');
    await new Promise((r) => setTimeout(r, drainSeconds * 1000));
    app.streams.closeAll(DRAIN_RETRY_MS);
  });
}
