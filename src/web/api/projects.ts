/** Projects: the list, one project, and their writes. */
import { type QueryClient, useQuery } from '@tanstack/react-query';
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
export function useProject(ref: string, qc: QueryClient) {
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

export const createProject = (body: z.input<typeof createProjectBody>) =>
  api<Project>('/api/projects', { method: 'POST', body });

export const updateProject = (projectId: string, body: z.input<typeof updateProjectBody>) =>
  api<Project>(projectPath(projectId), { method: 'PATCH', body });

export const deleteProject = (projectId: string) => api(projectPath(projectId), { method: 'DELETE' });
