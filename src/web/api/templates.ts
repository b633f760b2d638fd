/** A project's ticket templates (docs/decisions/050-ticket-templates.md). */
import { useQuery } from '@tanstack/react-query';
import type { z } from 'zod';
import type { createTemplateBody, TemplateOut, updateTemplateBody } from '../../shared/templates.js';
import { api, enc } from './client';
import { qk } from './keys';
import { projectPath } from './projects';

export type Template = TemplateOut;

const templatesPath = (projectId: string, templateId?: string) =>
  projectPath(projectId, templateId ? `/templates/${enc(templateId)}` : '/templates');

export const useTemplates = (projectId: string | undefined) =>
  useQuery({
    queryKey: qk.templates(projectId ?? ''),
    queryFn: ({ signal }) => api<Template[]>(templatesPath(projectId!), { signal }),
    enabled: !!projectId,
  });

export const createTemplate = (projectId: string, body: z.input<typeof createTemplateBody>) =>
  api<Template>(templatesPath(projectId), { method: 'POST', body });

export const updateTemplate = (
  projectId: string,
  templateId: string,
  body: z.input<typeof updateTemplateBody>,
) => api<Template>(templatesPath(projectId, templateId), { method: 'PATCH', body });

export const deleteTemplate = (projectId: string, templateId: string) =>
  api(templatesPath(projectId, templateId), { method: 'DELETE' });
