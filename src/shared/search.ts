/** Search and saved views: inputs and answers (docs/search.md). */
import { z } from 'zod';
import { idParam, text } from './common.js';
import {
  DEFAULT_VIEW_COLUMNS,
  QUERY_MAX_LENGTH,
  VIEW_COLUMNS,
  VIEW_GROUPS,
  VIEW_LAYOUTS,
} from './search-query.js';

export { DEFAULT_VIEW_COLUMNS, VIEW_COLUMNS, VIEW_GROUPS, VIEW_LAYOUTS };

import { ticketListItemOut } from './tickets.js';

export const searchQueryText = z
  .string()
  .max(QUERY_MAX_LENGTH, `Must be at most ${QUERY_MAX_LENGTH} characters`);

/** GET /api/search. */
export const searchParams = z.object({
  q: searchQueryText.default(''),
  limit: z.coerce.number().int().min(1).max(100).default(50),
  cursor: z.string().max(2000).optional(),
});
export type SearchParams = z.infer<typeof searchParams>;

export const searchItemOut = ticketListItemOut.extend({ projectKey: z.string() });
export type SearchItemOut = z.infer<typeof searchItemOut>;

export const searchOut = z.object({
  items: z.array(searchItemOut),
  /** Every ticket the query matches among the projects the caller can see. */
  total: z.number().int(),
  /** Opaque; null on the last page. */
  nextCursor: z.string().nullable(),
});
export type SearchOut = z.infer<typeof searchOut>;

// ---- Saved views ----

const viewColumns = z
  .array(z.enum(VIEW_COLUMNS))
  .min(1, 'Give at least one column')
  .max(VIEW_COLUMNS.length)
  .refine((c) => new Set(c).size === c.length, 'Columns must not repeat');

export const createViewBody = z.object({
  name: text(100),
  query: searchQueryText,
  projectId: idParam.nullable().optional(),
  shared: z.boolean().optional(),
  layout: z.enum(VIEW_LAYOUTS).optional(),
  columns: viewColumns.optional(),
  groupBy: z.enum(VIEW_GROUPS).nullable().optional(),
});
export type CreateViewBody = z.infer<typeof createViewBody>;

export const updateViewBody = createViewBody.partial();
export type UpdateViewBody = z.infer<typeof updateViewBody>;

export const viewParams = z.object({ viewId: idParam });

export const viewOut = z.object({
  id: z.string(),
  name: z.string(),
  query: z.string(),
  projectId: z.string().nullable(),
  projectKey: z.string().nullable(),
  shared: z.boolean(),
  layout: z.enum(VIEW_LAYOUTS),
  columns: z.array(z.enum(VIEW_COLUMNS)),
  groupBy: z.enum(VIEW_GROUPS).nullable(),
  authorId: z.string().nullable(),
  /** True when the caller may change or delete it. */
  canEdit: z.boolean(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type ViewOut = z.infer<typeof viewOut>;
