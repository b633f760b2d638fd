import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { adminRoutes } from './admin.routes.js';
import { attachmentsRoutes } from './attachments.routes.js';
import { authRoutes } from './auth.routes.js';
import { eventsRoutes } from './events.routes.js';
import { filesRoutes } from './files.routes.js';
import { healthRoutes } from './health.routes.js';
import { importsRoutes } from './imports.routes.js';
import { mcpRoutes } from './mcp.routes.js';
import { meRoutes } from './me.routes.js';
import { metricsRoutes } from './metrics.routes.js';
import { notificationsRoutes } from './notifications.routes.js';
import { oauthRoutes } from './oauth.routes.js';
import { planningRoutes } from './planning.routes.js';
import { projectsRoutes } from './projects.routes.js';
import { searchRoutes } from './search.routes.js';
import { securityRoutes } from './security.routes.js';
import { sprintsRoutes } from './sprints.routes.js';
import { ssoRoutes } from './sso.routes.js';
import { templatesRoutes } from './templates.routes.js';
import { ticketsRoutes } from './tickets.routes.js';
import { trashRoutes } from './trash.routes.js';
import { usersRoutes } from './users.routes.js';
import { viewsRoutes } from './views.routes.js';
import { webhooksRoutes } from './webhooks.routes.js';

/** Every route module, registered under the base path. A new module is added here. */
export const ROUTES: FastifyPluginAsyncZod[] = [
  healthRoutes,
  authRoutes,
  meRoutes,
  usersRoutes,
  adminRoutes,
  projectsRoutes,
  ticketsRoutes,
  trashRoutes,
  sprintsRoutes,
  planningRoutes,
  eventsRoutes,
  filesRoutes,
  attachmentsRoutes,
  mcpRoutes,
  securityRoutes,
  notificationsRoutes,
  searchRoutes,
  viewsRoutes,
  metricsRoutes,
  oauthRoutes,
  ssoRoutes,
  webhooksRoutes,
  importsRoutes,
  templatesRoutes,
];
