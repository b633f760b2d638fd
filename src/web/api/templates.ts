/** A project's ticket templates and their writes (docs/decisions/050-ticket-templates.md). */
import { type QueryClient, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
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

const refreshTemplates = (qc: QueryClient, projectId: string) =>
  qc.invalidateQueries({ queryKey: qk.templates(projectId) });

export function useCreateTemplate(projectId: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (body: z.input<typeof createTemplateBody>) =>
      api<Template>(templatesPath(projectId), { method: 'POST', body }),
    onSuccess: () => {
      refreshTemplates(qc, projectId);
    },
  });
}

/** Changes a template (its fields, its place in the list, or which one is the default). */
export function useUpdateTemplate(projectId: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ templateId, body }: { templateId: string; body: z.input<typeof updateTemplateBody> }) =>
      api<Template>(templatesPath(projectId, templateId), { method: 'PATCH', body }),
    onSettled: () => {
      refreshTemplates(qc, projectId);
    },
  });
}

export function useDeleteTemplate(projectId: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (templateId: string) => api(templatesPath(projectId, templateId), { method: 'DELETE' }),
    onSuccess: () => {
      refreshTemplates(qc, projectId);
    },
  });
}
