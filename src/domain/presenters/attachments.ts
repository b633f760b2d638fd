import type { AttachmentsTable } from '../../db/types.js';
import type { AttachmentOut } from '../../shared/tickets.js';
import { presentAuthor } from './users.js';

/** An attachment row with its uploader's public fields (null when the uploader was deleted). */
export type AttachmentRow = AttachmentsTable & {
  u_id: string | null;
  u_username: string | null;
  u_name: string | null;
  u_avatar: string | null;
};

export const attachmentUrl = (storedName: string) => `/uploads/attachments/${storedName}`;

/** {id, filename, mimeType, size, url, createdAt, uploader}; never the stored name alone or the uploader row. */
export const presentAttachment = (r: AttachmentRow): AttachmentOut => ({
  id: r.id,
  filename: r.filename,
  mimeType: r.mime_type,
  size: Number(r.size),
  url: attachmentUrl(r.stored_name),
  createdAt: r.created_at,
  uploader: presentAuthor(r.u_id, r.u_username, r.u_name, r.u_avatar),
});
