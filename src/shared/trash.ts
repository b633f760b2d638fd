/** The trash of deleted tickets and its undo (docs/decisions/048-trash-and-undo.md). */
import { z } from 'zod';
import { idParam, paging, userSummaryOut } from './common.js';
import { ticketFullOut } from './tickets.js';

/** How long a deleted ticket stays in the trash before it is purged. */
export const TRASH_DAYS = 30;

export const trashParams = z.object({ projectId: idParam, trashId: idParam });
export const trashQuery = paging.extend({
  /** Only the entry of this ticket: its key (`WEB-12`) or id. */
  ticket: z.string().trim().min(1).max(64).optional(),
});

export const trashedTicketOut = z.object({
  id: z.string(),
  ticketId: z.string(),
  key: z.string(),
  title: z.string(),
  type: z.string(),
  deletedBy: userSummaryOut.nullable(),
  deletedAt: z.string(),
  /** When the periodic job removes it for good. */
  purgeAt: z.string(),
});
export type TrashedTicketOut = z.infer<typeof trashedTicketOut>;

/** GET /api/projects/:projectId/trash: newest first. */
export const trashListOut = z.object({ items: z.array(trashedTicketOut), total: z.number().int() });

/** POST …/trash/:trashId/restore: the ticket as it is back, and what could not be put back as it was. */
export const restoreOut = z.object({ ticket: ticketFullOut, notes: z.array(z.string()) });
export type RestoreOut = z.infer<typeof restoreOut>;

/** DELETE …/tickets/:ticketId: the trash entry the ticket went to (what an undo restores). */
export const ticketDeleteOut = z.object({ success: z.literal(true), trashId: z.string() });
