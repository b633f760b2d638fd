import type { Kysely } from 'kysely';
import { recordUploadRefsFromText } from '../upload-refs.js';

/**
 * Where uploaded files are shown (issue 49, docs/decisions/058-trust-findings.md): one row per
 * (file, place), the place being a ticket's description, a comment or a ticket template's
 * description, with the place's project. `GET /uploads/files/:name` lets in the members of those
 * projects and the file's uploader, no longer every signed-in user. Each row goes with its place
 * (foreign keys that cascade). The files the existing texts show are recorded here, once.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('upload_refs')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('upload_id', 'text', (c) => c.notNull().references('uploads.id').onDelete('cascade'))
    .addColumn('project_id', 'text', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('ticket_id', 'text', (c) => c.references('tickets.id').onDelete('cascade'))
    .addColumn('comment_id', 'text', (c) => c.references('comments.id').onDelete('cascade'))
    .addColumn('template_id', 'text', (c) => c.references('ticket_templates.id').onDelete('cascade'))
    .execute();
  // The file route's question (is it shown in a project of mine?) and the cascades' look-ups.
  await db.schema
    .createIndex('upload_refs_upload_idx')
    .on('upload_refs')
    .columns(['upload_id', 'project_id'])
    .execute();
  await db.schema.createIndex('upload_refs_ticket_idx').on('upload_refs').column('ticket_id').execute();
  await db.schema.createIndex('upload_refs_comment_idx').on('upload_refs').column('comment_id').execute();
  await db.schema.createIndex('upload_refs_template_idx').on('upload_refs').column('template_id').execute();
  await recordUploadRefsFromText(db);
}
