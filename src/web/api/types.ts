/**
 * The API's shapes as the web app uses them: every one is inferred from the zod schemas of
 * src/shared (the one source of each contract), never written out here.
 */
import type { z } from 'zod';
import type {
  AdminUserOut,
  ApiKeyStatusOut,
  MeOut,
  SessionUserOut,
  SystemSettings as SystemSettingsOut,
  signedInOut,
} from '../../shared/accounts.js';
import type { PersonOut, UserSummaryOut } from '../../shared/common.js';
import type { LinkType } from '../../shared/enums.js';
import type { UploadConfigOut } from '../../shared/files.js';
import type { ColumnOut, LabelOut, MemberOut, ProjectOut } from '../../shared/projects.js';
import type {
  burndownOut,
  completeSprintOut,
  sprintOut,
  sprintSettingsOut,
  velocityOut,
} from '../../shared/sprints.js';
import type {
  AttachmentOut,
  CommentOut,
  HistoryEntryOut,
  LinkOut,
  TicketFullOut,
  TicketListItemOut,
} from '../../shared/tickets.js';

export {
  LINK_TYPES,
  type LinkType,
  PRIORITIES,
  type Priority,
  TICKET_TYPES,
  type TicketType,
} from '../../shared/enums.js';

/** How the web app words each link type. */
export const LINK_LABELS: Record<LinkType, string> = {
  blocks: 'blocks',
  is_blocked_by: 'is blocked by',
  relates_to: 'relates to',
  duplicates: 'duplicates',
  is_duplicated_by: 'is duplicated by',
};

export type SessionUser = SessionUserOut;
/** GET /api/auth/session: `{}` when signed out. */
export type Session = Partial<z.infer<typeof signedInOut>>;
export type Person = PersonOut;
export type UserSummary = UserSummaryOut;
export type Project = ProjectOut;
export type Column = ColumnOut;
export type Member = MemberOut;
export type Label = LabelOut;
export type SprintFull = z.infer<typeof sprintOut>;
export type Sprint = SprintFull;
export type TicketLink = LinkOut;
export type TicketLinkRef = LinkOut['ticket'];
/** A ticket of the list (board, backlog). */
export type Ticket = TicketListItemOut;
export type FullTicket = TicketFullOut;
export type Comment = CommentOut;
export type Attachment = AttachmentOut;
export type HistoryEntry = HistoryEntryOut;
export type UploadConfig = UploadConfigOut;
export type SprintSettings = z.infer<typeof sprintSettingsOut>;
export type CompleteResult = z.infer<typeof completeSprintOut>;
export type Burndown = z.infer<typeof burndownOut>;
export type Velocity = z.infer<typeof velocityOut>;
export type Me = MeOut;
export type KeyStatus = ApiKeyStatusOut;
export type AdminUser = AdminUserOut;
export type SystemSettings = SystemSettingsOut;
