/** Public shapes of the API (SPEC "Resources and their fields", DECISIONS section 5). */

export const TICKET_TYPES = ['Story', 'Task', 'Bug', 'Subtask', 'Epic'] as const;
export type TicketType = (typeof TICKET_TYPES)[number];
export const PRIORITIES = ['Lowest', 'Low', 'Medium', 'High', 'Highest', 'Critical'] as const;
export type Priority = (typeof PRIORITIES)[number];
export const LINK_TYPES = [
  'blocks',
  'is_blocked_by',
  'relates_to',
  'duplicates',
  'is_duplicated_by',
] as const;
export type LinkType = (typeof LINK_TYPES)[number];
export const LINK_LABELS: Record<LinkType, string> = {
  blocks: 'blocks',
  is_blocked_by: 'is blocked by',
  relates_to: 'relates to',
  duplicates: 'duplicates',
  is_duplicated_by: 'is duplicated by',
};

export interface SessionUser {
  id: string;
  username: string;
  name: string | null;
  email: string | null;
  avatar?: string | null;
  isSystemAdmin: boolean;
}
export interface Session {
  user?: SessionUser;
  expires?: string;
}

export interface Person {
  id: string | null;
  name: string;
  avatar: string | null;
}
export interface UserSummary {
  id: string;
  username: string;
  name: string | null;
  avatar: string | null;
}

export interface Project {
  id: string;
  name: string;
  key: string;
  description: string | null;
  color: string;
  createdAt: string;
  updatedAt: string;
  role?: string;
}
export interface Column {
  id: string;
  name: string;
  order: number;
}
export interface Member {
  id: string;
  userId: string;
  projectId: string;
  role: 'owner' | 'admin' | 'member';
  user: UserSummary;
}
export interface Label {
  id: string;
  name: string;
  color: string;
}
export interface Sprint {
  id: string;
  name: string;
  goal: string | null;
  status: 'planning' | 'active' | 'completed';
  startDate: string | null;
  endDate: string | null;
  projectId: string;
}

export interface TicketLinkRef {
  id: string;
  key: string;
  title: string;
  type: TicketType;
  priority: Priority;
  columnId: string;
}
export interface TicketLink {
  id: string;
  linkType: LinkType;
  ticket: TicketLinkRef;
}

export interface Ticket {
  id: string;
  number: number;
  key: string;
  title: string;
  description: string | null;
  type: TicketType;
  priority: Priority;
  order: number;
  columnId: string;
  assigneeId: string | null;
  sprintId: string | null;
  parentId: string | null;
  storyPoints: number | null;
  estimate: string | null;
  startDate: string | null;
  dueDate: string | null;
  environment: string | null;
  affectedVersion: string | null;
  fixVersion: string | null;
  isCarriedOver?: boolean;
  carriedOverCount?: number;
  projectId: string;
  createdAt: string;
  updatedAt: string;
  labelIds?: string[];
  watcherIds?: string[];
  labels?: Label[];
  assignee?: Person | null;
}

export interface FullTicket extends Ticket {
  column: { id: string; name: string } | null;
  assignee: Person | null;
  reporter?: Person | null;
  sprint: { id: string; name: string } | null;
  labels: Label[];
  watchers: { id: string; name: string }[];
  links?: TicketLink[];
  attachmentCount?: number;
  commentCount?: number;
}

export interface Comment {
  id: string;
  content: string;
  author: Person;
  createdAt: string;
  updatedAt: string;
}
export interface Attachment {
  id: string;
  filename: string;
  mimeType: string;
  size: number;
  url: string;
  createdAt: string;
}
export interface HistoryEntry {
  id: string;
  field: string;
  oldValue: string | null;
  newValue: string | null;
  changedBy: { id: string | null; name: string } | null;
  changedAt: string;
}
export interface UploadConfig {
  maxImageSize: number;
  maxVideoSize: number;
  maxDocumentSize: number;
  allowedTypes: { image: string[]; video: string[]; document: string[] };
}
