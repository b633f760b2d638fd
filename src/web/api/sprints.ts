/**
 * Sprints: the list, settings and reports, and the writes of the planning screens (sprint
 * lifecycle and bulk ticket changes) as mutation hooks.
 */
import { type QueryClient, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useMemo, useRef } from 'react';
import type { z } from 'zod';
import type { updateSprintBody, updateSprintSettingsBody } from '../../shared/sprints.js';
import { removeTicket, upsertTicket } from './cache';
import { api, enc, listAll } from './client';
import { qk } from './keys';
import { projectPath } from './projects';
import { invalidate } from './query-client';
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

/** The read of a project's sprints (for `useQuery` and `useQueries`). */
export const sprintsQuery = (projectId: string) => ({
  queryKey: qk.sprints(projectId),
  queryFn: ({ signal }: { signal: AbortSignal }) => listAll<SprintFull>(sprintPath(projectId), signal),
});

/** The project's sprints; a project whose sprint endpoints are unavailable simply has none. */
export const useSprints = (projectId: string | undefined) =>
  useQuery({ ...sprintsQuery(projectId ?? ''), enabled: !!projectId, retry: false });

export const useSprintSettings = (projectId: string | undefined) =>
  useQuery({
    queryKey: qk.sprintSettings(projectId ?? ''),
    queryFn: () => api<SprintSettings>(sprintPath(projectId!, '/settings')),
    enabled: !!projectId,
  });

/** Saves the project's sprint settings; the cache takes the saved record. */
export function useSaveSprintSettings(projectId: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (body: z.input<typeof updateSprintSettingsBody>) =>
      api<SprintSettings>(sprintPath(projectId, '/settings'), { method: 'PATCH', body }),
    onSuccess: (saved) => qc.setQueryData(qk.sprintSettings(projectId), saved),
  });
}

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
function mergeTickets(qc: QueryClient, projectId: string, tickets: FullTicket[]) {
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

/** The sprint list and the reports read from it. */
const refreshSprints = (qc: QueryClient, projectId: string) =>
  invalidate(qc, qk.sprints(projectId), ['burndown', projectId], qk.velocity(projectId));

/** The board list and every open full read of the project's tickets. */
const refreshTickets = (qc: QueryClient, projectId: string) =>
  invalidate(qc, qk.tickets(projectId), qk.ticketsOf(projectId));

const sprintUrl = (projectId: string, sprintId: string, rest = '') =>
  sprintPath(projectId, `/${enc(sprintId)}${rest}`);

export function useCreateSprint(projectId: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (body: SprintFields) => api<SprintFull>(sprintPath(projectId), { method: 'POST', body }),
    onSuccess: (sprint) => {
      qc.setQueryData<SprintFull[]>(qk.sprints(projectId), (list) =>
        list && !list.some((s) => s.id === sprint.id) ? [...list, sprint] : list,
      );
      refreshSprints(qc, projectId);
    },
  });
}

export function useUpdateSprint(projectId: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ sprintId, body }: { sprintId: string; body: SprintFields }) =>
      api<SprintFull>(sprintUrl(projectId, sprintId), { method: 'PATCH', body }),
    onSuccess: (sprint) => {
      qc.setQueryData<SprintFull[]>(qk.sprints(projectId), (list) =>
        list?.map((s) => (s.id === sprint.id ? { ...s, ...sprint } : s)),
      );
      refreshSprints(qc, projectId);
    },
  });
}

/** Deletes a sprint; its tickets go to the backlog. */
export function useDeleteSprint(projectId: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (sprintId: string) => api(sprintUrl(projectId, sprintId), { method: 'DELETE' }),
    onSuccess: (_, sprintId) => {
      qc.setQueryData<SprintFull[]>(qk.sprints(projectId), (list) => list?.filter((s) => s.id !== sprintId));
      qc.setQueryData<Ticket[]>(qk.tickets(projectId), (list) =>
        list?.map((t) => (t.sprintId === sprintId ? { ...t, sprintId: null } : t)),
      );
      refreshSprints(qc, projectId);
      refreshTickets(qc, projectId);
    },
  });
}

export function useStartSprint(projectId: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({
      sprintId,
      startDate,
      endDate,
    }: {
      sprintId: string;
      startDate: string;
      endDate: string;
    }) =>
      api<{ id: string; startDate: string; endDate: string }>(sprintUrl(projectId, sprintId, '/start'), {
        method: 'POST',
        body: { startDate, endDate },
      }),
    onSuccess: () => {
      refreshSprints(qc, projectId);
    },
  });
}

/** Completes a sprint; its open tickets go to the backlog or the next sprint (`incompleteAction`). */
export function useCompleteSprint(projectId: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({
      sprintId,
      incompleteAction,
      nextSprintId,
    }: {
      sprintId: string;
      incompleteAction: IncompleteAction;
      nextSprintId?: string;
    }) =>
      api<CompleteResult>(sprintUrl(projectId, sprintId, '/complete'), {
        method: 'POST',
        body: { incompleteAction, ...(nextSprintId ? { nextSprintId } : {}) },
      }),
    onSuccess: () => {
      refreshSprints(qc, projectId);
      refreshTickets(qc, projectId);
    },
  });
}

export function useExtendSprint(projectId: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ sprintId, newEndDate }: { sprintId: string; newEndDate: string }) =>
      api<SprintFull>(sprintUrl(projectId, sprintId, '/extend'), { method: 'POST', body: { newEndDate } }),
    onSuccess: () => {
      refreshSprints(qc, projectId);
    },
  });
}

/**
 * One all-or-nothing update of many tickets, merged into the board list when it answers; its toast
 * says `undoText` and offers the undo (none: `undoText` false).
 */
export function useBulkUpdateTickets(projectId: string) {
  const qc = useQueryClient();
  const offerUndo = useBulkUndo(projectId, (tickets) => mergeTickets(qc, projectId, tickets));
  const offer = useRef(offerUndo);
  offer.current = offerUndo;
  return useMutation({
    mutationFn: ({
      ticketIds,
      updates,
    }: {
      ticketIds: string[];
      updates: BulkUpdates;
      undoText?: string | false;
    }) => bulkUpdateTickets(projectId, ticketIds, updates),
    onMutate: () => ({ before: qc.getQueryData<Ticket[]>(qk.tickets(projectId)) ?? [] }),
    onSuccess: (out, { updates, undoText }, ctx) => {
      mergeTickets(qc, projectId, out.tickets ?? []);
      if (undoText !== false) offer.current(ctx.before, out.tickets ?? [], updates, undoText);
      if (updates.sprintId !== undefined) refreshSprints(qc, projectId);
    },
  });
}

/** Deletes tickets into the trash (all or nothing), and offers the undo (restore). */
export function useBulkDeleteTickets(projectId: string) {
  const qc = useQueryClient();
  const undoDelete = useUndoDelete(projectId);
  const offer = useRef(undoDelete);
  offer.current = undoDelete;
  return useMutation({
    mutationFn: (ticketIds: string[]) => bulkDeleteTickets(projectId, ticketIds),
    onSuccess: (out, ticketIds) => {
      const n = out.trashIds.length;
      offer.current(`${n} ticket${n === 1 ? '' : 's'} deleted`, out.trashIds);
      qc.setQueryData<Ticket[]>(qk.tickets(projectId), (list) => {
        if (!list) return list;
        let next = list;
        for (const id of ticketIds) next = removeTicket(next, id);
        return next;
      });
      refreshTickets(qc, projectId);
      refreshSprints(qc, projectId);
    },
  });
}

/**
 * The writes of the planning screens (sprint lifecycle and bulk ticket changes) as one stable
 * object of the mutation hooks above, for the sprint dialogs that take several of them. Each
 * answers the server's record and brings the cache up to date at once (this tab's own events are
 * not replayed to it), so the backlog, the board and the reports agree without waiting for a refetch.
 */
export function useSprintActions(projectId: string) {
  const create = useCreateSprint(projectId).mutateAsync;
  const update = useUpdateSprint(projectId).mutateAsync;
  const remove = useDeleteSprint(projectId).mutateAsync;
  const start = useStartSprint(projectId).mutateAsync;
  const complete = useCompleteSprint(projectId).mutateAsync;
  const extend = useExtendSprint(projectId).mutateAsync;
  const bulkUpdate = useBulkUpdateTickets(projectId).mutateAsync;
  const bulkDelete = useBulkDeleteTickets(projectId).mutateAsync;
  return useMemo(
    () => ({
      create: (body: SprintFields) => create(body),
      update: (sprintId: string, body: SprintFields) => update({ sprintId, body }),
      remove: async (sprintId: string) => {
        await remove(sprintId);
      },
      start: (sprintId: string, startDate: string, endDate: string) =>
        start({ sprintId, startDate, endDate }),
      complete: (sprintId: string, incompleteAction: IncompleteAction, nextSprintId?: string) =>
        complete({ sprintId, incompleteAction, nextSprintId }),
      extend: (sprintId: string, newEndDate: string) => extend({ sprintId, newEndDate }),
      /** One all-or-nothing update; offers its undo in a toast saying `undoText` (none: false). */
      bulkUpdate: (ticketIds: string[], updates: BulkUpdates, undoText?: string | false) =>
        bulkUpdate({ ticketIds, updates, undoText }),
      /** Deletes into the trash, and offers the undo (restore). */
      bulkDelete: (ticketIds: string[]) => bulkDelete(ticketIds),
    }),
    [create, update, remove, start, complete, extend, bulkUpdate, bulkDelete],
  );
}

export type SprintActions = ReturnType<typeof useSprintActions>;
