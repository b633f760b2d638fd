/** A ticket's attachments: the list, uploads with progress, deletion. */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, enc, listAll } from './client';
import { qk } from './keys';
import { ticketPath } from './tickets';
import type { Attachment } from './types';
import { uploadFile } from './upload';

const attachmentsPath = (projectId: string, ticketId: string, attachmentId?: string) =>
  ticketPath(projectId, ticketId, attachmentId ? `/attachments/${enc(attachmentId)}` : '/attachments');

export const useAttachments = (projectId: string, ticketId: string | undefined) =>
  useQuery({
    queryKey: qk.attachments(ticketId ?? ''),
    queryFn: ({ signal }) => listAll<Attachment>(attachmentsPath(projectId, ticketId!), signal),
    enabled: !!ticketId,
  });

/**
 * Uploads a file as an attachment, reporting progress from 0 to 1 to `onProgress`; several uploads
 * may run at once (each `mutateAsync` is its own).
 */
export function useUploadAttachment(projectId: string, ticketId: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ file, onProgress }: { file: File; onProgress?: (fraction: number) => void }) =>
      uploadFile<Attachment>(attachmentsPath(projectId, ticketId), file, onProgress ?? (() => {})),
    onSuccess: () => {
      qc.invalidateQueries({ queryKey: qk.attachments(ticketId) });
    },
  });
}

export function useDeleteAttachment(projectId: string, ticketId: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (attachmentId: string) =>
      api(attachmentsPath(projectId, ticketId, attachmentId), { method: 'DELETE' }),
    onSuccess: () => {
      qc.invalidateQueries({ queryKey: qk.attachments(ticketId) });
    },
  });
}
