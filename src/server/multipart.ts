import multipart from '@fastify/multipart';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError, badRequest } from '../domain/errors.js';
import { getSettings } from '../domain/settings.js';
import { multipartLimits, type UploadSource, uploadRules } from '../files/validate.js';
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
 * Makes a scope accept multipart uploads: the parser, and the closing of unfinished uploads. Only
 * the upload routes are registered in such a scope: the parser plugin hooks every request of its
 * scope (a listener per response, a clean-up after it) and no other route reads multipart, so
 * elsewhere a multipart body is refused with 415 before anything runs. Uploads stream through the
 * parser, never whole into memory; its per-file cap derives from the largest category limit at
 * start (each upload passes the current one, enforced while streaming by src/files/validate.ts).
 *
 * An upload that is answered before its whole body arrived (refused early, or cut off far past the
 * limit) closes the connection, so the rest of the body is not read for nothing.
 */
export async function acceptUploads(scope: FastifyInstance) {
  await scope.register(multipart, {
    limits: multipartLimits(uploadRules(await getSettings(scope.services))),
  });
  scope.addHook('onSend', (req, reply, payload, done) => {
    if (req.isMultipart() && !req.raw.complete) reply.header('Connection', 'close');
    done(null, payload);
  });
}
