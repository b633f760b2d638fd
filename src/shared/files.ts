import { z } from 'zod';

/** GET /api/upload/config: size limits in bytes and the allowed MIME types by kind. */
export const uploadConfigOut = z.object({
  maxImageSize: z.number().int(),
  maxVideoSize: z.number().int(),
  maxDocumentSize: z.number().int(),
  allowedTypes: z.object({
    image: z.array(z.string()),
    video: z.array(z.string()),
    document: z.array(z.string()),
  }),
});
export type UploadConfigOut = z.infer<typeof uploadConfigOut>;

/** A stored upload (POST /api/upload). */
export const uploadOut = z.object({
  url: z.string(),
  filename: z.string(),
  mimeType: z.string(),
  size: z.number().int(),
});

/** POST /api/me/avatar: the new avatar's URL. */
export const avatarOut = z.object({ avatar: z.string().nullable() });

/** The path under which uploaded files are served (after any base path). */
export const UPLOAD_FILES_PATH = '/uploads/files/';

/**
 * The stored names of uploaded files (`POST /api/upload`) that Markdown shows: every
 * `/uploads/files/<name>` in the text, whatever comes before it (a base path, a whole URL).
 * What it finds decides who may read those files (docs/security.md, "Uploaded files").
 */
export function uploadNamesIn(text: string | null | undefined): string[] {
  if (!text?.includes(UPLOAD_FILES_PATH)) return [];
  const names = new Set<string>();
  for (const m of text.matchAll(
    /\/uploads\/files\/([0-9]{1,20}-[0-9a-f]{1,64}(?:\.[a-z0-9]{1,10})?)(?![a-z0-9])/g,
  ))
    names.add(m[1]);
  return [...names];
}
