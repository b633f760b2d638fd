import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { apiKeyStatus, createApiKey, revokeApiKey } from '../../domain/api-keys.js';
import { actorOf } from '../../domain/context.js';
import { presentEnded } from '../../domain/credentials.js';
import { changeEmail, changePassword, deleteOwnAccount, getMe, updateMe } from '../../domain/users.js';
import {
  apiKeyOut,
  apiKeyStatusOut,
  changeEmailBody,
  changePasswordBody,
  deleteAccountBody,
  meOut,
  updateMeBody,
} from '../../shared/accounts.js';
import { successResponse } from '../../shared/common.js';
import { passwordChangedOut } from '../../shared/security.js';
import { clearSessionCookie, setSessionCookie } from '../plugins/auth.js';

const tags = ['Current user'];

export const meRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/api/me',
    {
      schema: { tags, summary: 'My profile', response: { 200: meOut } },
      config: { beforePasswordChange: true, twoFactorSetup: true },
    },
    async (req) => getMe(req.ctx, actorOf(req.ctx).userId),
  );

  app.patch(
    '/api/me',
    { schema: { tags, summary: 'Change my display name', response: { 200: meOut }, body: updateMeBody } },
    async (req) => updateMe(req.ctx, actorOf(req.ctx).userId, req.body.name),
  );

  app.patch(
    '/api/me/email',
    {
      schema: {
        tags,
        summary: 'Change my e-mail address (needs my password)',
        response: { 200: meOut },
        body: changeEmailBody,
      },
      config: { apiKey: false },
    },
    async (req) => changeEmail(req.ctx, actorOf(req.ctx).userId, req.body),
  );

  app.patch(
    '/api/me/password',
    {
      schema: {
        tags,
        summary:
          'Change my password; ends every other session, my API keys (but those in keepApiKeys) and my OAuth grants',
        response: { 200: passwordChangedOut },
        body: changePasswordBody,
      },
      config: { apiKey: false, beforePasswordChange: true },
    },
    async (req, reply) => {
      const userId = actorOf(req.ctx).userId;
      const { session, ended } = await changePassword(req.ctx, userId, req.body);
      // The streams of what ended close now (this one's too: its session was replaced).
      app.sessionEnded({ userId, hashes: ended.hashes });
      setSessionCookie(reply, app.services.config, session);
      return presentEnded(ended);
    },
  );

  app.delete(
    '/api/me/account',
    {
      schema: {
        tags,
        summary: "Delete my account (password and 'delete my account')",
        response: { 200: successResponse },
        body: deleteAccountBody,
      },
      config: { apiKey: false },
    },
    async (req, reply) => {
      const userId = actorOf(req.ctx).userId;
      const result = await deleteOwnAccount(req.ctx, userId, req.body.password);
      app.sessionEnded({ userId });
      clearSessionCookie(reply, app.services.config);
      return result;
    },
  );

  app.post(
    '/api/me/mcp-key',
    {
      schema: {
        tags,
        summary: 'Create my API key (returned once; replaces any earlier key)',
        response: { 201: apiKeyOut },
      },
      config: { apiKey: false },
    },
    async (req, reply) => reply.status(201).send(await createApiKey(req.ctx, actorOf(req.ctx).userId)),
  );
  app.get(
    '/api/me/mcp-key',
    {
      schema: { tags, summary: 'Whether I have an API key', response: { 200: apiKeyStatusOut } },
      config: { apiKey: false },
    },
    async (req) => apiKeyStatus(req.ctx, actorOf(req.ctx).userId),
  );
  app.delete(
    '/api/me/mcp-key',
    {
      schema: { tags, summary: 'Revoke my API key', response: { 200: successResponse } },
      config: { apiKey: false },
    },
    async (req) => revokeApiKey(req.ctx, actorOf(req.ctx).userId),
  );
};
