import type { TicketTemplatesTable } from '../../db/types.js';
import type { TemplateOut } from '../../shared/templates.js';
import type { Tx } from '../context.js';
import { presentLabel } from './projects.js';

const labelIdsOf = (text: string): string[] => {
  try {
    const v = JSON.parse(text);
    return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
  } catch {
    return [];
  }
};

/** Templates as the API shows them: their labels that still exist (a deleted label drops out). */
export async function presentTemplates(
  db: Tx,
  projectId: string,
  rows: TicketTemplatesTable[],
): Promise<TemplateOut[]> {
  if (rows.length === 0) return [];
  const labels = await db
    .selectFrom('labels')
    .select(['id', 'name', 'color'])
    .where('project_id', '=', projectId)
    .execute();
  const byId = new Map(labels.map((l) => [l.id, l]));
  return rows.map((t) => ({
    id: t.id,
    projectId: t.project_id,
    name: t.name,
    about: t.about,
    type: t.type,
    title: t.title,
    description: t.description,
    priority: t.priority,
    labels: labelIdsOf(t.label_ids).flatMap((id) => {
      const l = byId.get(id);
      return l ? [presentLabel(l)] : [];
    }),
    storyPoints: t.story_points,
    assigneeId: t.assignee_id,
    position: Number(t.position),
    isDefault: Number(t.is_default) === 1,
    createdBy: t.created_by,
    createdAt: t.created_at,
    updatedAt: t.updated_at,
    version: Number(t.version),
  }));
}
