import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { actorOf } from '../../domain/context.js';
import {
  type ConfirmedAdmin,
  confirm,
  exportDatabase,
  importDatabase,
  wipeDatabase,
  wipeProjects,
} from '../../domain/database-admin.js';
import { AppError, badRequest, invalidField } from '../../domain/errors.js';
import { getSettings, updateSettings } from '../../domain/settings.js';
import {
  adminCreateUser,
  adminDeleteUser,
  adminGetUser,
  adminListUsers,
  adminUpdateUser,
} from '../../domain/users.js';
import {
  adminCreateUserBody,
  adminUpdateUserBody,
  adminUserOut,
  adminUsersQuery,
  confirmPasswordBody,
  settingsPatchBody,
  systemSettingsOut,
} from '../../shared/accounts.js';
import { idParam, successResponse } from '../../shared/common.js';
import {
  exportBody,
  importResult,
  wipeBody,
  wipeProjectsBody,
  wipeProjectsResult,
  wipeResult,
} from '../../shared/database-admin.js';
import { ERR } from '../../shared/errors.js';
import { acceptUploads } from '../multipart.js';
import { clearSessionCookie } from '../plugins/auth.js';

const tags = ['Administration'];
const admin = { auth: 'admin' as const, apiKey: false };
const userParams = z.object({ userId: idParam });

export const adminRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/api/admin/users',
    {
      schema: {
        tags,
        summary: 'List users',
        response: { 200: adminUserOut.array() },
        querystring: adminUsersQuery,
      },
      config: admin,
    },
    async (req, reply) => {
      const { items, total } = await adminListUsers(req.ctx, req.query);
      reply.header('X-Total-Count', String(total));
      return items;
    },
  );
  app.post(
    '/api/admin/users',
    {
      schema: {
        tags,
        summary: 'Create a user (needs my password)',
        response: { 201: adminUserOut },
        body: adminCreateUserBody,
      },
      config: admin,
    },
    async (req, reply) =>
      reply.status(201).send(await adminCreateUser(req.ctx, actorOf(req.ctx).userId, req.body)),
  );
  app.get(
    '/api/admin/users/:userId',
    {
      schema: { tags, summary: 'Read a user', response: { 200: adminUserOut }, params: userParams },
      config: admin,
    },
    async (req) => adminGetUser(req.ctx, req.params.userId),
  );
  app.patch(
    '/api/admin/users/:userId',
    {
      schema: {
        tags,
        summary: 'Update a user',
        response: { 200: adminUserOut },
        params: userParams,
        body: adminUpdateUserBody,
      },
      config: admin,
    },
    async (req) => {
      const user = await adminUpdateUser(req.ctx, actorOf(req.ctx).userId, req.params.userId, req.body);
      if (req.body.isActive === false) app.sessionEnded({ userId: req.params.userId });
      return user;
    },
  );
  app.delete(
    '/api/admin/users/:userId',
    {
      schema: {
        tags,
        summary: 'Delete a user and their data (needs my password)',
        response: { 200: successResponse },
        params: userParams,
        body: confirmPasswordBody,
      },
      config: admin,
    },
    async (req) => {
      const result = await adminDeleteUser(
        req.ctx,
        actorOf(req.ctx).userId,
        req.params.userId,
        req.body.confirmPassword,
      );
      app.sessionEnded({ userId: req.params.userId });
      return result;
    },
  );

  app.get(
    '/api/admin/settings',
    { schema: { tags, summary: 'System settings', response: { 200: systemSettingsOut } }, config: admin },
    async (req) => getSettings(req.ctx),
  );
  app.patch(
    '/api/admin/settings',
    {
      schema: {
        tags,
        summary: 'Change system settings',
        response: { 200: systemSettingsOut },
        body: settingsPatchBody,
      },
      config: admin,
    },
    async (req) => updateSettings(req.ctx, req.body),
  );

  // --- Database operations (backup, restore, wipe) ------------------------------------------

  const config = app.services.config;

  app.post(
    '/api/admin/database/export',
    {
      schema: {
        tags,
        summary: 'Download a backup of all data and files (needs my password)',
        body: exportBody,
      },
      config: admin,
    },
    async (req, reply) => {
      const stream = await exportDatabase(req.ctx, req.body.confirmPassword);
      const stamp = new Date().toISOString().replace(/[:.]/g, '-');
      reply
        .header('Content-Type', 'application/json; charset=utf-8')
        .header('Content-Disposition', `attachment; filename="docket-backup-${stamp}.json"`)
        .header('Cache-Control', 'no-store');
      return reply.send(Readable.from(stream));
    },
  );

  await app.register(async (uploads) => {
    await acceptUploads(uploads);
    uploads.post(
      '/api/admin/database/import',
      {
        schema: {
          tags,
          summary:
            'Replace all data and files with a backup (multipart: file, confirmPassword); signs everyone out',
          consumes: ['multipart/form-data'],
          response: { 200: importResult },
        },
        // The wipe's new administrator may restore a backup before choosing a password: the import
        // replaces that account anyway.
        config: { ...admin, beforePasswordChange: true },
      },
      async (req, reply) => {
        if (!req.isMultipart()) throw badRequest(ERR.noFile);
        const tmpDir = path.join(config.dataDir, 'tmp');
        await fsp.mkdir(tmpDir, { recursive: true });
        const upload = path.join(tmpDir, `upload-${randomBytes(8).toString('hex')}.json`);
        try {
          // The password is checked when the file part begins, before a byte of it is written to
          // disk (issue 19, finding 5): the form must send confirmPassword before the file.
          let confirmPassword: string | null = null;
          let who: ConfirmedAdmin | null = null;
          let received = false;
          const parts = req.parts({
            limits: { fileSize: config.backupMaxBytes, files: 1, fields: 10, parts: 12 },
          });
          try {
            for await (const part of parts) {
              if (part.type === 'file') {
                if (part.fieldname !== 'file' || received) {
                  part.file.resume();
                  continue;
                }
                if (!confirmPassword) {
                  part.file.resume();
                  throw invalidField('confirmPassword', 'Required, before the file');
                }
                who = await confirm(req.ctx, confirmPassword, 'database import');
                await pipeline(part.file, fs.createWriteStream(upload));
                received = true;
              } else if (part.fieldname === 'confirmPassword' && typeof part.value === 'string') {
                confirmPassword = part.value;
              }
            }
          } catch (err) {
            // A body cut short or not multipart at all is the client's fault (it was a 500); limits keep
            // their own status, and a failing disk stays a server error.
            const e = err as { statusCode?: number; code?: string; syscall?: string };
            if (err instanceof AppError || e.statusCode || e.syscall) throw err;
            throw invalidField('file', 'The upload ended early or is not valid multipart data');
          }
          if (!received) {
            if (!confirmPassword) throw invalidField('confirmPassword', 'Required');
            throw badRequest(ERR.noFile);
          }
          if (!who) throw invalidField('confirmPassword', 'Required');
          const result = await importDatabase(req.ctx, upload, who);
          for (const userId of result.endedSessionsOf) app.sessionEnded({ userId });
          clearSessionCookie(reply, config);
          return { success: true, imported: result.imported };
        } finally {
          await fsp.rm(upload, { force: true });
        }
      },
    );
  });

  app.post(
    '/api/admin/database/wipe',
    {
      schema: {
        tags,
        summary:
          "Delete all data and files; creates the administrator 'admin' (needs my password and 'wipe all data')",
        body: wipeBody,
        response: { 200: wipeResult },
      },
      config: admin,
    },
    async (req, reply) => {
      const { credentials, endedSessionsOf } = await wipeDatabase(req.ctx, req.body.confirmPassword);
      for (const userId of endedSessionsOf) app.sessionEnded({ userId });
      clearSessionCookie(reply, config);
      return { success: true, newAdminCredentials: credentials };
    },
  );

  app.post(
    '/api/admin/database/wipe-projects',
    {
      schema: {
        tags,
        summary:
          'Delete every project with its tickets, sprints and files; keeps users and settings (needs my password)',
        body: wipeProjectsBody,
        response: { 200: wipeProjectsResult },
      },
      config: admin,
    },
    async (req) => ({ success: true, wiped: await wipeProjects(req.ctx, req.body.confirmPassword) }),
  );
};
