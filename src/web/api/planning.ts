/** The planning pages' reads: epics with their progress, one epic's children, the timeline. */
import { type QueryClient, useQuery } from '@tanstack/react-query';
import type { EpicsOut, TimelineOut } from '../../shared/planning.js';
import { api, enc } from './client';
import { qk } from './keys';
import { projectPath } from './projects';
import { ticketPath } from './tickets';
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

/**
 * Moves a ticket's days in every cached timeline window at once (the optimistic half of a drag);
 * returns what was there, for `restoreTimeline` when the server refuses.
 */
export function setTimelineDates(
  qc: QueryClient,
  projectId: string,
  ticketId: string,
  dates: { startDate: string | null; dueDate: string | null },
) {
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
  return before;
}

export function restoreTimeline(qc: QueryClient, before: ReturnType<typeof setTimelineDates>) {
  for (const [key, data] of before) qc.setQueryData(key, data);
}
