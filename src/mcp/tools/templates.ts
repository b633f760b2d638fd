import type { TemplateOut } from '../../shared/templates.js';
import type { ToolTemplate } from '../../shared/tools.js';
import type { DocketClient } from '../client.js';
import { getMembers, lower, matchOne, projectPath } from './common.js';

/** The project's ticket templates in their order (docs/decisions/050-ticket-templates.md). */
export const getTemplates = (api: DocketClient, key: string) =>
  api.get<TemplateOut[]>(`${projectPath(key)}/templates`, { subject: { project: key } });

/** A template by name (exact, then partial) or id. */
export const findTemplate = (api: DocketClient, templates: TemplateOut[], name: string) =>
  matchOne(api, templates, name, (t) => [t.name], 'template');

export async function presentTemplates(
  api: DocketClient,
  key: string,
  list: TemplateOut[],
): Promise<ToolTemplate[]> {
  const members = list.some((t) => t.assigneeId) ? await getMembers(api, key) : [];
  const username = (id: string | null) => members.find((m) => m.userId === id)?.user.username ?? null;
  return list.map((t) => ({
    id: t.id,
    name: t.name,
    about: t.about,
    isDefault: t.isDefault,
    type: lower(t.type),
    title: t.title,
    priority: lower(t.priority),
    labels: t.labels.map((l) => l.name),
    storyPoints: t.storyPoints,
    assignee: username(t.assigneeId),
    description: t.description,
  }));
}

const line = (t: ToolTemplate) => {
  const parts = [
    t.type,
    t.priority,
    t.title !== null ? `title "${t.title}"` : null,
    t.labels.length ? `labels ${t.labels.join(', ')}` : null,
    t.storyPoints !== null ? `${t.storyPoints} points` : null,
    t.assignee ? `assignee ${t.assignee}` : null,
    t.description ? 'description' : null,
  ].filter(Boolean);
  return `${t.name}${t.isDefault ? ' (default)' : ''}${t.about ? ` - ${t.about}` : ''}${parts.length ? `: ${parts.join('; ')}` : ''}`;
};

/** The project's templates for get_project: their names, and a line per template saying its presets. */
export async function templatesOf(api: DocketClient, key: string) {
  const shown = await presentTemplates(api, key, await getTemplates(api, key));
  return { names: shown.map((t) => t.name), lines: shown.map(line) };
}
