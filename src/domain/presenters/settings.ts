import type { SystemSettingsTable } from '../../db/types.js';
import type { SystemSettings } from '../../shared/accounts.js';

/** The system settings (GET /api/admin/settings, the upload rules). */
export const presentSettings = (r: SystemSettingsTable): SystemSettings => ({
  id: r.id,
  maxImageSize: Number(r.max_image_size),
  maxVideoSize: Number(r.max_video_size),
  maxDocumentSize: Number(r.max_document_size),
  maxAttachmentsPerTicket: Number(r.max_attachments_per_ticket),
  allowedImageTypes: JSON.parse(r.allowed_image_types),
  allowedVideoTypes: JSON.parse(r.allowed_video_types),
  allowedDocumentTypes: JSON.parse(r.allowed_document_types),
});
