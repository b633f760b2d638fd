import { z } from 'zod';
import { LIMITS } from './limits.js';

/** Record ids are opaque strings; keys are accepted where DECISIONS says so. */
export const idParam = z.string().min(1).max(64);

export const hexColor = z
  .string()
  .regex(/^#[0-9a-fA-F]{6}$/, 'Must be a hex colour such as #1A2B3C')
  .transform((v) => v.toUpperCase());

export const isoDate = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, 'Must be a date in the form YYYY-MM-DD')
  .refine((v) => !Number.isNaN(Date.parse(`${v}T00:00:00Z`)), 'Must be a real calendar date');

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
