/** A project's board columns. */
import { useQuery } from '@tanstack/react-query';
import type { z } from 'zod';
import type { updateColumnBody } from '../../shared/projects.js';
import { api, enc, listAll } from './client';
import { qk } from './keys';
import { projectPath } from './projects';
import type { Column } from './types';

const columnsPath = (projectId: string, columnId?: string) =>
  projectPath(projectId, columnId ? `/columns/${enc(columnId)}` : '/columns');

export const useColumns = (projectId: string | undefined) =>
  useQuery({
    queryKey: qk.columns(projectId ?? ''),
    queryFn: async ({ signal }) =>
      (await listAll<Column>(columnsPath(projectId!), signal)).sort((a, b) => a.order - b.order),
    enabled: !!projectId,
  });

export const createColumn = (projectId: string, name: string) =>
  api<Column>(columnsPath(projectId), { method: 'POST', body: { name } });

/** Renames a column, or moves it to `order` (0-based). */
export const updateColumn = (projectId: string, columnId: string, body: z.input<typeof updateColumnBody>) =>
  api<Column>(columnsPath(projectId, columnId), { method: 'PATCH', body });

/** Deletes a column; its tickets move to `moveTicketsTo` (required when it has any). */
export const deleteColumn = (projectId: string, columnId: string, moveTicketsTo?: string) =>
  api(columnsPath(projectId, columnId), {
    method: 'DELETE',
    body: moveTicketsTo ? { moveTicketsTo } : {},
  });
