import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { createScopedApiKey, listApiKeys, revokeScopedApiKey } from '../../domain/api-keys.js';
import { listAudit } from '../../domain/audit.js';
import { endOtherSessions, endSession, listSessions } from '../../domain/sessions.js';
import { getSecuritySettings, updateSecuritySettings } from '../../domain/settings.js';
import {
  disableTwoFactor,
  enableTwoFactor,
  startTwoFactor,
  twoFactorStatus,
} from '../../domain/two-factor.js';
import { idParam, successResponse } from '../../shared/common.js';
import {
  apiKeyItemOut,
  auditPageOut,
  auditQuery,
  createApiKeyBody,
  createdApiKeyOut,
  endedSessionsOut,
  securitySettingsBody,
  securitySettingsOut,
  sessionItemOut,
  twoFactorDisableBody,
  twoFactorEnableBody,
  twoFactorEnableOut,
  twoFactorSetupOut,
  twoFactorStatusOut,
} from '../../shared/security.js';
import { clearSessionCookie } from '../plugins/auth.js';

const tags = ['Current user'];

/**
 * Account security (issue 19): my sessions and my API keys (not with an API key), and the audit log
 * for system administrators.
 */
export const securityRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/api/me/sessions',
    {
      schema: {
        tags,
        summary: 'My sessions (current marks this one)',
        response: { 200: z.array(sessionItemOut) },
      },
      config: { apiKey: false },
    },
    async (req) => listSessions(req.ctx),
  );

  app.delete(
    '/api/me/sessions/:sessionId',
    {
      schema: {
        tags,
        summary: 'End one of my sessions (this one signs me out)',
        params: z.object({ sessionId: idParam }),
        response: { 200: successResponse },
      },
      config: { apiKey: false },
    },
    async (req, reply) => {
      const ended = await endSession(req.ctx, req.params.sessionId);
      app.sessionEnded({ userId: ended.userId, hashes: ended.hashes });
      if (ended.current) clearSessionCookie(reply, app.services.config);
      return { success: true as const };
    },
  );

  app.delete(
    '/api/me/sessions',
    {
      schema: {
        tags,
        summary: 'End every session of mine but this one',
        response: { 200: endedSessionsOut },
      },
      config: { apiKey: false },
    },
    async (req) => {
      const ended = await endOtherSessions(req.ctx);
      if (ended.hashes.length > 0) app.sessionEnded({ userId: ended.userId, hashes: ended.hashes });
      return { success: true as const, ended: ended.hashes.length };
    },
  );

  app.get(
    '/api/me/api-keys',
    {
      schema: {
        tags,
        summary: 'My API keys (never the keys themselves)',
        response: { 200: z.array(apiKeyItemOut) },
      },
      config: { apiKey: false },
    },
    async (req) => listApiKeys(req.ctx),
  );

  app.post(
    '/api/me/api-keys',
    {
      schema: {
        tags,
        summary: 'Create an API key: read or write, optionally expiring (the key is shown once)',
        body: createApiKeyBody,
        response: { 201: createdApiKeyOut },
      },
      config: { apiKey: false },
    },
    async (req, reply) => reply.status(201).send(await createScopedApiKey(req.ctx, req.body)),
  );

  app.delete(
    '/api/me/api-keys/:keyId',
    {
      schema: {
        tags,
        summary: 'Revoke one of my API keys',
        params: z.object({ keyId: idParam }),
        response: { 200: successResponse },
      },
      config: { apiKey: false },
    },
    async (req) => revokeScopedApiKey(req.ctx, req.params.keyId),
  );

  app.get(
    '/api/admin/audit',
    {
      schema: {
        tags: ['Administration'],
        summary:
          'The audit log, newest first: filter by actor (id or username), action (or prefix*), since; page with cursor',
        querystring: auditQuery,
        response: { 200: auditPageOut },
      },
      config: { auth: 'admin', apiKey: false },
    },
    async (req) => listAudit(req.ctx, req.query),
  );

  app.get(
    '/api/me/two-factor',
    {
      schema: { tags, summary: 'Whether two-factor sign-in is on', response: { 200: twoFactorStatusOut } },
      config: { apiKey: false, twoFactorSetup: true },
    },
    async (req) => twoFactorStatus(req.ctx),
  );

  app.post(
    '/api/me/two-factor',
    {
      schema: {
        tags,
        summary:
          'Start two-factor setup: a new TOTP secret and its otpauth:// URL (not in use until enabled)',
        response: { 200: twoFactorSetupOut },
      },
      config: { apiKey: false, twoFactorSetup: true },
    },
    async (req) => startTwoFactor(req.ctx),
  );

  app.post(
    '/api/me/two-factor/enable',
    {
      schema: {
        tags,
        summary:
          'Turn two-factor sign-in on with a code from the new secret; answers 10 recovery codes, once',
        body: twoFactorEnableBody,
        response: { 200: twoFactorEnableOut },
      },
      config: { apiKey: false, twoFactorSetup: true },
    },
    async (req) => enableTwoFactor(req.ctx, req.body.code),
  );

  app.delete(
    '/api/me/two-factor',
    {
      schema: {
        tags,
        summary: 'Turn two-factor sign-in off (my password and a code or recovery code)',
        body: twoFactorDisableBody,
        response: { 200: successResponse },
      },
      config: { apiKey: false },
    },
    async (req) => disableTwoFactor(req.ctx, req.body.password, req.body.code),
  );

  app.get(
    '/api/admin/security',
    {
      schema: {
        tags: ['Administration'],
        summary: 'Security settings',
        response: { 200: securitySettingsOut },
      },
      config: { auth: 'admin', apiKey: false },
    },
    async (req) => getSecuritySettings(req.ctx),
  );

  app.patch(
    '/api/admin/security',
    {
      schema: {
        tags: ['Administration'],
        summary: 'Require two-factor sign-in of everyone (users without it can only turn it on)',
        body: securitySettingsBody,
        response: { 200: securitySettingsOut },
      },
      config: { auth: 'admin', apiKey: false },
    },
    async (req) => updateSecuritySettings(req.ctx, req.body),
  );
};
