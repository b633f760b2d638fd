import { z } from 'zod';
import { idParam, isoDate, paging, personOut, text } from './common.js';
import { LINK_TYPES, PRIORITIES, TICKET_TYPES } from './enums.js';
import { LIMITS } from './limits.js';
import { labelOut } from './projects.js';
import { QUERY_MAX_LENGTH } from './search-query.js';

export {
  INVERSE_LINK,
  LINK_TYPES,
  type LinkType,
  PRIORITIES,
  type Priority,
  TICKET_TYPES,
  type TicketType,
} from './enums.js';

/** A value of `values` in any letter case, returned in its canonical spelling. */
function caseless<T extends string>(values: readonly T[]) {
  const byLower = new Map(values.map((v) => [v.toLowerCase(), v]));
  return z
    .string()
    .trim()
    .refine((v) => byLower.has(v.toLowerCase()), `Must be one of ${values.join(', ')}`)
    .transform((v) => byLower.get(v.toLowerCase()) as T);
}

export const ticketType = caseless(TICKET_TYPES);
export const ticketPriority = caseless(PRIORITIES);
export const linkType = caseless(LINK_TYPES);

export const storyPoints = z
  .number()
  .refine(
    (v) => (LIMITS.storyPoints as readonly number[]).includes(v),
    `Must be one of ${LIMITS.storyPoints.join(', ')}`,
  );

const shortField = z
  .string()
  .trim()
  .max(LIMITS.ticketShortFieldMax, `Must be at most ${LIMITS.ticketShortFieldMax} characters`);
const description = z
  .string()
  .max(LIMITS.ticketDescriptionMax, `Must be at most ${LIMITS.ticketDescriptionMax} characters`);
const ref = idParam;
const refList = z.array(idParam).max(200, 'At most 200 entries');

/** Fields settable on creation and by updates (null clears an optional field). */
const ticketFields = {
  description: description.nullable().optional(),
  type: ticketType.optional(),
  priority: ticketPriority.optional(),
  columnId: ref.optional(),
  assigneeId: ref.nullable().optional(),
  sprintId: ref.nullable().optional(),
  parentId: ref.nullable().optional(),
  storyPoints: storyPoints.nullable().optional(),
  estimate: shortField.nullable().optional(),
  startDate: isoDate.nullable().optional(),
  dueDate: isoDate.nullable().optional(),
  environment: shortField.nullable().optional(),
  affectedVersion: shortField.nullable().optional(),
  fixVersion: shortField.nullable().optional(),
  labelIds: refList.optional(),
  watcherIds: refList.optional(),
};

/**
 * A new ticket. With `templateId` (docs/decisions/050-ticket-templates.md) the template's fields
 * fill what the request leaves out, the title included, which is then optional.
 */
export const createTicketBody = z
  .object({ title: text(LIMITS.ticketTitleMax).optional(), ...ticketFields, templateId: ref.optional() })
  .refine((b) => b.title !== undefined || b.templateId !== undefined, {
    message: 'Required (or give templateId)',
    path: ['title'],
  });

/** Only the fields to change; a move sends columnId and/or order (0-based position in the column). */
export const updateTicketBody = z.object({
  title: text(LIMITS.ticketTitleMax).optional(),
  ...ticketFields,
  order: z.number().int('Must be a whole number').min(0, 'Must be 0 or more').optional(),
  /**
   * Change it only if it is unchanged since this `updatedAt` (the web app's undo): 409 otherwise,
   * so an undo never overwrites someone else's later change (decision 048).
   */
  ifUpdatedAt: z.string().max(64).optional(),
});

/** Bulk updates: the same fields without `order` (a changed column puts tickets at its end). */
export const bulkUpdateBody = z.object({
  ticketIds: z
    .array(idParam)
    .min(1, 'Give at least one ticket')
    .max(LIMITS.bulkMax, `At most ${LIMITS.bulkMax} tickets`),
  updates: updateTicketBody.omit({ order: true, ifUpdatedAt: true }),
});

export const bulkDeleteBody = z.object({
  ticketIds: z
    .array(idParam)
    .min(1, 'Give at least one ticket')
    .max(LIMITS.bulkMax, `At most ${LIMITS.bulkMax} tickets`),
});

/** Most values one list filter takes (`type=bug,story`). */
export const FILTER_VALUES_MAX = 50;

/**
 * A list filter with one value or several separated by commas, any of which a ticket may match
 * (`type=bug,story`): each value is checked by `item`, and an error names the value.
 */
export function commaList<T extends z.ZodType<string, string>>(item: T) {
  return z
    .string()
    .max(4000, 'Must be at most 4000 characters')
    .transform((v, ctx): z.output<T>[] => {
      const parts = [...new Set(v.split(',').map((x) => x.trim()))].filter(Boolean);
      if (parts.length === 0) {
        ctx.addIssue({ code: 'custom', message: 'Give at least one value' });
        return z.NEVER;
      }
      if (parts.length > FILTER_VALUES_MAX) {
        ctx.addIssue({ code: 'custom', message: `At most ${FILTER_VALUES_MAX} values` });
        return z.NEVER;
      }
      const out: z.output<T>[] = [];
      for (const part of parts) {
        const r = item.safeParse(part);
        if (!r.success) {
          ctx.addIssue({
            code: 'custom',
            message: `"${part}": ${r.error.issues[0]?.message ?? 'Invalid value'}`,
          });
          return z.NEVER;
        }
        out.push(r.data);
      }
      return out;
    });
}

/**
 * Ticket list filters. `sprintId=none` selects the backlog and `assigneeId=none` unassigned
 * tickets (docs/decisions/014-projects-and-tickets.md). Type, priority, assignee and label take
 * comma lists: a ticket matches any value of a filter and every filter given
 * (docs/decisions/049-swimlanes-and-filters.md).
 */
export const ticketListQuery = z.object({
  sprintId: idParam.optional(),
  columnId: idParam.optional(),
  type: commaList(ticketType).optional(),
  priority: commaList(ticketPriority).optional(),
  assigneeId: commaList(idParam).optional(),
  labelId: commaList(idParam).optional(),
  parentId: idParam.optional(),
  q: z.string().trim().max(200).optional(),
  /** A search query (docs/search.md) within this project. */
  query: z.string().max(QUERY_MAX_LENGTH, `Must be at most ${QUERY_MAX_LENGTH} characters`).optional(),
  ...paging.shape,
});

export const ticketParams = z.object({ projectId: idParam, ticketId: idParam });
export const linkParams = z.object({ projectId: idParam, ticketId: idParam, linkId: idParam });
export const commentParams = z.object({ projectId: idParam, ticketId: idParam, commentId: idParam });

export const createLinkBody = z.object({ targetTicketId: idParam, linkType });

const commentContent = z
  .string()
  .max(LIMITS.commentMax, `Must be at most ${LIMITS.commentMax} characters`)
  .refine((v) => v.trim().length > 0, 'Must not be blank');
export const commentBody = z.object({ content: commentContent });

export type CreateTicketBody = z.infer<typeof createTicketBody>;
export type UpdateTicketBody = z.infer<typeof updateTicketBody>;
export type TicketListQuery = z.infer<typeof ticketListQuery>;

// ---- Answers ----

/** The fields every ticket answer has (SPEC "Ticket"); optional fields are null when empty. */
export const ticketOut = z.object({
  id: z.string(),
  number: z.number().int(),
  key: z.string(),
  title: z.string(),
  description: z.string().nullable(),
  type: z.enum(TICKET_TYPES),
  priority: z.enum(PRIORITIES),
  /** 0-based place in its column. */
  order: z.number().int(),
  columnId: z.string(),
  assigneeId: z.string().nullable(),
  reporterId: z.string().nullable(),
  sprintId: z.string().nullable(),
  parentId: z.string().nullable(),
  storyPoints: z.number().nullable(),
  estimate: z.string().nullable(),
  startDate: z.string().nullable(),
  dueDate: z.string().nullable(),
  environment: z.string().nullable(),
  affectedVersion: z.string().nullable(),
  fixVersion: z.string().nullable(),
  isCarriedOver: z.boolean(),
  carriedFromSprintId: z.string().nullable(),
  carriedOverCount: z.number().int(),
  projectId: z.string(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type TicketOut = z.infer<typeof ticketOut>;

/** One row of the ticket list (board, backlog): the ticket with its labels and assignee. */
export const ticketListItemOut = ticketOut.extend({
  labelIds: z.array(z.string()),
  watcherIds: z.array(z.string()),
  labels: z.array(labelOut),
  assignee: personOut.nullable(),
});
export type TicketListItemOut = z.infer<typeof ticketListItemOut>;

/** A link as seen from the ticket it is read on (the inverse type from the other side). */
export const linkOut = z.object({
  id: z.string(),
  linkType: z.enum(LINK_TYPES),
  ticket: z.object({
    id: z.string(),
    key: z.string(),
    title: z.string(),
    type: z.enum(TICKET_TYPES),
    priority: z.enum(PRIORITIES),
    columnId: z.string(),
  }),
});
export type LinkOut = z.infer<typeof linkOut>;

/** The full ticket read (GET …/tickets/:ticketId), and the answer of every ticket write. */
export const ticketFullOut = ticketOut.extend({
  labelIds: z.array(z.string()),
  watcherIds: z.array(z.string()),
  column: z.object({ id: z.string(), name: z.string() }),
  assignee: personOut.nullable(),
  reporter: personOut.nullable(),
  sprint: z.object({ id: z.string(), name: z.string() }).nullable(),
  labels: z.array(labelOut),
  watchers: z.array(z.object({ id: z.string(), name: z.string() })),
  links: z.array(linkOut),
  attachmentCount: z.number().int(),
  commentCount: z.number().int(),
});
export type TicketFullOut = z.infer<typeof ticketFullOut>;

export const bulkUpdateOut = z.object({
  success: z.literal(true),
  updated: z.number().int(),
  tickets: z.array(ticketFullOut),
});
/** Bulk delete: how many tickets went to the trash, and their trash entries in the order given. */
export const bulkDeleteOut = z.object({
  success: z.literal(true),
  deleted: z.number().int(),
  trashIds: z.array(z.string()),
});

export const commentOut = z.object({
  id: z.string(),
  ticketId: z.string(),
  content: z.string(),
  author: personOut,
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type CommentOut = z.infer<typeof commentOut>;

export const historyEntryOut = z.object({
  id: z.string(),
  field: z.string(),
  oldValue: z.string().nullable(),
  newValue: z.string().nullable(),
  changedBy: z.object({ id: z.string().nullable(), name: z.string() }),
  changedAt: z.string(),
});
export type HistoryEntryOut = z.infer<typeof historyEntryOut>;

export const attachmentOut = z.object({
  id: z.string(),
  filename: z.string(),
  mimeType: z.string(),
  size: z.number().int(),
  url: z.string(),
  createdAt: z.string(),
  uploader: personOut.nullable(),
});
export type AttachmentOut = z.infer<typeof attachmentOut>;

export { parseTicketKey } from './rules.js';
