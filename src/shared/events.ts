import { z } from 'zod';
import { userSummaryOut } from './common.js';
import { notificationCreatedEvent, notificationReadEvent } from './notifications.js';
import { columnOut, labelOut, memberOut, projectOut } from './projects.js';
import { completeSprintOut, sprintOut } from './sprints.js';
import { templateOut } from './templates.js';
import { attachmentOut, commentOut, linkOut, ticketFullOut } from './tickets.js';

/** The event envelope sent on every stream (SPEC "Events"). */
export interface EventEnvelope<T = unknown> {
  type: string;
  data: T;
  tabId: string | null;
  timestamp: string;
}

/**
 * Where an event goes: `project` to the project's stream, `projects` to the project-list stream
 * (members of projectId, or the audience), `user` to the user stream, `all` to every stream.
 */
export type EventScope = 'project' | 'projects' | 'user' | 'all';

const id = z.string();
const removed = z.object({ id });
const removedFromTicket = z.object({ id, ticketId: id });
const nothing = z.strictObject({});

/**
 * What each event type carries in `data`: the one list of event types. A use case can emit only
 * these (the `emit` of src/domain/context.ts is typed by it), the test suite checks every emitted
 * payload against its schema, and the web app handles only these types.
 */
export const EVENT_PAYLOADS = {
  'ticket.created': ticketFullOut,
  /** The full ticket; or, when its assignee's account was deleted, just the cleared assignee. */
  'ticket.updated': z.union([ticketFullOut, z.object({ id, assigneeId: z.null(), assignee: z.null() })]),
  'ticket.moved': ticketFullOut,
  'ticket.deleted': removed,
  'label.created': labelOut,
  'label.updated': labelOut,
  'label.deleted': removed,
  /** Ticket templates (decision 050): a reorder or a new default sends one update per template it changed. */
  'template.created': templateOut,
  'template.updated': templateOut,
  'template.deleted': removed,
  'project.created': projectOut,
  'project.updated': projectOut,
  'project.deleted': removed,
  /** An import finished (docs/import.md): what it created; clients read the project's tickets again. */
  'project.imported': z.object({
    id,
    tickets: z.number().int(),
    comments: z.number().int(),
    labels: z.number().int(),
    columns: z.number().int(),
    links: z.number().int(),
  }),
  'user.updated': userSummaryOut,
  'database.wiped': nothing,
  'database.projects.wiped': nothing,
  'column.created': columnOut,
  'column.updated': columnOut,
  'column.deleted': z.object({ id, moveTicketsTo: id.nullable(), movedTicketIds: z.array(id) }),
  'sprint.created': sprintOut,
  'sprint.updated': sprintOut,
  'sprint.started': sprintOut,
  'sprint.completed': sprintOut.extend(completeSprintOut.omit({ id: true, status: true }).shape),
  'sprint.extended': sprintOut,
  'sprint.deleted': removed,
  'member.added': memberOut,
  /** The member; or, when an owner's account was deleted, the heir's new role without the user. */
  'member.updated': z.union([memberOut, memberOut.omit({ user: true })]),
  'member.removed': z.union([memberOut, memberOut.omit({ user: true, role: true })]),
  'comment.created': commentOut,
  'comment.updated': commentOut,
  'comment.deleted': removedFromTicket,
  'attachment.added': attachmentOut.extend({ ticketId: id }),
  'attachment.deleted': removedFromTicket,
  // Without `ticket` when the linked ticket is in another project (that project's members only may read it).
  'link.created': linkOut.extend({ ticketId: id, ticket: linkOut.shape.ticket.optional() }),
  'link.deleted': removedFromTicket,
  /** Sent by the stream itself when it cannot replay what a client missed: refetch everything. */
  resync: nothing,
  /** To one user (audience): a new or folded notification, and their unread count. */
  'notification.created': notificationCreatedEvent,
  /** To one user: notifications marked read (ids, or null for all), and the unread count left. */
  'notification.read': notificationReadEvent,
} as const;

export type EventType = keyof typeof EVENT_PAYLOADS;
export const EVENT_TYPES = Object.keys(EVENT_PAYLOADS) as EventType[];
export type EventPayload<T extends EventType> = z.infer<(typeof EVENT_PAYLOADS)[T]>;

/** Any event as a client receives it, discriminated by `type`. */
export const eventEnvelopeOut = z.discriminatedUnion(
  'type',
  EVENT_TYPES.map((type) =>
    z.object({
      type: z.literal(type),
      data: EVENT_PAYLOADS[type],
      tabId: z.string().nullable(),
      timestamp: z.string(),
    }),
  ) as unknown as [z.ZodObject<{ type: z.ZodLiteral<EventType> }>],
);
export type AnyEvent = { [T in EventType]: EventEnvelope<EventPayload<T>> & { type: T } }[EventType];

/** Query of the event stream endpoints: `lastEventId` for EventSource polyfills that cannot set Last-Event-ID. */
export const eventStreamQuery = z.object({
  lastEventId: z.string().optional().describe('Resume after this event id (the Last-Event-ID header wins)'),
});
