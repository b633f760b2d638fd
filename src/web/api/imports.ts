/** Imports from other trackers and the ticket export (docs/import.md). */
import type { ImportFormat, ImportMapping, ImportResult } from '../../shared/imports';
import { url } from './client';
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

/** The address of a ticket list's export (the list's `query=` search, if any). */
export const exportHref = (projectId: string, format: 'csv' | 'json', query?: string) =>
  url(`/api/projects/${projectId}/tickets.${format}${query ? `?query=${encodeURIComponent(query)}` : ''}`);
