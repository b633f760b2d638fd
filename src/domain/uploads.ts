import { FILE_KINDS, type FileKind, isSafeStoredName } from '../files/storage.js';
import { storeReceived } from '../files/uploads.js';
import {
  discardReceived,
  FileRejected,
  receiveFile,
  type UploadRules,
  type UploadSource,
  uploadRules,
} from '../files/validate.js';
import { ERR } from '../shared/errors.js';
import { isMember } from './access.js';
import { actorOf, type Ctx } from './context.js';
import { badRequest, notFound } from './errors.js';
import { newId, nowIso } from './ids.js';
import { getSettings } from './settings.js';
import { shownToMember } from './upload-refs.js';

/** GET /api/upload: the upload configuration read model, from the system settings. */
export async function getUploadConfig(ctx: Ctx) {
  const rules = uploadRules(await getSettings(ctx));
  return {
    maxImageSize: rules.maxSize.image,
    maxVideoSize: rules.maxSize.video,
    maxDocumentSize: rules.maxSize.document,
    allowedTypes: {
      image: [...rules.allowed.image],
      video: [...rules.allowed.video],
      document: [...rules.allowed.document],
    },
  };
}

/** Bytes of attachments and uploaded files the user has stored (avatars are not counted). */
async function storedBy(ctx: Ctx, userId: string): Promise<number> {
  const db = ctx.db.kysely;
  const [a, u] = await Promise.all([
    db
      .selectFrom('attachments')
      .select((e) => e.fn.sum<number | string | null>('size').as('n'))
      .where('uploader_id', '=', userId)
      .executeTakeFirst(),
    db
      .selectFrom('uploads')
      .select((e) => e.fn.sum<number | string | null>('size').as('n'))
      .where('uploader_id', '=', userId)
      .executeTakeFirst(),
  ]);
  return Number(a?.n ?? 0) + Number(u?.n ?? 0);
}

/**
 * The per-user upload quota (DOCKET_UPLOAD_QUOTA_BYTES, 0 for none): checked before the file is
 * read, and with its size once it is. Uploads running at the same moment may pass it together by
 * at most their own sizes.
 */
async function checkQuota(ctx: Ctx, adding: number) {
  const quota = ctx.config.uploadQuotaBytes;
  if (quota <= 0) return;
  const used = await storedBy(ctx, actorOf(ctx).userId);
  if (used + adding > quota || (adding === 0 && used >= quota))
    throw badRequest(ERR.uploadQuota, { quota, used });
}

/**
 * Receives an upload checked by `rules`; a refused file is a 400 with the rule's text and facts.
 * With `quota`, the user's upload quota is checked before and after reading.
 */
export async function receiveChecked(ctx: Ctx, source: UploadSource, rules: UploadRules, quota = false) {
  if (quota) await checkQuota(ctx, 0);
  let file: Awaited<ReturnType<typeof receiveFile>>;
  try {
    file = await receiveFile(ctx.files, source, rules);
  } catch (err) {
    if (err instanceof FileRejected) throw badRequest(err.reason, err.facts);
    throw err;
  }
  if (quota) {
    try {
      await checkQuota(ctx, file.size);
    } catch (err) {
      await discardReceived(file);
      throw err;
    }
  }
  return file;
}

/** POST /api/upload: a checked file under /uploads/files, recorded with its original name. */
export async function uploadFile(ctx: Ctx, source: UploadSource) {
  const actor = actorOf(ctx);
  const file = await receiveChecked(ctx, source, uploadRules(await getSettings(ctx)), true);
  return storeReceived(ctx.files, file, 'files', async (storedName) => {
    await ctx.db.kysely
      .insertInto('uploads')
      .values({
        id: newId(),
        uploader_id: actor.userId,
        filename: file.filename,
        mime_type: file.mimeType,
        size: file.size,
        stored_name: storedName,
        created_at: nowIso(),
      })
      .execute();
    return {
      url: `/uploads/files/${storedName}`,
      filename: file.filename,
      mimeType: file.mimeType,
      size: file.size,
    };
  });
}

export interface ServedFile {
  kind: FileKind;
  name: string;
  mimeType: string;
  /** The name offered for downloads: the original file name (avatars: the stored name). */
  filename: string;
}

/**
 * The record behind `/uploads/<kind>/<name>`, if the caller may read it: avatars are for every
 * signed-in user; attachments for members of their project (and system administrators); uploaded
 * files for the members of the projects whose tickets, comments or templates show them, their
 * uploader and system administrators (src/domain/upload-refs.ts). Anything else, unknown names
 * included, is 404 so nothing is revealed.
 */
export async function findServedFile(ctx: Ctx, kind: string, name: string): Promise<ServedFile> {
  const actor = actorOf(ctx);
  const db = ctx.db.kysely;
  if (!(FILE_KINDS as readonly string[]).includes(kind) || !isSafeStoredName(name)) throw notFound();
  if (kind === 'avatars') {
    const user = await db.selectFrom('users').select('id').where('avatar', '=', name).executeTakeFirst();
    if (!user) throw notFound();
    return { kind, name, mimeType: 'image/webp', filename: name };
  }
  if (kind === 'files') {
    const row = await db
      .selectFrom('uploads')
      .select(['id', 'uploader_id', 'mime_type', 'filename'])
      .where('stored_name', '=', name)
      .executeTakeFirst();
    if (!row) throw notFound();
    // Its uploader, administrators by session, and members of a project that shows it (upload-refs.ts).
    const mayRead =
      actor.isSystemAdmin ||
      row.uploader_id === actor.userId ||
      (await shownToMember(db, row.id, actor.userId));
    if (!mayRead) throw notFound();
    return { kind, name, mimeType: row.mime_type, filename: row.filename };
  }
  const row = await db
    .selectFrom('attachments')
    .innerJoin('tickets', 'tickets.id', 'attachments.ticket_id')
    .select(['attachments.mime_type', 'attachments.filename', 'tickets.project_id'])
    .where('attachments.stored_name', '=', name)
    .executeTakeFirst();
  if (!row) throw notFound();
  if (!actor.isSystemAdmin && !(await isMember(db, row.project_id, actor.userId))) throw notFound();
  return { kind: 'attachments', name, mimeType: row.mime_type, filename: row.filename };
}
