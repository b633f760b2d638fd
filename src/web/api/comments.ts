/** A ticket's comments. */
import { useQuery } from '@tanstack/react-query';
import { api, enc, listAll } from './client';
import { qk } from './keys';
import { ticketPath } from './tickets';
import type { Comment } from './types';

const commentsPath = (projectId: string, ticketId: string, commentId?: string) =>
  ticketPath(projectId, ticketId, commentId ? `/comments/${enc(commentId)}` : '/comments');

export const useComments = (projectId: string, ticketId: string | undefined) =>
  useQuery({
    queryKey: qk.comments(ticketId ?? ''),
    queryFn: ({ signal }) => listAll<Comment>(commentsPath(projectId, ticketId!), signal),
    enabled: !!ticketId,
  });

export const addComment = (projectId: string, ticketId: string, content: string) =>
  api<Comment>(commentsPath(projectId, ticketId), { method: 'POST', body: { content } });

export const editComment = (projectId: string, ticketId: string, commentId: string, content: string) =>
  api<Comment>(commentsPath(projectId, ticketId, commentId), { method: 'PATCH', body: { content } });

export const deleteComment = (projectId: string, ticketId: string, commentId: string) =>
  api(commentsPath(projectId, ticketId, commentId), { method: 'DELETE' });
