import { useMemo } from 'react';
import { doneColumnIds } from '../../shared/rules';
import { useColumns } from '../api/columns';
import { useLabels } from '../api/labels';
import { useMembers } from '../api/members';
import { useSession } from '../api/session';
import { useSprintSettings, useSprints } from '../api/sprints';
import { useTickets } from '../api/tickets';

/**
 * Which columns of a project count as done (no overdue mark there, complete in sprints, reports and
 * subtask progress): the sprint settings' choice, else the last column (`doneColumnIds`).
 */
export function useDoneColumnIds(projectId: string | undefined): Set<string> {
  const columns = useColumns(projectId);
  const settings = useSprintSettings(projectId);
  return useMemo(
    () =>
      new Set(
        doneColumnIds(
          (columns.data ?? []).map((c) => c.id),
          settings.data?.doneColumnIds ?? [],
        ),
      ),
    [columns.data, settings.data],
  );
}

/**
 * What the project pages that show tickets (the board, the backlog, the New-ticket dialog) read of
 * a project: its tickets, columns, members, labels, sprints and sprint settings (each the shared
 * cached query, so that the pages and the event stream agree), with the lookups they all build:
 * labels and members by id, the done columns, and who I am.
 */
export function useProjectData(projectId: string | undefined) {
  const tickets = useTickets(projectId);
  const columns = useColumns(projectId);
  const members = useMembers(projectId);
  const labels = useLabels(projectId);
  const sprints = useSprints(projectId);
  const sprintSettings = useSprintSettings(projectId);
  const doneIds = useDoneColumnIds(projectId);
  const me = useSession().data?.user?.id;
  const labelsById = useMemo(() => new Map((labels.data ?? []).map((l) => [l.id, l])), [labels.data]);
  const membersById = useMemo(
    () => new Map((members.data ?? []).map((m) => [m.userId, m.user])),
    [members.data],
  );
  return { tickets, columns, members, labels, sprints, sprintSettings, doneIds, labelsById, membersById, me };
}

export type ProjectData = ReturnType<typeof useProjectData>;
