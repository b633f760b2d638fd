/** Imports from other trackers and the ticket export (docs/import.md). */
import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { ImportFormat, ImportMapping, ImportResult } from '../../shared/imports';
import { url } from './client';
import { qk } from './keys';
import { invalidate } from './query-client';
import { uploadFile } from './upload';

export type { ImportFormat, ImportMapping, ImportResult };

/** Sends a file to the import (or its dry run); progress is the upload's. */
export const runImport = (
  projectId: string,
  file: File,
  fields: { format: ImportFormat; mapping: ImportMapping; dryRun: boolean },
  onProgress: (fraction: number) => void,
) =>
  uploadFile<ImportResult>(`/api/projects/${projectId}/imports`, file, onProgress, undefined, {
    format: fields.format,
    dryRun: String(fields.dryRun),
    mapping: JSON.stringify(fields.mapping),
  });

/**
 * Runs an import (or its dry run) with `runImport`. After a real run the project's board reads come
 * again at once (its event stream says so too; the page need not wait for it).
 */
export function useRunImport(projectId: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({
      file,
      fields,
      onProgress,
    }: {
      file: File;
      fields: { format: ImportFormat; mapping: ImportMapping; dryRun: boolean };
      onProgress: (fraction: number) => void;
    }) => runImport(projectId, file, fields, onProgress),
    onSuccess: (_, { fields }) => {
      if (!fields.dryRun)
        invalidate(
          qc,
          qk.tickets(projectId),
          qk.columns(projectId),
          qk.labels(projectId),
          qk.sprints(projectId),
        );
    },
  });
}

/** The address of a ticket list's export (the list's `query=` search, if any). */
export const exportHref = (projectId: string, format: 'csv' | 'json', query?: string) =>
  url(`/api/projects/${projectId}/tickets.${format}${query ? `?query=${encodeURIComponent(query)}` : ''}`);
