import { DndContext, DragOverlay } from '@dnd-kit/core';
import { useEffect, useMemo, useRef, useState } from 'react';
import { errorText } from '../api/client';
import { type SprintActions, useSprintActions } from '../api/sprints';
import { useUpdateTicket } from '../api/tickets';
import type { SprintFull } from '../api/types';
import { PRIORITIES, type Project, type Ticket } from '../api/types';
import { ConfirmDialog } from '../components/ConfirmDialog';
import { PlusIcon } from '../components/icons';
import { ProjectFrame } from '../components/ProjectNav';
import { useShell } from '../components/shell-context';
import { BulkDeleteDialog } from '../components/sprint/BulkDeleteDialog';
import { BulkEditDialog } from '../components/sprint/BulkEditDialog';
import {
  CompleteSprintDialog,
  ExtendSprintDialog,
  SprintFormDialog,
  StartSprintDialog,
} from '../components/sprint/SprintDialogs';
import {
  anyTicketFilter,
  matchesTicketFilters,
  noTicketFilters,
  type TicketFilterValues,
} from '../components/TicketFilters';
import { useToast } from '../components/toast';
import { Button, EmptyState, ErrorState, Skeleton } from '../components/ui';
import { type ProjectData, useProjectData } from '../hooks/project-data';
import { filtersFromSearch, replaceSearch, searchOfFilters } from '../lib/filter-address';
import { SelectionBar, SprintActionsBar, Toolbar } from './backlog-bars';
import { BACKLOG, DraggedRow, useSectionDrag } from './backlog-drag';
import { PlanSection, type RowContext } from './backlog-sections';
import { TicketDrawer } from './ticket-drawer';

/** The backlog: tickets without a sprint, and the open sprints as sections to plan and run. */
export function BacklogPage({ projectKey }: { projectKey: string }) {
  const [creating, setCreating] = useState(false);
  return (
    <ProjectFrame
      projectKey={projectKey}
      tab="backlog"
      actions={() => (
        <Button variant="primary" size="sm" onClick={() => setCreating(true)}>
          <PlusIcon /> <span className="hidden sm:inline">Create sprint</span>
        </Button>
      )}
    >
      {(project) => (
        <Backlog
          project={project}
          creating={creating}
          openCreate={() => setCreating(true)}
          closeCreate={() => setCreating(false)}
        />
      )}
    </ProjectFrame>
  );
}

export type SortKey = 'rank' | 'priority' | 'number' | 'points' | 'updated';
export const SORTS: { key: SortKey; label: string; desc: boolean }[] = [
  { key: 'rank', label: 'Board order', desc: false },
  { key: 'priority', label: 'Priority', desc: true },
  { key: 'number', label: 'Number', desc: false },
  { key: 'points', label: 'Story points', desc: true },
  { key: 'updated', label: 'Last updated', desc: true },
];

/** The sort as the address writes it: `priority-desc`. */
const sortText = (s: { key: SortKey; desc: boolean }) => `${s.key}-${s.desc ? 'desc' : 'asc'}`;

/** The backlog's filters and sort named by a query string (the defaults for what it leaves out). */
export function backlogStateOf(search: string) {
  const named = filtersFromSearch(search) ?? {};
  const [key, dir] = (named.sort ?? '').split('-');
  const known = SORTS.find((s) => s.key === key);
  const { sort: _sort, group: _group, sprint: _sprint, ...rest } = named;
  return {
    filters: { ...noTicketFilters, ...rest },
    sort: known
      ? { key: known.key, desc: dir ? dir === 'desc' : known.desc }
      : { key: 'rank' as SortKey, desc: false },
  };
}

export type DialogState =
  | { kind: 'edit' | 'start' | 'complete' | 'extend' | 'delete'; sprint: SprintFull }
  | { kind: 'bulk-edit' | 'bulk-delete' };

type Sort = { key: SortKey; desc: boolean };

/** Filters and sort come from the address (a shared link, a reload) and are written back to it. */
function useBacklogAddress() {
  const [initial] = useState(() => backlogStateOf(window.location.search));
  const [filters, setFilters] = useState<TicketFilterValues>(initial.filters);
  const [sort, setSort] = useState<Sort>(initial.sort);
  useEffect(() => {
    replaceSearch(searchOfFilters({ ...filters, sort: sortText(sort) }, { sort: 'rank-asc' }));
  }, [filters, sort]);
  return { filters, setFilters, sort, setSort };
}

/** The shell's "/" focuses this page's search field. */
function useSearchFocus() {
  const shell = useShell();
  const searchRef = useRef<HTMLInputElement>(null);
  useEffect(() => {
    shell.setSearchFocus(() => searchRef.current?.focus());
    return () => shell.setSearchFocus(null);
  }, [shell]);
  return searchRef;
}

/** The order of one section's tickets under the chosen sort (ties by number). */
function comparer(sort: Sort, colIndex: Map<string, number>) {
  return (a: Ticket, b: Ticket) => {
    let d = 0;
    switch (sort.key) {
      case 'rank':
        d = (colIndex.get(a.columnId) ?? 0) - (colIndex.get(b.columnId) ?? 0) || a.order - b.order;
        break;
      case 'priority':
        d = PRIORITIES.indexOf(a.priority) - PRIORITIES.indexOf(b.priority);
        break;
      case 'number':
        d = a.number - b.number;
        break;
      case 'points':
        d = (a.storyPoints ?? -1) - (b.storyPoints ?? -1);
        break;
      case 'updated':
        d = a.updatedAt.localeCompare(b.updatedAt);
        break;
    }
    return (sort.desc ? -d : d) || a.number - b.number;
  };
}

/**
 * The plan: the open sprints (the active one first) and the backlog as sections, each with its
 * tickets, and the tickets each shows under the filters and the sort.
 */
function usePlan(data: ProjectData, filters: TicketFilterValues, sort: Sort) {
  const cols = data.columns.data ?? [];
  const colIndex = useMemo(() => new Map(cols.map((c, i) => [c.id, i])), [cols]);
  const open = (data.sprints.data ?? []).filter((s) => s.status !== 'completed');
  const activeSprint = open.find((s) => s.status === 'active');
  const planning = open.filter((s) => s.status === 'planning');
  const openIds = new Set(open.map((s) => s.id));
  const all = data.tickets.data ?? [];
  const planned = all.filter((t) => !t.sprintId || openIds.has(t.sprintId));
  const bySection = new Map<string, Ticket[]>();
  for (const t of planned) {
    const k = t.sprintId ?? BACKLOG;
    const list = bySection.get(k);
    if (list) list.push(t);
    else bySection.set(k, [t]);
  }
  const compare = comparer(sort, colIndex);
  const shownOf = (k: string) =>
    (bySection.get(k) ?? [])
      .filter((t) => matchesTicketFilters(t, filters, data.me, data.labelsById))
      .sort(compare);
  return {
    all,
    open,
    activeSprint,
    planning,
    sectionSprints: activeSprint ? [activeSprint, ...planning] : planning,
    planned,
    bySection,
    byId: new Map(planned.map((t) => [t.id, t])),
    shownOf,
    /** A section's name in a message: the sprint's, or "the backlog" (null). */
    sectionName: (target: string | null) =>
      target ? (open.find((s) => s.id === target)?.name ?? 'the sprint') : 'the backlog',
  };
}

type Plan = ReturnType<typeof usePlan>;

/** Moves tickets to a sprint (or the backlog: null): one update, or one bulk update for several. */
function useMoveTo(projectId: string, plan: Plan, actions: SprintActions) {
  const toast = useToast();
  const update = useUpdateTicket(projectId);
  return (list: Ticket[], target: string | null) => {
    const moving = list.filter((t) => (t.sprintId ?? null) !== target);
    if (moving.length === 0) return;
    if (moving.length === 1) {
      const t = moving[0];
      update.mutate({
        ticket: t,
        patch: { sprintId: target },
        undoText: `${t.key} moved to ${plan.sectionName(target)}`,
      });
      return;
    }
    actions
      .bulkUpdate(
        moving.map((t) => t.id),
        { sprintId: target },
        `${moving.length} tickets moved to ${plan.sectionName(target)}`,
      )
      .catch((err) => toast.error(`Could not move the tickets: ${errorText(err)}`));
  };
}

export function Backlog({
  project,
  creating,
  openCreate,
  closeCreate,
}: {
  project: Project;
  creating: boolean;
  openCreate: () => void;
  closeCreate: () => void;
}) {
  const shell = useShell();
  const data = useProjectData(project.id);
  const { tickets, columns, members, labels, sprints } = data;
  const actions = useSprintActions(project.id);
  const { filters, setFilters, sort, setSort } = useBacklogAddress();
  const searchRef = useSearchFocus();
  const [selected, setSelected] = useState<Set<string>>(() => new Set());
  const [collapsed, setCollapsed] = useState<Set<string>>(() => new Set());
  const [dialog, setDialog] = useState<DialogState | null>(null);
  const [openTicket, setOpenTicket] = useState<string | null>(null);

  const plan = usePlan(data, filters, sort);
  const selectedTickets = plan.planned.filter((t) => selected.has(t.id));
  const toggle = (ids: string[], on: boolean) =>
    setSelected((s) => {
      const next = new Set(s);
      for (const id of ids) {
        if (on) next.add(id);
        else next.delete(id);
      }
      return next;
    });
  const moveTo = useMoveTo(project.id, plan, actions);
  const drag = useSectionDrag(plan, selected, selectedTickets, moveTo);

  const error = tickets.error ?? columns.error ?? sprints.error;
  const ready = !!(tickets.data && columns.data && sprints.data);
  const cols = columns.data ?? [];
  const sectionCommon = {
    ctx: {
      project,
      colName: new Map(cols.map((c) => [c.id, c.name])),
      doneIds: data.doneIds,
      labelsById: data.labelsById,
      membersById: data.membersById,
      open: plan.open,
      selected,
      toggle,
      moveTo,
      openTicket: (t: Ticket) => setOpenTicket(t.key),
    } satisfies RowContext,
    collapsed,
    setCollapsed,
    newTicket: (sprintId: string | null) =>
      shell.newTicket(project.id, sprintId ? { sprintId } : { sprintId: null }),
    anyFilter: anyTicketFilter(filters),
  };

  return (
    <div className="flex flex-col" data-testid="backlog-page">
      <Toolbar
        filters={filters}
        setFilters={setFilters}
        sort={sort}
        setSort={setSort}
        members={members.data ?? []}
        labels={labels.data ?? []}
        searchRef={searchRef}
      />
      {selectedTickets.length > 0 && (
        <SelectionBar
          tickets={selectedTickets}
          open={plan.open}
          moveTo={moveTo}
          clear={() => setSelected(new Set())}
          onEdit={() => setDialog({ kind: 'bulk-edit' })}
          onDelete={() => setDialog({ kind: 'bulk-delete' })}
        />
      )}
      {error ? (
        <ErrorState
          message={errorText(error)}
          onRetry={() => {
            tickets.refetch();
            columns.refetch();
            sprints.refetch();
          }}
        />
      ) : !ready ? (
        <div className="flex flex-col gap-3 p-4" role="status" aria-busy="true" aria-label="Loading backlog">
          {[0, 1, 2].map((i) => (
            <Skeleton key={i} className="h-28" />
          ))}
        </div>
      ) : (
        <PlanBoard
          project={project}
          plan={plan}
          drag={drag}
          sectionCommon={sectionCommon}
          openDialog={setDialog}
          openCreate={openCreate}
        />
      )}

      <BacklogDialogs
        data={data}
        plan={plan}
        actions={actions}
        creating={creating}
        closeCreate={closeCreate}
        dialog={dialog}
        closeDialog={() => setDialog(null)}
        selectedTickets={selectedTickets}
        clearSelection={() => setSelected(new Set())}
      />
      {openTicket && (
        <TicketDrawer project={project} ticketRef={openTicket} onClose={() => setOpenTicket(null)} />
      )}
    </div>
  );
}

type SectionCommon = Omit<Parameters<typeof PlanSection>[0], 'id' | 'title' | 'sprint' | 'tickets' | 'shown'>;

/** The loaded plan: a section per open sprint (with its actions), the backlog, and the drag layer. */
function PlanBoard({
  project,
  plan,
  drag,
  sectionCommon,
  openDialog,
  openCreate,
}: {
  project: Project;
  plan: Plan;
  drag: ReturnType<typeof useSectionDrag>;
  sectionCommon: SectionCommon;
  openDialog: (d: DialogState) => void;
  openCreate: () => void;
}) {
  const shell = useShell();
  return (
    <DndContext {...drag.dndProps}>
      <div className="flex flex-col gap-3 p-3 sm:p-4">
        {plan.sectionSprints.map((s) => (
          <PlanSection
            key={s.id}
            id={s.id}
            title={s.name}
            sprint={s}
            tickets={plan.bySection.get(s.id) ?? []}
            shown={plan.shownOf(s.id)}
            {...sectionCommon}
            headerActions={
              <SprintActionsBar
                sprint={s}
                otherActive={!!plan.activeSprint && plan.activeSprint.id !== s.id}
                open={(kind) => openDialog({ kind, sprint: s })}
              />
            }
          />
        ))}
        {plan.sectionSprints.length === 0 && (
          <div className="rounded-lg border border-dashed border-line px-4 py-5 text-center text-muted">
            No sprint is planned.{' '}
            <button type="button" className="text-accent hover:underline" onClick={openCreate}>
              Create a sprint
            </button>{' '}
            and drag tickets into it.
          </div>
        )}
        <PlanSection
          id={BACKLOG}
          title="Backlog"
          tickets={plan.bySection.get(BACKLOG) ?? []}
          shown={plan.shownOf(BACKLOG)}
          {...sectionCommon}
        />
        {plan.all.length === 0 && (
          <EmptyState
            title="No tickets yet"
            action={
              <Button variant="primary" onClick={() => shell.newTicket(project.id)}>
                Create a ticket
              </Button>
            }
          />
        )}
      </div>
      <DragOverlay dropAnimation={null}>
        {drag.dragging ? <DraggedRow ticket={drag.dragging} count={drag.dragCount} /> : null}
      </DragOverlay>
    </DndContext>
  );
}

/** The sprint dialogs (create, edit, start, extend, complete, delete) and the bulk ones. */
function BacklogDialogs({
  data,
  plan,
  actions,
  creating,
  closeCreate,
  dialog,
  closeDialog,
  selectedTickets,
  clearSelection,
}: {
  data: ProjectData;
  plan: Plan;
  actions: SprintActions;
  creating: boolean;
  closeCreate: () => void;
  dialog: DialogState | null;
  closeDialog: () => void;
  selectedTickets: Ticket[];
  clearSelection: () => void;
}) {
  const toast = useToast();
  const settings = data.sprintSettings.data;
  const sprintTickets = (sprintId: string) => plan.bySection.get(sprintId) ?? [];
  return (
    <>
      {creating && <SprintFormDialog actions={actions} onClose={closeCreate} />}
      {dialog?.kind === 'edit' && (
        <SprintFormDialog sprint={dialog.sprint} actions={actions} onClose={closeDialog} />
      )}
      {dialog?.kind === 'start' && (
        <StartSprintDialog
          sprint={dialog.sprint}
          tickets={sprintTickets(dialog.sprint.id)}
          weeks={settings?.defaultSprintDuration ?? 2}
          actions={actions}
          onClose={closeDialog}
        />
      )}
      {dialog?.kind === 'extend' && (
        <ExtendSprintDialog sprint={dialog.sprint} actions={actions} onClose={closeDialog} />
      )}
      {dialog?.kind === 'complete' && (
        <CompleteSprintDialog
          sprint={dialog.sprint}
          tickets={plan.all.filter((t) => t.sprintId === dialog.sprint.id)}
          isDone={(t) => data.doneIds.has(t.columnId)}
          nextCandidates={plan.planning.filter((s) => s.id !== dialog.sprint.id)}
          autoCarryOver={settings?.autoCarryOverIncomplete ?? false}
          actions={actions}
          onClose={closeDialog}
        />
      )}
      {dialog?.kind === 'delete' && (
        <ConfirmDialog
          title={`Delete ${dialog.sprint.name}?`}
          confirmLabel="Delete sprint"
          busyLabel="Deleting…"
          onConfirm={async () => {
            await actions.remove(dialog.sprint.id);
            toast.show(`${dialog.sprint.name} deleted`);
          }}
          onClose={closeDialog}
        >
          {(() => {
            const n = sprintTickets(dialog.sprint.id).length;
            return n === 0
              ? 'The sprint has no tickets.'
              : n === 1
                ? 'Its ticket goes back to the backlog.'
                : `Its ${n} tickets go back to the backlog.`;
          })()}
        </ConfirmDialog>
      )}
      {dialog?.kind === 'bulk-edit' && (
        <BulkEditDialog
          tickets={selectedTickets}
          columns={data.columns.data ?? []}
          members={data.members.data ?? []}
          labels={data.labels.data ?? []}
          sprints={plan.open}
          actions={actions}
          onClose={closeDialog}
          onDone={() => {}}
        />
      )}
      {dialog?.kind === 'bulk-delete' && (
        <BulkDeleteDialog
          tickets={selectedTickets}
          actions={actions}
          onDeleted={clearSelection}
          onClose={closeDialog}
        />
      )}
    </>
  );
}
