/** A project's labels, and their writes. */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { z } from 'zod';
import type { createLabelBody, updateLabelBody } from '../../shared/projects.js';
import { api, enc, listAll } from './client';
import { qk } from './keys';
import { projectPath } from './projects';
import { invalidate, optimistic } from './query-client';
import type { Label } from './types';

const labelsPath = (projectId: string, labelId?: string) =>
  projectPath(projectId, labelId ? `/labels/${enc(labelId)}` : '/labels');

export const useLabels = (projectId: string | undefined) =>
  useQuery({
    queryKey: qk.labels(projectId ?? ''),
    queryFn: ({ signal }) => listAll<Label>(labelsPath(projectId!), signal),
    enabled: !!projectId,
  });

/** The labels, and the tickets that show them by name and colour. */
const refreshLabels = (qc: ReturnType<typeof useQueryClient>, projectId: string) =>
  invalidate(qc, qk.labels(projectId), qk.tickets(projectId));

/** Creates a label; the project's list holds it at once, in name order (no ticket has it yet). */
export function useCreateLabel(projectId: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (body: z.input<typeof createLabelBody>) =>
      api<Label>(labelsPath(projectId), { method: 'POST', body }),
    onSuccess: (label) => {
      qc.setQueryData<Label[]>(qk.labels(projectId), (list) =>
        [...(list ?? []).filter((l) => l.id !== label.id), label].sort((a, b) =>
          a.name.localeCompare(b.name),
        ),
      );
      // Then in the server's order.
      qc.invalidateQueries({ queryKey: qk.labels(projectId) });
    },
  });
}

/** Renames or recolours a label, shown at once; put back when the server refuses. */
export function useUpdateLabel(projectId: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ labelId, body }: { labelId: string; body: z.input<typeof updateLabelBody> }) =>
      api<Label>(labelsPath(projectId, labelId), { method: 'PATCH', body }),
    onMutate: ({ labelId, body }) =>
      optimistic<Label[]>(qc, qk.labels(projectId), (list) =>
        list?.map((x) => (x.id === labelId ? { ...x, ...body } : x)),
      ),
    onError: (_err, _vars, rollback) => rollback?.(),
    onSettled: () => {
      refreshLabels(qc, projectId);
    },
  });
}

/** Deletes a label; it goes from every ticket that has it. */
export function useDeleteLabel(projectId: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (labelId: string) => api(labelsPath(projectId, labelId), { method: 'DELETE' }),
    onSuccess: () => {
      refreshLabels(qc, projectId);
    },
  });
}
