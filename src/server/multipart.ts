import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError, badRequest } from '../domain/errors.js';
import type { UploadSource } from '../files/validate.js';
import { ERR } from '../shared/errors.js';

/**
 * The request's file as an UploadSource: the first file part of a multipart body, or undefined
 * when the body is not multipart or holds no file. Parser failures become 400 (413 for its limits).
 */
export function multipartSource(req: FastifyRequest): UploadSource {
  return async ({ maxFileBytes }) => {
    if (!req.isMultipart()) return undefined;
    try {
      const part = await req.file({ throwFileSizeLimit: false, limits: { fileSize: maxFileBytes } });
      return part ? { filename: part.filename, mimetype: part.mimetype, file: part.file } : undefined;
    } catch (err) {
      if (err instanceof AppError) throw err;
      if ((err as { statusCode?: number }).statusCode === 413) throw new AppError(413, ERR.bodyTooLarge);
      throw badRequest(ERR.validation, {
        details: [{ path: 'file', message: 'The body is not valid multipart data' }],
      });
    }
  };
}

/**
 * An upload route that answers before the whole body arrived (refused early, or cut off far past
 * the limit) closes the connection, so the rest of the body is not read for nothing.
 */
export function closeUnfinishedUploads(app: FastifyInstance) {
  app.addHook('onSend', async (req, reply, payload) => {
    if (req.isMultipart() && !req.raw.complete) reply.header('Connection', 'close');
    return payload;
  });
}
