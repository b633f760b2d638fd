import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { removeAvatar, setAvatar } from '../../domain/avatars.js';
import { actorOf } from '../../domain/context.js';
import { findServedFile, getUploadConfig, uploadFile } from '../../domain/uploads.js';
import { successResponse } from '../../shared/common.js';
import { avatarOut, uploadConfigOut, uploadOut } from '../../shared/files.js';
import { acceptUploads, multipartSource } from '../multipart.js';
import { sendStoredFile } from '../send-file.js';

const multipart = { consumes: ['multipart/form-data'] };

/** Uploads (POST /api/upload), avatars, and serving stored files under /uploads. */
export const filesRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/api/upload',
    {
      schema: {
        tags: ['Files'],
        summary: 'Upload configuration: size limits and allowed types',
        response: { 200: uploadConfigOut },
      },
    },
    async (req) => getUploadConfig(req.ctx),
  );

  await app.register(async (uploads) => {
    await acceptUploads(uploads);
    uploads.post(
      '/api/upload',
      {
        schema: {
          tags: ['Files'],
          summary:
            'Upload a file (multipart/form-data, field file); checked by type, extension, content and size',
          response: { 201: uploadOut },
          ...multipart,
        },
      },
      async (req, reply) => reply.status(201).send(await uploadFile(req.ctx, multipartSource(req))),
    );

    uploads.post(
      '/api/me/avatar',
      {
        schema: {
          tags: ['Current user'],
          summary:
            'Set my avatar (multipart/form-data, field file: JPEG, PNG, GIF or WebP up to 2 MB); stored as 256x256 WebP',
          response: { 200: avatarOut },
          ...multipart,
        },
      },
      async (req) => setAvatar(req.ctx, actorOf(req.ctx).userId, multipartSource(req)),
    );
  });

  app.delete(
    '/api/me/avatar',
    { schema: { tags: ['Current user'], summary: 'Remove my avatar', response: { 200: successResponse } } },
    async (req) => removeAvatar(req.ctx, actorOf(req.ctx).userId),
  );

  app.get(
    '/uploads/:kind/:name',
    {
      schema: { hide: true, params: z.object({ kind: z.string(), name: z.string() }) },
      config: { auth: 'user' },
      // Stored files keep their bytes, ETag and byte ranges as stored (docs/decisions/045).
      compress: false,
    },
    async (req, reply) => {
      const file = await findServedFile(req.ctx, req.params.kind, req.params.name);
      return sendStoredFile(req, reply, req.ctx.files, file);
    },
  );
};
