/**
 * Writes of the planning screens: sprint lifecycle and bulk ticket changes. Each call answers the
 * server's record and brings the cache up to date at once (this tab's own events are not replayed to
 * it), so the backlog, the board and the reports agree without waiting for a refetch.
 */
import { useQueryClient } from '@tanstack/react-query';
import { useMemo } from 'react';
import { removeTicket, upsertTicket } from '../../api/cache';
import { api, enc } from '../../api/client';
import type { TicketPatch } from '../../api/mutations';
import { type CompleteResult, qk2, type SprintFull, sprintPath } from '../../api/part2';
import { qk } from '../../api/queries';
import type { FullTicket, Ticket } from '../../api/types';

export interface SprintFields {
  name?: string;
  goal?: string | null;
  startDate?: string | null;
  endDate?: string | null;
  budget?: number | null;
}

export type IncompleteAction = CompleteResult['incompleteAction'];

/** Bulk updates take the same fields as a single update, without the position. */
export type BulkUpdates = Omit<TicketPatch, 'order'>;

export function useSprintActions(projectId: string) {
  const qc = useQueryClient();
  return useMemo(() => {
    const refreshSprints = () => {
      qc.invalidateQueries({ queryKey: qk.sprints(projectId) });
      qc.invalidateQueries({ queryKey: ['burndown', projectId] });
      qc.invalidateQueries({ queryKey: qk2.velocity(projectId) });
    };
    const refreshTickets = () => {
      qc.invalidateQueries({ queryKey: qk.tickets(projectId) });
      qc.invalidateQueries({ queryKey: ['ticket', projectId] });
    };
    const mergeTickets = (tickets: FullTicket[]) => {
      qc.setQueryData<Ticket[]>(qk.tickets(projectId), (list) => {
        if (!list) return list;
        let next = list;
        for (const t of tickets) next = upsertTicket(next, t as Ticket);
        return next;
      });
      const ids = new Set(tickets.map((t) => t.id));
      qc.invalidateQueries({
        queryKey: ['ticket', projectId],
        predicate: (q) => ids.has((q.state.data as FullTicket | undefined)?.id ?? ''),
      });
    };
    return {
      async create(body: SprintFields) {
        const sprint = await api<SprintFull>(sprintPath(projectId), { method: 'POST', body });
        qc.setQueryData<SprintFull[]>(qk.sprints(projectId), (list) =>
          list && !list.some((s) => s.id === sprint.id) ? [...list, sprint] : list,
        );
        refreshSprints();
        return sprint;
      },
      async update(sprintId: string, body: SprintFields) {
        const sprint = await api<SprintFull>(sprintPath(projectId, `/${enc(sprintId)}`), {
          method: 'PATCH',
          body,
        });
        qc.setQueryData<SprintFull[]>(qk.sprints(projectId), (list) =>
          list?.map((s) => (s.id === sprint.id ? { ...s, ...sprint } : s)),
        );
        refreshSprints();
        return sprint;
      },
      async remove(sprintId: string) {
        await api(sprintPath(projectId, `/${enc(sprintId)}`), { method: 'DELETE' });
        qc.setQueryData<SprintFull[]>(qk.sprints(projectId), (list) =>
          list?.filter((s) => s.id !== sprintId),
        );
        // Its tickets went to the backlog.
        qc.setQueryData<Ticket[]>(qk.tickets(projectId), (list) =>
          list?.map((t) => (t.sprintId === sprintId ? { ...t, sprintId: null } : t)),
        );
        refreshSprints();
        refreshTickets();
      },
      async start(sprintId: string, startDate: string, endDate: string) {
        const out = await api<{ id: string; startDate: string; endDate: string }>(
          sprintPath(projectId, `/${enc(sprintId)}/start`),
          { method: 'POST', body: { startDate, endDate } },
        );
        refreshSprints();
        return out;
      },
      async complete(sprintId: string, incompleteAction: IncompleteAction, nextSprintId?: string) {
        const out = await api<CompleteResult>(sprintPath(projectId, `/${enc(sprintId)}/complete`), {
          method: 'POST',
          body: { incompleteAction, ...(nextSprintId ? { nextSprintId } : {}) },
        });
        refreshSprints();
        refreshTickets();
        return out;
      },
      async extend(sprintId: string, newEndDate: string) {
        const out = await api<SprintFull>(sprintPath(projectId, `/${enc(sprintId)}/extend`), {
          method: 'POST',
          body: { newEndDate },
        });
        refreshSprints();
        return out;
      },
      /** One all-or-nothing update of many tickets. */
      async bulkUpdate(ticketIds: string[], updates: BulkUpdates) {
        const out = await api<{ success: true; updated: number; tickets: FullTicket[] }>(
          `/api/projects/${enc(projectId)}/tickets`,
          { method: 'PATCH', body: { ticketIds, updates } },
        );
        mergeTickets(out.tickets ?? []);
        if (updates.sprintId !== undefined) refreshSprints();
        return out;
      },
      async bulkDelete(ticketIds: string[]) {
        const out = await api<{ success: true; deleted: number }>(`/api/projects/${enc(projectId)}/tickets`, {
          method: 'DELETE',
          body: { ticketIds },
        });
        qc.setQueryData<Ticket[]>(qk.tickets(projectId), (list) => {
          if (!list) return list;
          let next = list;
          for (const id of ticketIds) next = removeTicket(next, id);
          return next;
        });
        refreshTickets();
        refreshSprints();
        return out;
      },
    };
  }, [qc, projectId]);
}

export type SprintActions = ReturnType<typeof useSprintActions>;
