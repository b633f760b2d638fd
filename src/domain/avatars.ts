import { sql } from 'kysely';
import type { UsersTable } from '../db/types.js';
import { generateStoredName } from '../files/storage.js';
import { removeStoredFiles } from '../files/uploads.js';
import { AVATAR_RULES, allowedList, discardReceived, type UploadSource } from '../files/validate.js';
import { ERR } from '../shared/errors.js';
import { LIMITS } from '../shared/limits.js';
import { type Ctx, type Services, type Tx, transact } from './context.js';
import { badRequest, notFound } from './errors.js';
import { nowIso } from './ids.js';
import { avatarUrl, presentUserSummary } from './presenters/users.js';
import { receiveChecked } from './uploads.js';

/** Pixels an avatar source may have (a decompression bomb stops here instead of filling memory). */
const MAX_SOURCE_PIXELS = 50_000_000;

/**
 * The avatar image: 256x256, centre-cropped, WebP. The EXIF orientation is applied first; no
 * metadata (EXIF, ICC, XMP) is written. An animated GIF or WebP gives its first frame.
 */
export async function renderAvatar(input: string | Buffer): Promise<Buffer> {
  const size = LIMITS.avatarSize;
  // Loaded with the first avatar: its image library is several megabytes of every server's resident
  // memory otherwise (decision 052), for something a user does once.
  const { default: sharp } = await import('sharp');
  return sharp(input, { failOn: 'error', limitInputPixels: MAX_SOURCE_PIXELS, animated: false })
    .rotate()
    .resize(size, size, { fit: 'cover', position: 'centre' })
    .webp({ quality: 85 })
    .toBuffer();
}

/** The user's row, locked on PostgreSQL so that concurrent avatar changes see each other's file. */
async function lockUser(s: Pick<Services, 'db'>, tx: Tx, userId: string): Promise<UsersTable> {
  if (s.db.dialect === 'postgres')
    await sql`select id from users where id = ${userId} for update`.execute(tx);
  const user = await tx.selectFrom('users').selectAll().where('id', '=', userId).executeTakeFirst();
  if (!user) throw notFound(ERR.userNotFound);
  return user;
}

const userUpdated = (u: UsersTable) =>
  ({ scope: 'user', type: 'user.updated', userId: u.id, data: presentUserSummary(u) }) as const;

/** Sets the avatar and returns the previous stored name (removed by the caller after the commit). */
async function setAvatarName(ctx: Ctx, userId: string, name: string | null): Promise<string | null> {
  return transact(ctx, async (tx, emit) => {
    const user = await lockUser(ctx, tx, userId);
    if (user.avatar === name) return null;
    await tx
      .updateTable('users')
      .set({ avatar: name, updated_at: nowIso() })
      .where('id', '=', userId)
      .execute();
    emit(userUpdated({ ...user, avatar: name }));
    return user.avatar;
  });
}

/** POST /api/me/avatar: JPEG, PNG, GIF or WebP up to 2 MB, stored as a 256x256 WebP; the old file goes. */
export async function setAvatar(ctx: Ctx, userId: string, source: UploadSource) {
  const file = await receiveChecked(ctx, source, AVATAR_RULES);
  let webp: Buffer;
  try {
    webp = await renderAvatar(file.tempPath);
  } catch {
    throw badRequest(ERR.fileTypeNotAllowed, { allowed: allowedList(AVATAR_RULES) });
  } finally {
    await discardReceived(file);
  }
  const name = generateStoredName('webp');
  await ctx.files.write('avatars', name, webp);
  let previous: string | null;
  try {
    previous = await setAvatarName(ctx, userId, name);
  } catch (err) {
    await ctx.files.remove('avatars', name).catch(() => {});
    throw err;
  }
  if (previous) await removeStoredFiles(ctx, 'avatars', [previous]);
  return { avatar: avatarUrl(name) };
}

/** DELETE /api/me/avatar: back to no avatar; the file goes. */
export async function removeAvatar(ctx: Ctx, userId: string) {
  const previous = await setAvatarName(ctx, userId, null);
  if (previous) await removeStoredFiles(ctx, 'avatars', [previous]);
  return { success: true as const };
}
