/** A ticket's comments, and their writes. */
import { type QueryClient, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, enc, listAll } from './client';
import { qk } from './keys';
import { invalidate } from './query-client';
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

/** The ticket whose comments these are: its id (comments' key) and key (its full read's). */
interface OfTicket {
  id: string;
  key: string;
}

/** The comments, and the ticket's full read (its comment count). */
const refreshComments = (qc: QueryClient, projectId: string, ticket: OfTicket) =>
  invalidate(qc, qk.comments(ticket.id), qk.ticket(projectId, ticket.key));

export function useAddComment(projectId: string, ticket: OfTicket) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (content: string) =>
      api<Comment>(commentsPath(projectId, ticket.id), { method: 'POST', body: { content } }),
    onSuccess: (created) => {
      qc.setQueryData<Comment[]>(qk.comments(ticket.id), (list) => (list ? [...list, created] : [created]));
      refreshComments(qc, projectId, ticket);
    },
  });
}

export function useEditComment(projectId: string, ticket: OfTicket) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ commentId, content }: { commentId: string; content: string }) =>
      api<Comment>(commentsPath(projectId, ticket.id, commentId), { method: 'PATCH', body: { content } }),
    onSuccess: () => {
      refreshComments(qc, projectId, ticket);
    },
  });
}

export function useDeleteComment(projectId: string, ticket: OfTicket) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (commentId: string) =>
      api(commentsPath(projectId, ticket.id, commentId), { method: 'DELETE' }),
    onSuccess: (_, commentId) => {
      qc.setQueryData<Comment[]>(qk.comments(ticket.id), (list) => list?.filter((x) => x.id !== commentId));
      refreshComments(qc, projectId, ticket);
    },
  });
}
