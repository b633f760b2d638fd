/** A project's labels. */
import { useQuery } from '@tanstack/react-query';
import type { z } from 'zod';
import type { createLabelBody, updateLabelBody } from '../../shared/projects.js';
import { api, enc, listAll } from './client';
import { qk } from './keys';
import { projectPath } from './projects';
import type { Label } from './types';

const labelsPath = (projectId: string, labelId?: string) =>
  projectPath(projectId, labelId ? `/labels/${enc(labelId)}` : '/labels');

export const useLabels = (projectId: string | undefined) =>
  useQuery({
    queryKey: qk.labels(projectId ?? ''),
    queryFn: ({ signal }) => listAll<Label>(labelsPath(projectId!), signal),
    enabled: !!projectId,
  });

export const createLabel = (projectId: string, body: z.input<typeof createLabelBody>) =>
  api<Label>(labelsPath(projectId), { method: 'POST', body });

export const updateLabel = (projectId: string, labelId: string, body: z.input<typeof updateLabelBody>) =>
  api<Label>(labelsPath(projectId, labelId), { method: 'PATCH', body });

export const deleteLabel = (projectId: string, labelId: string) =>
  api(labelsPath(projectId, labelId), { method: 'DELETE' });
