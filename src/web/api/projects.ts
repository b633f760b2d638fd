/** Projects: the list, one project, and their writes. */
import { type QueryClient, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { z } from 'zod';
import type { createProjectBody, updateProjectBody } from '../../shared/projects.js';
import { api, enc, listAll } from './client';
import { qk } from './keys';
import type { Project } from './types';

/** A project's API path: `projectPath(id, '/columns')`. */
export const projectPath = (projectId: string, rest = '') => `/api/projects/${enc(projectId)}${rest}`;

export const useProjects = (enabled = true) =>
  useQuery({
    queryKey: qk.projects,
    queryFn: ({ signal }) => listAll<Project>('/api/projects', signal),
    enabled,
  });

/** A project by key or id: from the list when it is there, else read on its own (404 for non-members). */
export function useProject(ref: string) {
  const qc = useQueryClient();
  return useQuery({
    queryKey: qk.project(ref),
    queryFn: () => api<Project>(projectPath(ref)),
    initialData: () =>
      qc
        .getQueryData<Project[]>(qk.projects)
        ?.find((p) => p.key.toUpperCase() === ref.toUpperCase() || p.id === ref),
    staleTime: 30_000,
  });
}

const byName = (a: Project, b: Project) => a.name.localeCompare(b.name);

/** The project is no longer mine (deleted, or I left it): it goes from the list and its reads. */
export function forgetProject(qc: QueryClient, projectId: string) {
  qc.setQueryData<Project[]>(qk.projects, (l) => l?.filter((x) => x.id !== projectId));
}

export function useCreateProject() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (body: z.input<typeof createProjectBody>) =>
      api<Project>('/api/projects', { method: 'POST', body }),
    onSuccess: (project) => {
      qc.setQueryData<Project[]>(qk.projects, (list) =>
        list && !list.some((p) => p.id === project.id) ? [...list, project].sort(byName) : list,
      );
    },
  });
}

/** Changes a project's settings; the list and the project's own read take the saved record. */
export function useUpdateProject(project: Pick<Project, 'id' | 'key'>) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (body: z.input<typeof updateProjectBody>) =>
      api<Project>(projectPath(project.id), { method: 'PATCH', body }),
    onSuccess: (saved) => {
      qc.setQueryData<Project[]>(qk.projects, (list) =>
        list?.map((x) => (x.id === saved.id ? { ...x, ...saved } : x)).sort(byName),
      );
      qc.setQueryData<Project>(qk.project(project.key), (x) => (x ? { ...x, ...saved } : x));
    },
  });
}

/** Deletes a project with everything in it. */
export function useDeleteProject() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (projectId: string) => api(projectPath(projectId), { method: 'DELETE' }),
    onSuccess: (_, projectId) => {
      forgetProject(qc, projectId);
      qc.removeQueries({ queryKey: ['project'] });
    },
  });
}
