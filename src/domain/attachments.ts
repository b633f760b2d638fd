import { sql } from 'kysely';
import { removeStoredFiles, storeReceived } from '../files/uploads.js';
import { type UploadSource, uploadRules } from '../files/validate.js';
import { ERR } from '../shared/errors.js';
import { projectAccess, roleAtLeast, ticketInProject } from './access.js';
import { type Ctx, type Services, type Tx, transact } from './context.js';
import { badRequest, forbidden, notFound } from './errors.js';
import { newId, nowIso } from './ids.js';
import { pageOf } from './paging.js';
import { type AttachmentRow, presentAttachment } from './presenters/attachments.js';
import { getSettings } from './settings.js';
import { receiveChecked } from './uploads.js';

/** Attachments joined with their uploader's public fields, oldest first. */
function attachmentsQuery(db: Tx) {
  return db
    .selectFrom('attachments')
    .leftJoin('users', 'users.id', 'attachments.uploader_id')
    .selectAll('attachments')
    .select([
      'users.id as u_id',
      'users.username as u_username',
      'users.name as u_name',
      'users.avatar as u_avatar',
    ]);
}

async function countAttachments(db: Tx, ticketId: string): Promise<number> {
  const row = await db
    .selectFrom('attachments')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('ticket_id', '=', ticketId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** GET …/tickets/[ticketId]/attachments: members only, oldest first, with the full count. */
export async function listAttachments(
  ctx: Ctx,
  projectRef: string,
  ticketRef: string,
  page: { limit?: number; offset?: number },
) {
  const db = ctx.db.kysely;
  const { project } = await projectAccess(ctx, db, projectRef);
  const ticket = await ticketInProject(db, project, ticketRef);
  const { limit, offset } = pageOf(page);
  const rows = (await attachmentsQuery(db)
    .where('attachments.ticket_id', '=', ticket.id)
    .orderBy('attachments.created_at')
    .orderBy('attachments.id')
    .limit(limit)
    .offset(offset)
    .execute()) as AttachmentRow[];
  return { items: rows.map(presentAttachment), total: await countAttachments(db, ticket.id) };
}

/**
 * Serialises attachment inserts of one ticket, so that concurrent uploads cannot pass the
 * per-ticket limit together: the ticket row's lock on PostgreSQL; SQLite has one writer anyway.
 * Also tells whether the ticket still exists.
 */
async function lockTicket(s: Pick<Services, 'db'>, tx: Tx, ticketId: string): Promise<boolean> {
  const row =
    s.db.dialect === 'postgres'
      ? (await sql<{ id: string }>`select id from tickets where id = ${ticketId} for update`.execute(tx))
          .rows[0]
      : await tx.selectFrom('tickets').select('id').where('id', '=', ticketId).executeTakeFirst();
  return !!row;
}

/**
 * POST …/tickets/[ticketId]/attachments. Access and the per-ticket limit are checked before the
 * upload is read; the limit again, under the ticket's lock, when the row is inserted.
 */
export async function addAttachment(ctx: Ctx, projectRef: string, ticketRef: string, source: UploadSource) {
  const db = ctx.db.kysely;
  const { project, actor } = await projectAccess(ctx, db, projectRef);
  const ticket = await ticketInProject(db, project, ticketRef);
  const settings = await getSettings(ctx);
  if ((await countAttachments(db, ticket.id)) >= settings.maxAttachmentsPerTicket)
    throw badRequest(ERR.attachmentLimit);

  const file = await receiveChecked(ctx, source, uploadRules(settings), true);
  return storeReceived(ctx.files, file, 'attachments', (storedName) =>
    transact(ctx, async (tx, emit) => {
      if (!(await lockTicket(ctx, tx, ticket.id))) throw notFound(ERR.ticketNotFound);
      if ((await countAttachments(tx, ticket.id)) >= settings.maxAttachmentsPerTicket)
        throw badRequest(ERR.attachmentLimit);
      const id = newId();
      await tx
        .insertInto('attachments')
        .values({
          id,
          ticket_id: ticket.id,
          uploader_id: actor.userId,
          filename: file.filename,
          mime_type: file.mimeType,
          size: file.size,
          stored_name: storedName,
          created_at: nowIso(),
        })
        .execute();
      const row = (await attachmentsQuery(tx)
        .where('attachments.id', '=', id)
        .executeTakeFirstOrThrow()) as AttachmentRow;
      const attachment = presentAttachment(row);
      emit({
        scope: 'project',
        type: 'attachment.added',
        projectId: project.id,
        data: { ...attachment, ticketId: ticket.id },
      });
      return attachment;
    }),
  );
}

/**
 * DELETE …/attachments/[attachmentId]: the uploader, or a project admin or owner (403 for other
 * members). The row goes in the transaction, the file right after the commit.
 */
export async function deleteAttachment(
  ctx: Ctx,
  projectRef: string,
  ticketRef: string,
  attachmentId: string,
) {
  const storedName = await transact(ctx, async (tx, emit) => {
    const { project, role, actor } = await projectAccess(ctx, tx, projectRef);
    const ticket = await ticketInProject(tx, project, ticketRef);
    const row = await tx
      .selectFrom('attachments')
      .select(['id', 'uploader_id', 'stored_name'])
      .where('id', '=', attachmentId.toLowerCase())
      .where('ticket_id', '=', ticket.id)
      .executeTakeFirst();
    if (!row) throw notFound(ERR.attachmentNotFound);
    if (row.uploader_id !== actor.userId && !roleAtLeast(role, 'admin')) throw forbidden();
    await tx.deleteFrom('attachments').where('id', '=', row.id).execute();
    emit({
      scope: 'project',
      type: 'attachment.deleted',
      projectId: project.id,
      data: { id: row.id, ticketId: ticket.id },
    });
    return row.stored_name;
  });
  await removeStoredFiles(ctx, 'attachments', [storedName]);
  return { success: true as const };
}
