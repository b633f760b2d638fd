import { z } from 'zod';
import { isCalendarDate } from './rules.js';
import { PRIORITIES, TICKET_TYPES } from './tickets.js';

/**
 * The tool server's vocabulary (SPEC "Tool server operations"): lower-case ticket types and
 * priorities, 1-based column positions. The HTTP API spells types and priorities capitalised and
 * counts column orders from 0; the tools translate both ways.
 */
export const TOOL_TYPES = ['epic', 'story', 'task', 'bug', 'subtask'] as const;
export const TOOL_PRIORITIES = ['lowest', 'low', 'medium', 'high', 'highest', 'critical'] as const;
export type ToolType = (typeof TOOL_TYPES)[number];
export type ToolPriority = (typeof TOOL_PRIORITIES)[number];

export const toolType = z.enum(TOOL_TYPES);
export const toolPriority = z.enum(TOOL_PRIORITIES);

/** HTTP spelling of a tool type or priority ('bug' -> 'Bug'). */
export const httpType = (t: ToolType) => TICKET_TYPES.find((x) => x.toLowerCase() === t) ?? 'Task';
export const httpPriority = (p: ToolPriority) => PRIORITIES.find((x) => x.toLowerCase() === p) ?? 'Medium';

/** A 1-based column position. */
export const toolPosition = z.number().int().min(1);

/** A list limit with its default (list_tickets and list_projects 20, list_users 50). */
export const toolLimit = (def: number, max: number) => z.number().int().min(1).max(max).default(def);

export const TOOL_LIMITS = {
  tickets: { default: 20, max: 200 },
  projects: { default: 20, max: 200 },
  users: { default: 50, max: 200 },
} as const;

/**
 * A calendar day `YYYY-MM-DD` that exists (2026-02-30 does not). The form is said once, in the tool
 * server's instructions, rather than in every date parameter of the catalogue.
 */
export const toolDate = z
  .string()
  .refine(isCalendarDate, 'must be a real calendar date in the form YYYY-MM-DD');
/** The same, or null to clear (one JSON Schema type list rather than an anyOf). */
export const toolDateOrNull = z
  .string()
  .refine(isCalendarDate, 'must be a real calendar date in the form YYYY-MM-DD')
  .nullable();

/** A ticket template as the tool server describes it (decision 050): tool spellings, names for ids. */
export const toolTemplateOut = z.object({
  id: z.string(),
  name: z.string(),
  about: z.string().nullable(),
  isDefault: z.boolean(),
  type: z.string().nullable(),
  title: z.string().nullable(),
  priority: z.string().nullable(),
  labels: z.array(z.string()),
  storyPoints: z.number().nullable(),
  assignee: z.string().nullable(),
  description: z.string().nullable(),
});
export type ToolTemplate = z.infer<typeof toolTemplateOut>;
