import type { SavedViewsTable } from '../../db/types.js';
import type { ViewOut } from '../../shared/search.js';

/** A saved view with its project's key; `canEdit` is the caller's right to change it (views.ts). */
export const presentView = (
  r: SavedViewsTable & { project_key: string | null },
  canEdit: boolean,
): ViewOut => ({
  id: r.id,
  name: r.name,
  query: r.query,
  projectId: r.project_id,
  projectKey: r.project_key,
  shared: r.shared === 1,
  layout: r.layout,
  columns: JSON.parse(r.columns),
  groupBy: (r.group_by as ViewOut['groupBy']) ?? null,
  authorId: r.author_id,
  canEdit,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});
