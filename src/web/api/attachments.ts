/** A ticket's attachments: the list, uploads with progress, deletion. */
import { useQuery } from '@tanstack/react-query';
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

/** Uploads a file as an attachment, reporting progress from 0 to 1. */
export const uploadAttachment = (
  projectId: string,
  ticketId: string,
  file: File,
  onProgress: (fraction: number) => void,
) => uploadFile<Attachment>(attachmentsPath(projectId, ticketId), file, onProgress);

export const deleteAttachment = (projectId: string, ticketId: string, attachmentId: string) =>
  api(attachmentsPath(projectId, ticketId, attachmentId), { method: 'DELETE' });
