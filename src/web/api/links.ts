/** Links between tickets, and a ticket's change history. */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, enc, listAll } from './client';
import { qk } from './keys';
import { ticketPath } from './tickets';
import type { HistoryEntry, LinkType, TicketLink } from './types';

/** A link shows on both tickets: every open full read of the project is read again. */
const refreshLinked = (qc: ReturnType<typeof useQueryClient>, projectId: string) =>
  qc.invalidateQueries({ queryKey: qk.ticketsOf(projectId) });

export function useCreateLink(projectId: string, ticketId: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ targetTicketId, linkType }: { targetTicketId: string; linkType: LinkType }) =>
      api<TicketLink>(ticketPath(projectId, ticketId, '/links'), {
        method: 'POST',
        body: { targetTicketId, linkType },
      }),
    onSuccess: () => {
      refreshLinked(qc, projectId);
    },
  });
}

export function useDeleteLink(projectId: string, ticketId: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (linkId: string) =>
      api(ticketPath(projectId, ticketId, `/links/${enc(linkId)}`), { method: 'DELETE' }),
    onSuccess: () => {
      refreshLinked(qc, projectId);
    },
  });
}

export const useHistory = (projectId: string, ticketId: string | undefined) =>
  useQuery({
    queryKey: qk.history(ticketId ?? ''),
    queryFn: ({ signal }) => listAll<HistoryEntry>(ticketPath(projectId, ticketId!, '/history'), signal),
    enabled: !!ticketId,
  });
