import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { FastifyPluginAsyncZod, ZodTypeProvider } from 'fastify-type-provider-zod';
import { requireProjectAccess } from '../../domain/access.js';
import { AppError, badRequest, invalidField } from '../../domain/errors.js';
import { exportCsv, exportTickets } from '../../domain/imports/export.js';
import { importTickets } from '../../domain/imports/run.js';
import { ERR } from '../../shared/errors.js';
import { exportRowOut, importFields, importResult } from '../../shared/imports.js';
import { projectParams } from '../../shared/projects.js';
import { ticketListQuery } from '../../shared/tickets.js';
import { acceptUploads } from '../multipart.js';

const tags = ['Imports and export'];

/** Imports from other trackers and the ticket export (docs/import.md). */
export const importsRoutes: FastifyPluginAsyncZod = async (app) => {
  const { config } = app.services;

  for (const format of ['csv', 'json'] as const)
    app.get(
      `/api/projects/:projectId/tickets.${format}`,
      {
        schema: {
          tags,
          summary: `The ticket list (same filters and query= as the list) as a ${format.toUpperCase()} download`,
          params: projectParams,
          querystring: ticketListQuery,
          ...(format === 'json' ? { response: { 200: exportRowOut.array() } } : {}),
          produces: [format === 'csv' ? 'text/csv' : 'application/json'],
        },
      },
      async (req, reply) => {
        const { project, rows } = await exportTickets(req.ctx, req.params.projectId, req.query);
        reply
          .header('Content-Disposition', `attachment; filename="${project.key}-tickets.${format}"`)
          .header('Cache-Control', 'no-store')
          .header('X-Total-Count', String(rows.length));
        if (format === 'json') return rows;
        return reply.type('text/csv; charset=utf-8').send(exportCsv(rows));
      },
    );

  await app.register(async (uploads) => {
    await acceptUploads(uploads);
    uploads.withTypeProvider<ZodTypeProvider>().post(
      '/api/projects/:projectId/imports',
      {
        schema: {
          tags,
          summary:
            'Import tickets from a file (multipart: file, format, mapping?, dryRun?) — project admins and owners',
          consumes: ['multipart/form-data'],
          params: projectParams,
          response: { 200: importResult },
        },
      },
      async (req) => {
        // Rights first: nobody who may not import gets a byte of the file written to disk.
        await requireProjectAccess(req.ctx, req.params.projectId, 'admin');
        if (!req.isMultipart()) throw badRequest(ERR.noFile);
        const tmpDir = path.join(config.dataDir, 'tmp');
        await fsp.mkdir(tmpDir, { recursive: true });
        const upload = path.join(tmpDir, `import-${randomBytes(8).toString('hex')}`);
        try {
          const fields: Record<string, string> = {};
          let received = false;
          try {
            for await (const part of req.parts({
              limits: { fileSize: config.importMaxBytes, files: 1, fields: 10, parts: 12 },
            })) {
              if (part.type === 'file') {
                if (part.fieldname !== 'file' || received) {
                  part.file.resume();
                  continue;
                }
                await pipeline(part.file, fs.createWriteStream(upload));
                received = true;
              } else if (typeof part.value === 'string') fields[part.fieldname] = part.value;
            }
          } catch (err) {
            const e = err as { statusCode?: number; syscall?: string };
            if (err instanceof AppError || e.syscall) throw err;
            if (e.statusCode === 413) throw new AppError(413, ERR.bodyTooLarge);
            throw invalidField('file', 'The upload ended early or is not valid multipart data');
          }
          const parsed = importFields.safeParse(fields);
          if (!parsed.success)
            throw badRequest(ERR.validation, {
              details: parsed.error.issues.map((i) => ({ path: i.path.join('.'), message: i.message })),
            });
          if (!received) throw badRequest(ERR.noFile);
          const { size } = await fsp.stat(upload);
          return await importTickets(req.ctx, req.params.projectId, {
            format: parsed.data.format,
            mapping: parsed.data.mapping,
            dryRun: parsed.data.dryRun,
            file: upload,
            fileSize: size,
          });
        } finally {
          await fsp.rm(upload, { force: true });
        }
      },
    );
  });
};
