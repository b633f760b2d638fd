/** The planning pages' reads (epics with their progress, one epic's children, the timeline) and the timeline's date change. */
import { type QueryClient, useQuery, useQueryClient } from '@tanstack/react-query';
import { useRef } from 'react';
import type { EpicsOut, TimelineItemOut, TimelineOut } from '../../shared/planning.js';
import { api, enc } from './client';
import { qk } from './keys';
import { projectPath } from './projects';
import { ticketPath, useUpdateTicket } from './tickets';
import type { Ticket } from './types';

export type {
  EpicOut,
  EpicsOut,
  TimelineGroupOut,
  TimelineItemOut,
  TimelineOut,
} from '../../shared/planning.js';

export const useEpics = (projectId: string) =>
  useQuery({
    queryKey: qk.epics(projectId),
    queryFn: ({ signal }) => api<EpicsOut>(projectPath(projectId, '/epics'), { signal }),
  });

/** One epic's children: the ticket list filtered by parent (the same read as the board's). */
export const useEpicChildren = (projectId: string, epicId: string) =>
  useQuery({
    queryKey: qk.epicChildren(projectId, epicId),
    queryFn: ({ signal }) =>
      api<Ticket[]>(`${ticketPath(projectId)}?parentId=${enc(epicId)}&limit=1000`, { signal }),
  });

export const useTimeline = (projectId: string, from: string, to: string) =>
  useQuery({
    queryKey: qk.timelineWindow(projectId, from, to),
    queryFn: ({ signal }) =>
      api<TimelineOut>(projectPath(projectId, `/timeline?from=${from}&to=${to}`), { signal }),
    placeholderData: (previous) => previous,
  });

type TimelineDates = { startDate: string | null; dueDate: string | null };

/**
 * Moves a ticket's days in every cached timeline window at once (the optimistic half of a drag);
 * returns what puts them back when the server refuses.
 */
function setTimelineDates(qc: QueryClient, projectId: string, ticketId: string, dates: TimelineDates) {
  // A refetch under way would bring the old days back.
  qc.cancelQueries({ queryKey: qk.timeline(projectId) });
  const before = qc.getQueriesData<TimelineOut>({ queryKey: qk.timeline(projectId) });
  qc.setQueriesData<TimelineOut>({ queryKey: qk.timeline(projectId) }, (data) =>
    data
      ? {
          ...data,
          groups: data.groups.map((g) => ({
            epic: g.epic?.id === ticketId ? { ...g.epic, ...dates } : g.epic,
            tickets: g.tickets.map((t) => (t.id === ticketId ? { ...t, ...dates } : t)),
          })),
        }
      : data,
  );
  return () => {
    for (const [key, data] of before) qc.setQueryData(key, data);
  };
}

/**
 * Changes a ticket's start and due dates from the timeline: shown at once in every cached window,
 * sent as a ticket update (`useUpdateTicket`: optimistic on the board too, with its undo), put back
 * when the server refuses. One ticket's changes go out one after the other, so the server keeps the
 * last one. Resolves to whether the server took it.
 */
export function useSetTimelineDates(projectId: string) {
  const qc = useQueryClient();
  const update = useUpdateTicket(projectId);
  const queue = useRef(new Map<string, Promise<boolean>>());
  return (item: Pick<TimelineItemOut, 'id' | 'key' | 'startDate' | 'dueDate'>, dates: TimelineDates) => {
    const restore = setTimelineDates(qc, projectId, item.id, dates);
    const patch: Partial<TimelineDates> = {};
    if (dates.startDate !== item.startDate) patch.startDate = dates.startDate;
    if (dates.dueDate !== item.dueDate) patch.dueDate = dates.dueDate;
    const previous = queue.current.get(item.id) ?? Promise.resolve(true);
    const next = previous.then(() =>
      update.mutateAsync({ ticket: item, patch }).then(
        () => true,
        () => {
          restore();
          return false;
        },
      ),
    );
    queue.current.set(item.id, next);
    next.then(() => {
      if (queue.current.get(item.id) === next) queue.current.delete(item.id);
    });
    return next;
  };
}
