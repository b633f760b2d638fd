import { z } from 'zod';
import { isoDate, personOut } from './common.js';
import { PRIORITIES, TICKET_TYPES } from './enums.js';

/**
 * Planning pages: the epics of a project with their progress, and the timeline of epics and
 * tickets by start and due date (docs/decisions/051-epics-and-timeline.md).
 */

export const PLANNING_LIMITS = {
  /** Epics in one page of the epics list (and its default page). */
  epicsMax: 200,
  /** Items (epics and tickets) in one timeline answer; more sets `truncated`. */
  timelineMax: 500,
  /** The widest timeline window, in days (a little over two years). */
  timelineDaysMax: 800,
} as const;

export const epicsQuery = z.object({
  limit: z.coerce
    .number()
    .int('Must be a whole number')
    .min(1, 'Must be 1 or more')
    .max(PLANNING_LIMITS.epicsMax, `Must be at most ${PLANNING_LIMITS.epicsMax}`)
    .optional(),
  offset: z.coerce.number().int('Must be a whole number').min(0, 'Must be 0 or more').optional(),
});
export type EpicsQuery = z.infer<typeof epicsQuery>;

/** Children counted by number and by story points; done means in one of the done columns. */
export const progressOut = z.object({
  total: z.number().int(),
  done: z.number().int(),
  points: z.number(),
  donePoints: z.number(),
});
export type ProgressOut = z.infer<typeof progressOut>;

export const epicOut = z.object({
  id: z.string(),
  key: z.string(),
  number: z.number().int(),
  title: z.string(),
  priority: z.enum(PRIORITIES),
  columnId: z.string(),
  columnName: z.string(),
  /** The epic itself is in a done column. */
  isDone: z.boolean(),
  storyPoints: z.number().nullable(),
  startDate: z.string().nullable(),
  dueDate: z.string().nullable(),
  assignee: personOut.nullable(),
  /** Its direct children (tickets whose parent it is). */
  children: progressOut,
});
export type EpicOut = z.infer<typeof epicOut>;

export const epicsOut = z.object({
  epics: z.array(epicOut),
  /** Epics in the project (the page holds at most `limit` of them). */
  total: z.number().int(),
  limit: z.number().int(),
  offset: z.number().int(),
  /** Top-level tickets that are not epics and have no parent. */
  noEpic: progressOut,
});
export type EpicsOut = z.infer<typeof epicsOut>;

/** A `[from, to]` window of whole days, `from` not after `to`, at most `timelineDaysMax` days. */
export const timelineQuery = z
  .object({ from: isoDate, to: isoDate })
  .refine((q) => q.from <= q.to, { message: 'Must not be before from', path: ['to'] })
  .refine((q) => (Date.parse(q.to) - Date.parse(q.from)) / 86_400_000 < PLANNING_LIMITS.timelineDaysMax, {
    message: `The window may span at most ${PLANNING_LIMITS.timelineDaysMax} days`,
    path: ['to'],
  });
export type TimelineQuery = z.infer<typeof timelineQuery>;

export const timelineItemOut = z.object({
  id: z.string(),
  key: z.string(),
  title: z.string(),
  type: z.enum(TICKET_TYPES),
  parentId: z.string().nullable(),
  columnId: z.string(),
  isDone: z.boolean(),
  storyPoints: z.number().nullable(),
  /** A ticket with one of the two dates is a point on that day. */
  startDate: z.string().nullable(),
  dueDate: z.string().nullable(),
  assignee: personOut.nullable(),
});
export type TimelineItemOut = z.infer<typeof timelineItemOut>;

export const timelineGroupOut = z.object({
  /** The epic (its bar only when its dates meet the window: `inWindow`); null: tickets of no epic. */
  epic: timelineItemOut.extend({ inWindow: z.boolean() }).nullable(),
  tickets: z.array(timelineItemOut),
});
export type TimelineGroupOut = z.infer<typeof timelineGroupOut>;

export const timelineOut = z.object({
  from: z.string(),
  to: z.string(),
  groups: z.array(timelineGroupOut),
  /** More than `timelineMax` items met the window: the earliest ones are given. */
  truncated: z.boolean(),
});
export type TimelineOut = z.infer<typeof timelineOut>;
