import { z } from 'zod';
import { idParam, paging, text } from './common.js';
import { LIMITS } from './limits.js';
import { isCalendarDate } from './rules.js';

export const SPRINT_STATUSES = ['planning', 'active', 'completed'] as const;
export type SprintStatus = (typeof SPRINT_STATUSES)[number];

export const INCOMPLETE_ACTIONS = ['moveToNextSprint', 'moveToBacklog', 'keepInSprint'] as const;
export type IncompleteAction = (typeof INCOMPLETE_ACTIONS)[number];

/** Longest sprint, in days: keeps dates sane and reports bounded (docs/decisions/016-sprints.md). */
export const SPRINT_MAX_DAYS = 366;

const DATE_ONLY = /^(\d{4})-(\d{2})-(\d{2})$/;
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})$/i;

/**
 * A sprint date given as `YYYY-MM-DD` or as an ISO timestamp, as the midnight-UTC timestamp of its
 * UTC calendar day; null when it is neither or not a real date.
 */
export function toSprintDate(value: string): string | null {
  const v = value.trim();
  let day: string;
  if (DATE_ONLY.test(v)) {
    day = v;
  } else if (TIMESTAMP.test(v)) {
    const ms = Date.parse(v);
    if (Number.isNaN(ms)) return null;
    day = new Date(ms).toISOString().slice(0, 10);
  } else {
    return null;
  }
  // Rejects days that do not exist (2026-02-30 would otherwise roll over into March).
  if (!isCalendarDate(day)) return null;
  const iso = `${day}T00:00:00.000Z`;
  const year = Number(day.slice(0, 4));
  if (year < 1970 || year > 9999) return null;
  return iso;
}

/** Accepted as `YYYY-MM-DD` or a full ISO timestamp; becomes a midnight-UTC timestamp. */
export const sprintDate = z
  .string()
  .max(40, 'Must be a date (YYYY-MM-DD) or an ISO timestamp')
  .refine((v) => toSprintDate(v) !== null, 'Must be a date (YYYY-MM-DD) or an ISO timestamp')
  .transform((v) => toSprintDate(v) as string)
  .meta({ description: 'YYYY-MM-DD or an ISO timestamp; stored as midnight UTC of that day' });

const sprintName = text(LIMITS.sprintNameMax);
const sprintGoal = z.string().max(LIMITS.sprintGoalMax, `Must be at most ${LIMITS.sprintGoalMax} characters`);
const budget = z
  .number()
  .min(0, 'Must be 0 or more')
  .max(100_000, 'Must be at most 100000')
  .meta({ description: 'Story-point capacity' });

export const sprintParams = z.object({ projectId: idParam, sprintId: idParam });

export const sprintListQuery = z.object({
  status: z.enum(SPRINT_STATUSES, { error: 'Must be planning, active or completed' }).optional(),
  ...paging.shape,
});

export const createSprintBody = z
  .object({
    name: sprintName.optional(),
    goal: sprintGoal.nullish(),
    startDate: sprintDate.nullish(),
    endDate: sprintDate.nullish(),
    budget: budget.nullish(),
  })
  .nullish();

export const updateSprintBody = z.object({
  name: sprintName.optional(),
  goal: sprintGoal.nullable().optional(),
  startDate: sprintDate.nullable().optional(),
  endDate: sprintDate.nullable().optional(),
  budget: budget.nullable().optional(),
});

export const startSprintBody = z
  .object({
    startDate: sprintDate.nullish(),
    endDate: sprintDate.nullish(),
  })
  .nullish();

export const completeSprintBody = z
  .object({
    incompleteAction: z
      .enum(INCOMPLETE_ACTIONS, { error: 'Must be moveToNextSprint, moveToBacklog or keepInSprint' })
      .optional(),
    nextSprintId: idParam.nullish(),
  })
  .nullish();

export const extendSprintBody = z.object({ newEndDate: sprintDate });

export const updateSprintSettingsBody = z.object({
  defaultSprintDuration: z
    .number()
    .int('Must be a whole number of weeks')
    .min(
      LIMITS.sprintDurationWeeks.min,
      `Must be ${LIMITS.sprintDurationWeeks.min}-${LIMITS.sprintDurationWeeks.max} weeks`,
    )
    .max(
      LIMITS.sprintDurationWeeks.max,
      `Must be ${LIMITS.sprintDurationWeeks.min}-${LIMITS.sprintDurationWeeks.max} weeks`,
    )
    .optional(),
  autoCarryOverIncomplete: z.boolean().optional(),
  doneColumnIds: z.array(idParam).max(100, 'At most 100 columns').optional(),
});

export const velocityQuery = z.object({
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .max(50)
    .optional()
    .meta({ description: 'How many completed sprints (default 6)' }),
});

// Response shapes (they document the API in OpenAPI and check what the server sends).

export const sprintOut = z.object({
  id: z.string(),
  name: z.string(),
  goal: z.string().nullable(),
  startDate: z.string().nullable(),
  endDate: z.string().nullable(),
  status: z.enum(SPRINT_STATUSES),
  budget: z.number().nullable(),
  projectId: z.string(),
  startedAt: z.string().nullable(),
  completedAt: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
});

export type SprintOut = z.infer<typeof sprintOut>;

export const sprintDetailOut = sprintOut.extend({
  tickets: z.array(
    z.object({
      id: z.string(),
      key: z.string(),
      title: z.string(),
      type: z.string(),
      priority: z.string(),
      storyPoints: z.number().nullable(),
      columnId: z.string(),
    }),
  ),
  ticketHistory: z.array(
    z.object({
      ticketId: z.string(),
      entryType: z.enum(['added', 'carried_over']),
      enteredAt: z.string(),
      exitStatus: z.enum(['completed', 'carried_over', 'removed']).nullable(),
      exitedAt: z.string().nullable(),
    }),
  ),
});

export type SprintDetailOut = z.infer<typeof sprintDetailOut>;
export type SprintTicketOut = SprintDetailOut['tickets'][number];
export type SprintEntryOut = SprintDetailOut['ticketHistory'][number];

export const startSprintOut = z.object({
  id: z.string(),
  status: z.literal('active'),
  startDate: z.string(),
  endDate: z.string(),
});

export const completeSprintOut = z.object({
  id: z.string(),
  status: z.literal('completed'),
  completedTicketCount: z.number(),
  incompleteTicketCount: z.number(),
  completedStoryPoints: z.number(),
  incompleteStoryPoints: z.number(),
  incompleteAction: z.enum(INCOMPLETE_ACTIONS),
  nextSprintId: z
    .string()
    .nullable()
    .meta({ description: 'Where incomplete tickets went, when they moved to a sprint' }),
});

export const sprintSettingsOut = z.object({
  defaultSprintDuration: z.number(),
  autoCarryOverIncomplete: z.boolean(),
  doneColumnIds: z.array(z.string()),
});

export type SprintSettingsOut = z.infer<typeof sprintSettingsOut>;

export const burndownOut = z.object({
  sprintId: z.string(),
  status: z.enum(SPRINT_STATUSES),
  startDate: z.string().nullable(),
  endDate: z.string().nullable(),
  committedPoints: z
    .number()
    .meta({ description: 'Story points in the sprint when it started (now, while planning)' }),
  committedTickets: z.number(),
  days: z.array(
    z.object({
      date: z.string().meta({ description: 'YYYY-MM-DD (UTC)' }),
      remainingPoints: z
        .number()
        .nullable()
        .meta({ description: 'Open story points at the end of the day; null for days not yet reached' }),
      remainingTickets: z.number().nullable(),
      completedPoints: z.number().nullable(),
      scopePoints: z
        .number()
        .nullable()
        .meta({ description: 'All story points in the sprint at the end of the day' }),
      idealPoints: z.number(),
    }),
  ),
});

export const velocityOut = z.object({
  sprints: z.array(
    z.object({
      id: z.string(),
      name: z.string(),
      startDate: z.string().nullable(),
      endDate: z.string().nullable(),
      completedAt: z.string().nullable(),
      committedPoints: z.number().meta({ description: 'Story points in the sprint when it started' }),
      committedTickets: z.number(),
      completedPoints: z.number().meta({ description: 'Story points of the tickets complete at completion' }),
      completedTickets: z.number(),
      carriedOverCount: z
        .number()
        .meta({ description: 'Tickets carried over to another sprint at completion' }),
    }),
  ),
  averageCompletedPoints: z.number(),
});

export const SPRINT_ERR = {
  endBeforeStart: 'Must not be before startDate',
  newEndBeforeStart: 'Must not be before the start date',
  tooLong: `A sprint lasts at most ${SPRINT_MAX_DAYS} days`,
  datesRequired: 'A started sprint keeps its dates',
  nextSprintInvalid: 'Must be a sprint of this project that is not completed and not the one being completed',
  notAColumn: 'Every id must be a column of this project',
} as const;

export type CreateSprintBody = z.infer<typeof createSprintBody>;
export type UpdateSprintBody = z.infer<typeof updateSprintBody>;
export type StartSprintBody = z.infer<typeof startSprintBody>;
export type CompleteSprintBody = z.infer<typeof completeSprintBody>;
export type SprintListQuery = z.infer<typeof sprintListQuery>;
export type UpdateSprintSettingsBody = z.infer<typeof updateSprintSettingsBody>;

export { doneColumnIds } from './rules.js';
