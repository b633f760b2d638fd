/** Tickets: the board list, the full read, and their writes with optimistic updates. */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { z } from 'zod';
import type { updateTicketBody } from '../../shared/tickets.js';
import { useToast } from '../components/toast';
import { applyMove, upsertTicket } from './cache';
import { api, enc, errorText, listAll } from './client';
import { planningKeys, qk } from './keys';
import { projectPath } from './projects';
import { QUEUED_OFFLINE } from './query-client';
import type { FullTicket, Label, Ticket } from './types';
import { reversePatch } from './undo';

/** A ticket's API path: `ticketPath(projectId, ticketId, '/comments')`; no ticket: the project's tickets. */
export const ticketPath = (projectId: string, ticketId?: string, rest = '') =>
  projectPath(projectId, ticketId ? `/tickets/${enc(ticketId)}${rest}` : '/tickets');

export const useTickets = (projectId: string | undefined) =>
  useQuery({
    queryKey: qk.tickets(projectId ?? ''),
    queryFn: ({ signal }) => listAll<Ticket>(ticketPath(projectId!), signal),
    enabled: !!projectId,
  });

export const useTicket = (projectId: string | undefined, ref: string | undefined) =>
  useQuery({
    queryKey: qk.ticket(projectId ?? '', ref ?? ''),
    queryFn: () => api<FullTicket>(ticketPath(projectId!, ref!)),
    enabled: !!projectId && !!ref,
  });

/**
 * The ids of the project's tickets that a search query matches (a saved view applied as a board or
 * backlog filter), read again every 10 seconds while shown.
 */
export const useTicketIdsMatching = (projectId: string, query: string, enabled: boolean) =>
  useQuery({
    queryKey: ['view-tickets', projectId, query],
    queryFn: async ({ signal }) =>
      (await listAll<Ticket>(`${ticketPath(projectId)}?query=${enc(query)}`, signal)).map((t) => t.id),
    enabled,
    refetchInterval: 10_000,
    retry: false,
  });

/** The fields of a ticket update (PATCH), in their canonical spelling (what the cache holds too). */
export type TicketPatch = z.infer<typeof updateTicketBody>;

/** The list shape of a full read (the nested objects stay; the board reads labels from them). */
function mergeable(t: Partial<FullTicket>): Partial<Ticket> & { id: string } {
  return t as Partial<Ticket> & { id: string };
}

/**
 * Updates a ticket optimistically in the board list and in its open views; on failure the previous
 * state comes back and a message says what failed, in the API's words.
 */
export function useUpdateTicket(projectId: string) {
  const qc = useQueryClient();
  const toast = useToast();
  const mutation = useMutation({
    ...QUEUED_OFFLINE,
    mutationFn: ({
      ticket,
      patch,
    }: {
      ticket: Pick<Ticket, 'id' | 'key'>;
      patch: TicketPatch;
      /** This change is an undo: it offers no undo of its own. */
      isUndo?: boolean;
      /** The text of the toast that offers the undo ("WEB-1 moved to Done"). */
      undoText?: string;
    }) =>
      api<FullTicket>(ticketPath(projectId, ticket.id), {
        method: 'PATCH',
        body: patch,
      }),
    onMutate: async ({ ticket, patch }) => {
      await qc.cancelQueries({ queryKey: qk.tickets(projectId) });
      const listBefore = qc.getQueryData<Ticket[]>(qk.tickets(projectId));
      const detailsBefore = qc.getQueriesData<FullTicket>({ queryKey: qk.ticketsOf(projectId) });
      const labels = qc.getQueryData<Label[]>(qk.labels(projectId));
      const before =
        detailsBefore.map(([, d]) => d).find((d) => d?.id === ticket.id) ??
        listBefore?.find((t) => t.id === ticket.id);
      const extra: Partial<Ticket> = {};
      if (patch.labelIds && labels) extra.labels = labels.filter((l) => patch.labelIds!.includes(l.id));
      qc.setQueryData<Ticket[]>(qk.tickets(projectId), (list) => {
        if (!list) return list;
        const current = list.find((t) => t.id === ticket.id);
        if (!current) return list;
        if (patch.columnId !== undefined || patch.order !== undefined) {
          const columnId = patch.columnId ?? current.columnId;
          const order =
            patch.order ??
            (columnId === current.columnId
              ? current.order
              : list.filter((t) => t.columnId === columnId).length);
          return applyMove(list, ticket.id, columnId, order, { ...patch, ...extra } as Partial<Ticket>);
        }
        return list.map((t) => (t.id === ticket.id ? { ...t, ...patch, ...extra } : t));
      });
      qc.setQueriesData<FullTicket>({ queryKey: qk.ticketsOf(projectId) }, (t) =>
        t && t.id === ticket.id ? ({ ...t, ...patch, ...extra } as FullTicket) : t,
      );
      return { listBefore, detailsBefore, before };
    },
    onError: (err, { ticket }, ctx) => {
      if (ctx?.listBefore) qc.setQueryData(qk.tickets(projectId), ctx.listBefore);
      for (const [key, data] of ctx?.detailsBefore ?? []) qc.setQueryData(key, data);
      toast.error(`Could not update ${ticket.key}: ${errorText(err)}`);
    },
    onSuccess: (saved, { ticket, patch, isUndo, undoText }, ctx) => {
      if (!saved?.id) return;
      const reverse = !isUndo && ctx?.before ? reversePatch(ctx.before, patch) : null;
      if (reverse) {
        const moved = patch.columnId !== undefined || patch.order !== undefined;
        toast.undo(undoText ?? `${moved ? 'Moved' : 'Updated'} ${ticket.key}`, () =>
          mutation.mutate({ ticket, patch: { ...reverse, ifUpdatedAt: saved.updatedAt }, isUndo: true }),
        );
      }
      qc.setQueryData<Ticket[]>(qk.tickets(projectId), (list) =>
        list ? upsertTicket(list, mergeable(saved)) : list,
      );
      qc.setQueriesData<FullTicket>({ queryKey: qk.ticketsOf(projectId) }, (t) =>
        t && t.id === saved.id ? { ...t, ...saved } : t,
      );
      qc.invalidateQueries({ queryKey: qk.history(saved.id) });
      if (saved.parentId) qc.invalidateQueries({ queryKey: qk.ticketsOf(projectId) });
      for (const key of planningKeys(projectId)) qc.invalidateQueries({ queryKey: key });
    },
  });
  return mutation;
}

export interface NewTicket extends TicketPatch {
  title: string;
}

export function useCreateTicket(projectId: string) {
  const qc = useQueryClient();
  return useMutation({
    ...QUEUED_OFFLINE,
    mutationFn: (body: NewTicket) => api<FullTicket>(ticketPath(projectId), { method: 'POST', body }),
    onSuccess: (created) => {
      qc.setQueryData<Ticket[]>(qk.tickets(projectId), (list) =>
        list ? upsertTicket(list, mergeable(created)) : list,
      );
      if (created.parentId) qc.invalidateQueries({ queryKey: qk.ticketsOf(projectId) });
      for (const key of planningKeys(projectId)) qc.invalidateQueries({ queryKey: key });
    },
  });
}

export function useDeleteTicket(projectId: string) {
  const qc = useQueryClient();
  return useMutation({
    ...QUEUED_OFFLINE,
    mutationFn: (ticketId: string) =>
      api<{ success: true; trashId: string }>(ticketPath(projectId, ticketId), { method: 'DELETE' }),
    onSuccess: () => {
      qc.invalidateQueries({ queryKey: qk.tickets(projectId) });
      for (const key of planningKeys(projectId)) qc.invalidateQueries({ queryKey: key });
    },
  });
}

/** The same change to several tickets, all or nothing. */
export const bulkUpdateTickets = (projectId: string, ticketIds: string[], updates: TicketPatch) =>
  api<{ success: true; updated: number; tickets: FullTicket[] }>(ticketPath(projectId), {
    method: 'PATCH',
    body: { ticketIds, updates },
  });

/** Deletes several tickets, all or nothing. */
export const bulkDeleteTickets = (projectId: string, ticketIds: string[]) =>
  api<{ success: true; deleted: number; trashIds: string[] }>(ticketPath(projectId), {
    method: 'DELETE',
    body: { ticketIds },
  });
