import { z } from 'zod';

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

export const EVENT_TYPES = [
  'ticket.created',
  'ticket.updated',
  'ticket.moved',
  'ticket.deleted',
  'label.created',
  'label.updated',
  'label.deleted',
  'project.created',
  'project.updated',
  'project.deleted',
  'user.updated',
  'database.wiped',
  'database.projects.wiped',
  'column.created',
  'column.updated',
  'column.deleted',
  'sprint.created',
  'sprint.updated',
  'sprint.started',
  'sprint.completed',
  'sprint.extended',
  'sprint.deleted',
  'member.added',
  'member.updated',
  'member.removed',
  'comment.created',
  'comment.updated',
  'comment.deleted',
  'attachment.added',
  'attachment.deleted',
  'link.created',
  'link.deleted',
  'resync',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/** Query of the event stream endpoints: `lastEventId` for EventSource polyfills that cannot set Last-Event-ID. */
export const eventStreamQuery = z.object({
  lastEventId: z.string().optional().describe('Resume after this event id (the Last-Event-ID header wins)'),
});
