/**
 * Sprints: the list, settings and reports, and the writes of the planning screens (sprint
 * lifecycle and bulk ticket changes). Each write answers the server's record and brings the cache
 * up to date at once (this tab's own events are not replayed to it), so the backlog, the board and
 * the reports agree without waiting for a refetch.
 */
import { type QueryClient, useQuery, useQueryClient } from '@tanstack/react-query';
import { useMemo, useRef } from 'react';
import type { z } from 'zod';
import type { updateSprintBody, updateSprintSettingsBody } from '../../shared/sprints.js';
import { removeTicket, upsertTicket } from './cache';
import { api, enc, listAll } from './client';
import { qk } from './keys';
import { projectPath } from './projects';
import { bulkDeleteTickets, bulkUpdateTickets, type TicketPatch } from './tickets';
import { useUndoDelete } from './trash';
import type {
  Burndown,
  CompleteResult,
  FullTicket,
  SprintFull,
  SprintSettings,
  Ticket,
  Velocity,
} from './types';
import { useBulkUndo } from './undo';

export const sprintPath = (projectId: string, rest = '') => projectPath(projectId, `/sprints${rest}`);

/** The project's sprints; a project whose sprint endpoints are unavailable simply has none. */
export const useSprints = (projectId: string | undefined) =>
  useQuery({
    queryKey: qk.sprints(projectId ?? ''),
    queryFn: ({ signal }) => listAll<SprintFull>(sprintPath(projectId!), signal),
    enabled: !!projectId,
    retry: false,
  });

export const useSprintSettings = (projectId: string | undefined) =>
  useQuery({
    queryKey: qk.sprintSettings(projectId ?? ''),
    queryFn: () => api<SprintSettings>(sprintPath(projectId!, '/settings')),
    enabled: !!projectId,
  });

export const saveSprintSettings = (projectId: string, body: z.input<typeof updateSprintSettingsBody>) =>
  api<SprintSettings>(sprintPath(projectId, '/settings'), { method: 'PATCH', body });

export const useBurndown = (projectId: string | undefined, sprintId: string | undefined) =>
  useQuery({
    queryKey: qk.burndown(projectId ?? '', sprintId ?? ''),
    queryFn: () => api<Burndown>(sprintPath(projectId!, `/${enc(sprintId!)}/burndown`)),
    enabled: !!projectId && !!sprintId,
  });

export const useVelocity = (projectId: string | undefined) =>
  useQuery({
    queryKey: qk.velocity(projectId ?? ''),
    queryFn: () => api<Velocity>(sprintPath(projectId!, '/velocity?limit=10')),
    enabled: !!projectId,
  });

/** The fields of a sprint's create and update bodies. */
export type SprintFields = z.input<typeof updateSprintBody>;

export type IncompleteAction = CompleteResult['incompleteAction'];

/** Bulk updates take the same fields as a single update, without the position. */
export type BulkUpdates = Omit<TicketPatch, 'order'>;

/** Brings fresh ticket records into the board list, and refetches their open full reads. */
function mergeInto(qc: QueryClient, projectId: string, tickets: FullTicket[]) {
  qc.setQueryData<Ticket[]>(qk.tickets(projectId), (list) => {
    if (!list) return list;
    let next = list;
    for (const t of tickets) next = upsertTicket(next, t as Ticket);
    return next;
  });
  const ids = new Set(tickets.map((t) => t.id));
  qc.invalidateQueries({
    queryKey: qk.ticketsOf(projectId),
    predicate: (q) => ids.has((q.state.data as FullTicket | undefined)?.id ?? ''),
  });
}

export function useSprintActions(projectId: string) {
  const qc = useQueryClient();
  // The undo offers read the latest toast and cache through refs: the actions object stays stable.
  const offers = {
    bulk: useBulkUndo(projectId, (tickets) => mergeInto(qc, projectId, tickets)),
    remove: useUndoDelete(projectId),
  };
  const undo = useRef(offers);
  undo.current = offers;
  return useMemo(() => {
    const refreshSprints = () => {
      qc.invalidateQueries({ queryKey: qk.sprints(projectId) });
      qc.invalidateQueries({ queryKey: ['burndown', projectId] });
      qc.invalidateQueries({ queryKey: qk.velocity(projectId) });
    };
    const refreshTickets = () => {
      qc.invalidateQueries({ queryKey: qk.tickets(projectId) });
      qc.invalidateQueries({ queryKey: qk.ticketsOf(projectId) });
    };
    const mergeTickets = (tickets: FullTicket[]) => mergeInto(qc, projectId, tickets);
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
      /** One all-or-nothing update; offers its undo in a toast saying `undoText` (none: false). */
      async bulkUpdate(ticketIds: string[], updates: BulkUpdates, undoText?: string | false) {
        const before = qc.getQueryData<Ticket[]>(qk.tickets(projectId)) ?? [];
        const out = await bulkUpdateTickets(projectId, ticketIds, updates);
        mergeTickets(out.tickets ?? []);
        if (undoText !== false) undo.current.bulk(before, out.tickets ?? [], updates, undoText);
        if (updates.sprintId !== undefined) refreshSprints();
        return out;
      },
      /** Deletes into the trash, and offers the undo (restore). */
      async bulkDelete(ticketIds: string[]) {
        const out = await bulkDeleteTickets(projectId, ticketIds);
        const n = out.trashIds.length;
        undo.current.remove(`${n} ticket${n === 1 ? '' : 's'} deleted`, out.trashIds);
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
