/**
 * The fixed value lists of the API, as plain constants (no zod here, so the web app's first load
 * does not carry the schema library for them); the schemas in tickets.ts are built from them.
 */

/** HTTP ticket types, in their output spelling (DECISIONS section 2). */
export const TICKET_TYPES = ['Story', 'Task', 'Bug', 'Subtask', 'Epic'] as const;
export type TicketType = (typeof TICKET_TYPES)[number];

/** HTTP priorities, lowest to highest, in their output spelling. */
export const PRIORITIES = ['Lowest', 'Low', 'Medium', 'High', 'Highest', 'Critical'] as const;
export type Priority = (typeof PRIORITIES)[number];

/** Link types as seen from the ticket in the path, and their inverses. */
export const LINK_TYPES = [
  'blocks',
  'is_blocked_by',
  'relates_to',
  'duplicates',
  'is_duplicated_by',
] as const;
export type LinkType = (typeof LINK_TYPES)[number];
export const INVERSE_LINK: Record<LinkType, LinkType> = {
  blocks: 'is_blocked_by',
  is_blocked_by: 'blocks',
  relates_to: 'relates_to',
  duplicates: 'is_duplicated_by',
  is_duplicated_by: 'duplicates',
};
