import type { SprintSettingsTable, SprintsTable, SprintTicketHistoryTable } from '../../db/types.js';
import type { SprintEntryOut, SprintOut, SprintSettingsOut, SprintTicketOut } from '../../shared/sprints.js';

export const presentSprint = (s: SprintsTable): SprintOut => ({
  id: s.id,
  name: s.name,
  goal: s.goal,
  startDate: s.start_date,
  endDate: s.end_date,
  status: s.status,
  budget: s.budget === null ? null : Number(s.budget),
  projectId: s.project_id,
  startedAt: s.started_at ?? null,
  completedAt: s.completed_at,
  createdAt: s.created_at,
  updatedAt: s.updated_at,
});

export const presentSprintTicket = (
  t: {
    id: string;
    number: number;
    title: string;
    type: string;
    priority: string;
    story_points: number | null;
    column_id: string;
  },
  projectKey: string,
): SprintTicketOut => ({
  id: t.id,
  key: `${projectKey}-${t.number}`,
  title: t.title,
  type: t.type,
  priority: t.priority,
  storyPoints: t.story_points === null ? null : Number(t.story_points),
  columnId: t.column_id,
});

export const presentSprintEntry = (e: SprintTicketHistoryTable): SprintEntryOut => ({
  ticketId: e.ticket_id,
  entryType: e.entry_type,
  enteredAt: e.entered_at,
  exitStatus: e.exit_status,
  exitedAt: e.exited_at,
});

/** Settings with the done columns that still exist (`existing`, in board order when given). */
export const presentSprintSettings = (
  s: SprintSettingsTable,
  existingColumnIds: string[],
): SprintSettingsOut => {
  const stored = parseIds(s.done_column_ids);
  return {
    defaultSprintDuration: Number(s.default_sprint_duration),
    autoCarryOverIncomplete: Number(s.auto_carry_over) === 1,
    doneColumnIds: stored.filter((id) => existingColumnIds.includes(id)),
  };
};

export function parseIds(json: string): string[] {
  try {
    const v: unknown = JSON.parse(json);
    return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
  } catch {
    return [];
  }
}
