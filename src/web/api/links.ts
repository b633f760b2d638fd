/** Links between tickets, and a ticket's change history. */
import { useQuery } from '@tanstack/react-query';
import { api, enc, listAll } from './client';
import { qk } from './keys';
import { ticketPath } from './tickets';
import type { HistoryEntry, LinkType, TicketLink } from './types';

export const createLink = (projectId: string, ticketId: string, targetTicketId: string, linkType: LinkType) =>
  api<TicketLink>(ticketPath(projectId, ticketId, '/links'), {
    method: 'POST',
    body: { targetTicketId, linkType },
  });

export const deleteLink = (projectId: string, ticketId: string, linkId: string) =>
  api(ticketPath(projectId, ticketId, `/links/${enc(linkId)}`), { method: 'DELETE' });

export const useHistory = (projectId: string, ticketId: string | undefined) =>
  useQuery({
    queryKey: qk.history(ticketId ?? ''),
    queryFn: ({ signal }) => listAll<HistoryEntry>(ticketPath(projectId, ticketId!, '/history'), signal),
    enabled: !!ticketId,
  });
