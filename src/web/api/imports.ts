/** Imports from other trackers and the ticket export (docs/import.md). */
import {
  type ImportFormat,
  type ImportMapping,
  type ImportRefused,
  type ImportResult,
  importRefusedOut,
} from '../../shared/imports';
import { ApiError, url } from './client';
import { uploadFile } from './upload';

export type { ImportFormat, ImportMapping, ImportRefused, ImportResult };

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

/** A refused file's answer (400 with the problems that refused it), or null for any other error. */
export function refusalOf(err: unknown): ImportRefused | null {
  if (!(err instanceof ApiError) || err.status !== 400) return null;
  const parsed = importRefusedOut.safeParse(err.body);
  return parsed.success ? parsed.data : null;
}

/** The address of a ticket list's export (the list's `query=` search, if any). */
export const exportHref = (projectId: string, format: 'csv' | 'json', query?: string) =>
  url(`/api/projects/${projectId}/tickets.${format}${query ? `?query=${encodeURIComponent(query)}` : ''}`);
