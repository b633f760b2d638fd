/** A project's board columns, and their writes. */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { z } from 'zod';
import type { updateColumnBody } from '../../shared/projects.js';
import { api, enc, listAll } from './client';
import { qk } from './keys';
import { projectPath } from './projects';
import { invalidate, optimistic } from './query-client';
import type { Column } from './types';

const columnsPath = (projectId: string, columnId?: string) =>
  projectPath(projectId, columnId ? `/columns/${enc(columnId)}` : '/columns');

/** The read of a project's columns in board order (for `useQuery` and `useQueries`). */
export const columnsQuery = (projectId: string) => ({
  queryKey: qk.columns(projectId),
  queryFn: async ({ signal }: { signal: AbortSignal }) =>
    (await listAll<Column>(columnsPath(projectId), signal)).sort((a, b) => a.order - b.order),
});

export const useColumns = (projectId: string | undefined) =>
  useQuery({ ...columnsQuery(projectId ?? ''), enabled: !!projectId });

/** Adds a column at the end of the board. */
export function useCreateColumn(projectId: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (name: string) => api<Column>(columnsPath(projectId), { method: 'POST', body: { name } }),
    onSuccess: (created) => {
      qc.setQueryData<Column[]>(qk.columns(projectId), (l) => (l ? [...l, created] : l));
    },
  });
}

/** Renames a column, shown at once; the board's columns are read again when the server refuses. */
export function useRenameColumn(projectId: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ columnId, name }: { columnId: string; name: string }) =>
      api<Column>(columnsPath(projectId, columnId), { method: 'PATCH', body: { name } }),
    onMutate: ({ columnId, name }) =>
      optimistic<Column[]>(qc, qk.columns(projectId), (l) =>
        l?.map((x) => (x.id === columnId ? { ...x, name } : x)),
      ),
    onError: () => {
      invalidate(qc, qk.columns(projectId));
    },
  });
}

/**
 * Moves a column to `order` (0-based), shown at once. Once the server has answered, the columns are
 * read again: this tab's own event is not replayed to it, and a list fetched while the move was
 * under way would otherwise stay.
 */
export function useMoveColumn(projectId: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ columnId, order }: { columnId: string; order: number }) =>
      api<Column>(columnsPath(projectId, columnId), {
        method: 'PATCH',
        body: { order } satisfies z.input<typeof updateColumnBody>,
      }),
    onMutate: ({ columnId, order }) => {
      qc.setQueryData<Column[]>(qk.columns(projectId), (list) => {
        const from = list?.findIndex((c) => c.id === columnId) ?? -1;
        if (!list || from < 0) return list;
        const next = [...list];
        next.splice(order, 0, ...next.splice(from, 1));
        return next.map((c, i) => ({ ...c, order: i }));
      });
    },
    onSettled: () => {
      invalidate(qc, qk.columns(projectId));
    },
  });
}

/** Deletes a column; its tickets move to `moveTicketsTo` (required when it has any). */
export function useDeleteColumn(projectId: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ columnId, moveTicketsTo }: { columnId: string; moveTicketsTo?: string }) =>
      api(columnsPath(projectId, columnId), {
        method: 'DELETE',
        body: moveTicketsTo ? { moveTicketsTo } : {},
      }),
    onSuccess: () => {
      invalidate(qc, qk.columns(projectId), qk.tickets(projectId));
    },
  });
}
