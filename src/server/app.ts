import path from 'node:path';
import { fileURLToPath } from 'node:url';
import cookie from '@fastify/cookie';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import Fastify, {
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  LogController,
} from 'fastify';
import { jsonSchemaTransform, validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import pino from 'pino';
import type { Config } from '../config.js';
import { connect, type Db } from '../db/connect.js';
import { migrateToLatest } from '../db/migrate.js';
import { pruneAudit } from '../domain/audit.js';
import type { Services } from '../domain/context.js';
import { setPasswordHashing } from '../domain/passwords.js';
import { pruneRateLimits } from '../domain/rate-limit.js';
import { readCache } from '../domain/read-cache.js';
import { ensureSettings } from '../domain/settings.js';
import { purgeExpiredTrash } from '../domain/trash.js';
import { ensureBootstrapAdmin } from '../domain/users.js';
import { EventHub, type SessionEnd } from '../events/hub.js';
import { setupEvents } from '../events/setup.js';
import { openFileStore } from '../files/open-store.js';
import { setupMail } from '../mail/setup.js';
import { ERR } from '../shared/errors.js';
import { setupWebhooks } from '../webhooks/setup.js';
import { registerDrain } from './drain.js';
import { setupMetrics } from './metrics.js';
import { registerAuth } from './plugins/auth.js';
import { registerCompression } from './plugins/compression.js';
import { plainSerializer, registerContractChecks } from './plugins/contracts.js';
import { registerErrorHandler } from './plugins/errors.js';
import { registerInputGuard } from './plugins/input.js';
import { clientErrorHandler, frameworkErrors, registerSecurityHeaders } from './plugins/security-headers.js';
import { ROUTES } from './routes/index.js';
import { oauthMetadataRoutes } from './routes/oauth.routes.js';
import { registerWeb } from './web.js';

declare module 'fastify' {
  interface FastifyInstance {
    services: Services;
    hub: EventHub;
    /** Tells the streams that sessions ended, so they close. */
    sessionEnded(e: SessionEnd): void;
    /** Every route as registered (method, full URL, auth config): the authorization matrix reads it. */
    routeTable: RouteEntry[];
  }
}

export interface RouteEntry {
  method: string;
  url: string;
  auth: string;
  apiKey: boolean | undefined;
  hidden: boolean;
}

export interface BuildOptions {
  /** An already connected database (tests share one per app). */
  db?: Db;
  logger?: boolean | object;
  /** Where the built web app lives; default dist/web beside the package. */
  webRoot?: string;
}

/**
 * One access line per request, written when it is answered, with what an operator looks for.
 * Fastify's default is two lines ("incoming request", "request completed"), and each line is a JSON
 * serialisation and a write to the log.
 */
class AccessLog extends LogController {
  override incomingRequest() {}

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply) {
    const line = {
      method: request.method,
      url: request.url,
      statusCode: reply.statusCode,
      ms: Math.round(reply.elapsedTime * 10) / 10,
      ip: request.ip,
    };
    if (error) reply.log.error({ ...line, err: error }, 'request errored');
    else reply.log.info(line, 'request');
  }
}

/**
 * The log goes to standard output, buffered: written when 4 KB have gathered, every second, and at
 * exit (pino flushes on exit). A synchronous write per line cost 10 µs of every request at the
 * default level. A process killed outright (SIGKILL) loses at most its last second of lines.
 */
function logDestination() {
  return pino.destination({ dest: 1, sync: false, minLength: 4096, periodicFlush: 1000 });
}

/**
 * Fastify's trust setting from DOCKET_TRUST_PROXY: none, the last N hops (Fastify's own number
 * setting trusts nothing, so a function: hop 0 is the socket's peer), or the listed addresses.
 */
function trustedProxies(
  t: Config['trustProxy'],
): false | string[] | ((addr: string, hop: number) => boolean) {
  if (t === false) return false;
  if (typeof t === 'number') return (_addr, hop) => hop < t;
  return t;
}

const packageRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/** Builds the whole application; never listens (main.ts does), so tests can inject requests. */
export async function buildApp(config: Config, opts: BuildOptions = {}): Promise<FastifyInstance> {
  const db =
    opts.db ??
    (await connect({
      databaseUrl: config.databaseUrl,
      pgSchema: config.pgSchema,
      dataDir: config.dataDir,
      searchMmapBytes: config.searchMmapBytes,
    }));
  await migrateToLatest(db);
  readCache(db, config.readCacheBytes);
  await ensureSettings(db.kysely);
  setPasswordHashing(config.passwordHashing ?? 'standard');

  const app = Fastify({
    logger: opts.logger ?? { level: config.logLevel, stream: logDestination() },
    logController: new AccessLog(),
    bodyLimit: config.bodyLimitBytes,
    trustProxy: trustedProxies(config.trustProxy),
    frameworkErrors: frameworkErrors(config),
    clientErrorHandler: clientErrorHandler(config),
    // Fastify's default is no limit: a client that sends half a body would hold its connection
    // forever. Node checks running requests against it every few seconds.
    requestTimeout: config.requestTimeoutSeconds * 1000,
    http: {
      connectionsCheckingInterval: Math.min(30_000, Math.max(250, (config.requestTimeoutSeconds * 1000) / 4)),
      headersTimeout: Math.min(60_000, config.requestTimeoutSeconds * 1000),
    },
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 200 },
  }).withTypeProvider<ZodTypeProvider>();

  const hub = new EventHub();
  const services: Services = {
    db,
    config,
    events: hub,
    files: await openFileStore(config),
    log: app.log,
  };
  app.decorate('services', services);
  app.decorate('hub', hub);
  app.decorate('sessionEnded', (e: SessionEnd) => hub.sessionEnded(e));
  const routeTable: RouteEntry[] = [];
  app.decorate('routeTable', routeTable);
  app.addHook('onRoute', (route) => {
    // Hooks of inner scopes (the docs and assets) may still rewrite the config: read it lazily.
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    for (const method of methods) {
      routeTable.push({
        method,
        url: route.url,
        get auth() {
          return route.config?.auth ?? 'user';
        },
        get apiKey() {
          return route.config?.apiKey;
        },
        hidden: Boolean((route.schema as { hide?: boolean } | undefined)?.hide),
      });
    }
  });
  app.addHook('onClose', async () => {
    services.files.close();
    if (!opts.db) await db.close();
  });
  await setupEvents(app, services, hub);
  setupMail(app, services);
  setupMetrics(app, services);
  registerDrain(app, config.drainSeconds);
  setupWebhooks(app, services);

  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(plainSerializer);

  // JSON bodies: an empty body reads as no body (DELETE clients often send the header alone);
  // `__proto__` and `constructor.prototype` keys are refused (docs/decisions/003-accounts.md).
  const defaultJson = app.getDefaultJsonParser('error', 'error');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (req, body, done) => {
    if (body === '' || (typeof body === 'string' && body.trim() === '')) return done(null, undefined);
    defaultJson(req, body as string, done);
  });
  // Form bodies are parsed only where a form is expected (plugins/forms.ts).

  await app.register(cookie);
  await registerCompression(app);
  // Multipart bodies are parsed only in the scopes of the upload routes (src/server/multipart.ts).
  registerErrorHandler(app);
  registerAuth(app, services);
  registerInputGuard(app);
  if (config.checkContracts) registerContractChecks(app);

  registerSecurityHeaders(app, config);

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Docket API',
        version: '1',
        description:
          'The HTTP API of Docket. Authenticate with the session cookie (sign in at /api/auth/callback/credentials) or with `Authorization: Bearer <apiKey>`.',
      },
      servers: [{ url: config.basePath || '/' }],
      components: {
        securitySchemes: {
          session: { type: 'apiKey', in: 'cookie', name: 'docket_session' },
          apiKey: { type: 'http', scheme: 'bearer' },
        },
      },
      security: [{ session: [] }, { apiKey: [] }],
    },
    transform: jsonSchemaTransform,
  });

  await app.register(
    async (scope) => {
      for (const routes of ROUTES) await scope.register(routes);
      scope.get('/api/openapi.json', { schema: { hide: true }, config: { auth: 'public' } }, async () =>
        app.swagger(),
      );
      await scope.register(async (docs) => {
        docs.addHook('onRoute', (route) => {
          route.config = { ...(route.config ?? {}), auth: 'public' };
        });
        await docs.register(swaggerUi, { routePrefix: '/api/docs', uiConfig: { docExpansion: 'list' } });
      });
      await registerWeb(scope, config, opts.webRoot ?? path.join(packageRoot, 'dist', 'web'));
    },
    { prefix: config.basePath },
  );
  // The OAuth metadata documents live at the origin's root, whatever the base path (RFC 8414, RFC 9728).
  await app.register(oauthMetadataRoutes);

  if (config.basePath) {
    app.setNotFoundHandler(async (_req, reply) => reply.status(404).send({ error: ERR.notFound }));
  }

  await ensureBootstrapAdmin(services);
  // The audit log keeps DOCKET_AUDIT_DAYS: pruned at start and every hour.
  const pruneAuditLog = () =>
    pruneAudit(services).catch((err) => services.log.warn({ err }, 'pruning the audit log failed'));
  await pruneAuditLog();
  const auditPruner = setInterval(pruneAuditLog, 3_600_000);
  auditPruner.unref();
  app.addHook('onClose', async () => clearInterval(auditPruner));
  // Rate-limit counters whose window has ended (docs/decisions/042-several-instances.md).
  const rateLimitPruner = setInterval(
    () => pruneRateLimits(db).catch((err) => services.log.warn({ err }, 'pruning rate limits failed')),
    300_000,
  );
  rateLimitPruner.unref();
  app.addHook('onClose', async () => clearInterval(rateLimitPruner));
  // Tickets in the trash longer than 30 days, with their files (decision 048): hourly, on every
  // instance (each purged entry is claimed by exactly one).
  const trashPurger = setInterval(
    () => purgeExpiredTrash(services).catch((err) => services.log.warn({ err }, 'purging the trash failed')),
    3_600_000,
  );
  trashPurger.unref();
  app.addHook('onClose', async () => clearInterval(trashPurger));
  return app;
}
