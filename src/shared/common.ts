import { z } from 'zod';
import { LIMITS } from './limits.js';
import { isCalendarDate } from './rules.js';

/** Record ids are opaque strings; keys are accepted where DECISIONS says so. */
export const idParam = z.string().min(1).max(64);

export const hexColor = z
  .string()
  .regex(/^#[0-9a-fA-F]{6}$/, 'Must be a hex colour such as #1A2B3C')
  .transform((v) => v.toUpperCase());

export const isoDate = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, 'Must be a date in the form YYYY-MM-DD')
  .refine(isCalendarDate, 'Must be a real calendar date');

export const paging = z.object({
  limit: z.coerce.number().int().min(1).max(LIMITS.listLimitMax).optional(),
  offset: z.coerce.number().int().min(0).optional(),
});

export const successResponse = z.object({ success: z.literal(true) });

/** Trimmed non-blank text of bounded length. */
export const text = (max: number, min = 1) =>
  z
    .string()
    .trim()
    .min(min, min === 1 ? 'Must not be blank' : `Must be at least ${min} characters`)
    .max(max, `Must be at most ${max} characters`);

/** Every error answer: a stable text (src/shared/errors.ts), for validation what failed, and the facts some errors add (the allowed types, the size limit). */
export const errorOut = z.looseObject({ error: z.string(), details: z.unknown().optional() });

/**
 * A person nested in a ticket, comment or attachment: the display name falls back to the username;
 * a deleted user reads as `{id: null, name: 'Deleted user', avatar: null}`, and the author of an
 * imported comment who has no account here as `{id: null, name: <the name in the source>, avatar: null}`.
 */
export const personOut = z.object({
  id: z.string().nullable(),
  name: z.string(),
  avatar: z.string().nullable(),
});
export type PersonOut = z.infer<typeof personOut>;

/** A user in pickers, member lists and `user.updated` events. */
export const userSummaryOut = z.object({
  id: z.string(),
  username: z.string(),
  name: z.string().nullable(),
  avatar: z.string().nullable(),
});
export type UserSummaryOut = z.infer<typeof userSummaryOut>;

/** GET /api/health. */
export const healthOut = z.object({ status: z.literal('ok'), database: z.enum(['sqlite', 'postgres']) });
export const healthDownOut = z.object({ status: z.literal('unavailable'), error: z.string() });
