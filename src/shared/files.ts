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
