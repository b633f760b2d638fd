import '../env-file.js';
import { ConfigError, loadConfig } from '../config.js';
import { startIdleCompaction } from '../heap.js';
import { buildApp } from './app.js';

/** Starts Docket: validates the configuration, migrates, listens, and shuts down gracefully. */
export async function serve(): Promise<void> {
  let config: ReturnType<typeof loadConfig>;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(err.message);
      process.exit(2);
    }
    throw err;
  }
  const app = await buildApp(config);
  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    app.log.info({ signal }, 'shutting down: draining, then finishing requests in flight');
    const force = setTimeout(() => process.exit(1), (config.drainSeconds + 15) * 1000);
    force.unref();
    try {
      // SIGTERM drains first (src/server/drain.ts); SIGINT (Ctrl-C) skips the wait.
      if (signal === 'SIGTERM') await app.drain();
      await app.close();
      process.exit(0);
    } catch (err) {
      app.log.error({ err }, 'error during shutdown');
      process.exit(1);
    }
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
  const address = await app.listen({ port: config.port, host: config.host });
  startIdleCompaction();
  app.log.info(`Docket is listening at ${address}${config.basePath}/ (${app.services.db.dialect})`);
  // The log is buffered (app.ts): whoever waits for this line gets it now. Fastify types the logger
  // without pino's flush.
  (app.log as { flush?: () => void }).flush?.();
}
