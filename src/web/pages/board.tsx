import { DndContext, DragOverlay } from '@dnd-kit/core';
import { type RefObject, useEffect, useLayoutEffect, useMemo, useRef, useState } from 'react';
import { useLocation, useSearch } from 'wouter';
import { columnTickets } from '../api/cache';
import { errorText } from '../api/client';
import { useProjectEvents } from '../api/events';
import { useProject } from '../api/projects';
import { useViews } from '../api/search';
import { useSprintActions } from '../api/sprints';
import { useUpdateTicket } from '../api/tickets';
import type { Member, Project, Ticket } from '../api/types';
import { useShell } from '../components/shell-context';
import { TicketCardBody } from '../components/TicketCard';
import { Button, EmptyState, ErrorState, Kbd } from '../components/ui';
import { type ProjectData, useProjectData } from '../hooks/project-data';
import { filtersFromSearch, replaceSearch, searchOfFilters } from '../lib/filter-address';
import {
  BoardHeader,
  BoardSelection,
  BoardSkeleton,
  emptyFilters,
  FilterBar,
  type Filters,
  matches,
  savedFilters,
} from './board-chrome';
import { assigneeOf, BoardColumn, ticketLabels } from './board-column';
import { type DragCells, useBoardDrag } from './board-drag';
import type { Containers } from './board-drive';
import { useBoardKeys } from './board-keys';
import {
  BoardLanes,
  cellId,
  isLaneKind,
  type Lane,
  laneCells,
  laneKeyOf,
  lanesOf,
  useCollapsedLanes,
} from './board-lanes';
import { QuickSetMenu } from './board-quick-set';
import { TicketDrawer } from './ticket-drawer';

export {
  BoardSkeleton,
  emptyFilters,
  type Filters,
  matches,
  ProjectSwitcher,
  savedFilters,
} from './board-chrome';
export { COL_PREFIX, type Containers } from './board-drive';
export type MemberUser = Member['user'];

/** The project view: the board, with the ticket drawer when the path names a ticket. */
export function ProjectPage({ projectKey, ticketRef }: { projectKey: string; ticketRef?: string }) {
  const [, navigate] = useLocation();
  const project = useProject(projectKey);
  const projectId = project.data?.id;
  useProjectEvents(projectId);

  if (project.isError) {
    return <ErrorState message={errorText(project.error)} onRetry={() => project.refetch()} />;
  }
  if (!project.data) return <BoardSkeleton />;
  return (
    <>
      <Board project={project.data} />
      {ticketRef && (
        <TicketDrawer
          project={project.data}
          ticketRef={ticketRef}
          onClose={() => navigate(`/projects/${project.data!.key}`)}
        />
      )}
    </>
  );
}

/** Columns are the cells when the board has no lanes. */
const plainCells = (columnIds: string[]): DragCells => ({
  order: columnIds,
  columnOf: (cell) => cell,
  sameLane: () => true,
  lanePatch: () => null,
});

/**
 * The board's filters: from the address when it names any (a shared link, a reload), else from this
 * tab; written back to the address (replaced, not pushed: Back leaves the board, not a filter).
 */
function useBoardFilters(project: Project) {
  const search = useSearch();
  const [location] = useLocation();
  const initialFilters = (): Filters => {
    const named = filtersFromSearch(search);
    if (!named) return savedFilters.get(project.id) ?? emptyFilters;
    const { sort: _sort, group, ...rest } = named;
    return { ...emptyFilters, ...rest, group: isLaneKind(group) ? group : '' };
  };
  const [filters, setFiltersState] = useState<Filters>(initialFilters);
  const views = useViews();
  const setFilters = (next: Filters) => {
    let f = next;
    // Applying a saved view takes its grouping when the board can show it as lanes.
    if (f.view && f.view !== filters.view) {
      const groupBy = views.data?.find((v) => v.id === f.view)?.groupBy;
      if (isLaneKind(groupBy)) f = { ...f, group: groupBy };
    }
    savedFilters.set(project.id, f);
    setFiltersState(f);
  };
  // biome-ignore lint/correctness/useExhaustiveDependencies: read again only when the project changes
  useEffect(() => setFiltersState(initialFilters()), [project.id]);
  useEffect(() => {
    if (location !== `/projects/${project.key}`) return;
    replaceSearch(searchOfFilters(filters, { sprint: 'default' }));
  }, [filters, location, project.key]);
  return { filters, setFilters };
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

/**
 * The visible ids per column (or per lane and column), in order, and the cells a drag moves through.
 * Every column holds all its tickets (the list is read whole), so a lane's cell is its column
 * filtered to the lane.
 */
function useBoardCells(
  data: ProjectData,
  filters: Filters,
  sprintFilter: string | null | 'all',
  collapsed: Set<string>,
) {
  const { tickets, columns, labelsById, membersById, me } = data;
  const group = filters.group || null;
  const columnIds = useMemo(() => (columns.data ?? []).map((c) => c.id), [columns.data]);
  const byId = useMemo(() => new Map((tickets.data ?? []).map((t) => [t.id, t])), [tickets.data]);
  const { visible, lanes } = useMemo(() => {
    const out: Containers = {};
    const list = tickets.data ?? [];
    const shown = new Map<string, Ticket[]>();
    for (const c of columns.data ?? [])
      shown.set(
        c.id,
        columnTickets(list, c.id).filter((t) => matches(t, filters, sprintFilter, me, labelsById)),
      );
    if (!group) {
      for (const [c, ts] of shown) out[c] = ts.map((t) => t.id);
      return { visible: out, lanes: [] as Lane[] };
    }
    const lanes = lanesOf(group, [...shown.values()].flat(), byId, membersById);
    for (const l of lanes) for (const c of shown.keys()) out[cellId(l.key, c)] = [];
    for (const [c, ts] of shown) for (const t of ts) out[cellId(laneKeyOf(group, t, byId), c)]?.push(t.id);
    return { visible: out, lanes };
  }, [tickets.data, columns.data, filters, sprintFilter, me, labelsById, group, byId, membersById]);
  const cells = useMemo(
    () => (group ? laneCells(group, lanes, columnIds, collapsed, byId) : plainCells(columnIds)),
    [group, lanes, columnIds, collapsed, byId],
  );
  return { group, byId, visible, lanes, cells };
}

/** Render time of the board with its data (read by the browser tests for the 1,000-card budget). */
function useRenderMeasure(ready: boolean) {
  const measured = useRef(false);
  if (ready && !measured.current && typeof performance !== 'undefined')
    performance.mark('docket:board-render-start');
  useLayoutEffect(() => {
    if (!ready || measured.current) return;
    measured.current = true;
    requestAnimationFrame(() => {
      try {
        performance.measure('docket:board-render', 'docket:board-render-start');
      } catch {
        // Measuring is best effort.
      }
    });
  }, [ready]);
}

/** The board: columns with their tickets in order, drag and drop, filters, quick create. */
export function Board({ project }: { project: Project }) {
  const shell = useShell();
  const data = useProjectData(project.id);
  const { columns, tickets, members, labels, sprints, me } = data;
  const update = useUpdateTicket(project.id);
  const actions = useSprintActions(project.id);
  const { filters, setFilters } = useBoardFilters(project);
  const searchRef = useSearchFocus();

  const sprintList = sprints.data ?? [];
  const activeSprint = sprintList.find((s) => s.status === 'active');
  const sprintFilter: string | null | 'all' =
    filters.sprint === 'default'
      ? (activeSprint?.id ?? 'all')
      : filters.sprint === 'backlog'
        ? null
        : filters.sprint;
  const allTickets = tickets.data ?? [];
  const { collapsed, toggle: toggleLane } = useCollapsedLanes(project.id, filters.group || null);
  const { group, byId, visible, lanes, cells } = useBoardCells(data, filters, sprintFilter, collapsed);

  const { drag, containers, boardRef, dndProps } = useBoardDrag({
    visible,
    cells,
    tickets: allTickets,
    byId,
    columns: columns.data ?? [],
    update,
  });
  const keys = useBoardKeys({
    boardRef,
    byId,
    cellOrder: cells.order,
    containers,
    dragging: !!drag,
    tickets: allTickets,
    cellOfTicket: (t) => (group ? cellId(laneKeyOf(group, t, byId), t.columnId) : t.columnId),
  });
  const quickTicket = keys.quickSet ? byId.get(keys.quickSet.id) : undefined;
  const activeTicket = drag ? byId.get(drag.activeId) : undefined;
  const ready = !!(tickets.data && columns.data);
  useRenderMeasure(ready);

  const error = columns.error ?? tickets.error;
  const total = allTickets.length;
  const shownCount = Object.values(visible).reduce((n, ids) => n + ids.length, 0);
  // A quick-created ticket takes the filter's assignee when the filter names exactly one person.
  const onlyAssignee = filters.assignee.length === 1 ? filters.assignee[0] : undefined;
  const columnProps: ColumnProps = {
    project,
    byId,
    labelsById: data.labelsById,
    membersById: data.membersById,
    activeId: drag?.activeId ?? null,
    selected: keys.selected,
    onToggleSelected: keys.toggleSelected,
    quickDefaults: {
      sprintId: sprintFilter !== 'all' ? sprintFilter : undefined,
      assigneeId: onlyAssignee === 'me' ? me : onlyAssignee !== 'none' ? onlyAssignee : undefined,
    },
  };

  return (
    <div className="flex h-full flex-col">
      <BoardHeader
        project={project}
        sprintName={activeSprint && sprintFilter === activeSprint.id ? activeSprint.name : null}
        onNewTicket={() =>
          shell.newTicket(project.id, { sprintId: sprintFilter !== 'all' ? sprintFilter : undefined })
        }
      />
      <BoardSelection
        selectedTickets={keys.selectedTickets}
        sprints={sprintList}
        columns={columns.data ?? []}
        members={members.data ?? []}
        labels={labels.data ?? []}
        actions={actions}
        dialog={keys.bulkDialog}
        setDialog={keys.setBulkDialog}
        clear={keys.clearSelection}
      />
      <FilterBar
        filters={filters}
        setFilters={setFilters}
        sprints={sprintList}
        members={members.data ?? []}
        labels={labels.data ?? []}
        searchRef={searchRef}
      />
      {error ? (
        <ErrorState
          message={errorText(error)}
          onRetry={() => {
            columns.refetch();
            tickets.refetch();
          }}
        />
      ) : !ready ? (
        <BoardSkeleton />
      ) : (
        <>
          {total > 0 && shownCount === 0 && (
            <div className="border-b border-line bg-subtle px-4 py-1.5 text-[12px] text-muted" role="status">
              No tickets match these filters ({total} in the project).
            </div>
          )}
          <DndContext {...dndProps}>
            <BoardCells
              data={data}
              group={group}
              lanes={lanes}
              containers={containers}
              collapsed={collapsed}
              toggleLane={toggleLane}
              boardRef={boardRef}
              dragging={!!drag}
              columnProps={columnProps}
            />
            {keys.quickSet && quickTicket && (
              <QuickSetMenu
                kind={keys.quickSet.kind}
                ticket={quickTicket}
                anchor={keys.quickSet.anchor}
                columns={columns.data!}
                members={members.data ?? []}
                labels={labels.data ?? []}
                onSet={(patch) => update.mutate({ ticket: quickTicket, patch })}
                onClose={keys.closeQuickSet}
              />
            )}
            <DragOverlay dropAnimation={null}>
              {activeTicket ? <DraggedCard ticket={activeTicket} data={data} /> : null}
            </DragOverlay>
          </DndContext>
        </>
      )}
    </div>
  );
}

type ColumnProps = Omit<Parameters<typeof BoardColumn>[0], 'column' | 'ids' | 'done'>;

/** The columns (or the lanes of columns) of a loaded board, and its empty state. */
function BoardCells({
  data,
  group,
  lanes,
  containers,
  collapsed,
  toggleLane,
  boardRef,
  dragging,
  columnProps,
}: {
  data: ProjectData;
  group: string | null;
  lanes: Lane[];
  containers: Containers;
  collapsed: Set<string>;
  toggleLane: (key: string) => void;
  boardRef: RefObject<HTMLDivElement | null>;
  dragging: boolean;
  columnProps: ColumnProps;
}) {
  const shell = useShell();
  const { project } = columnProps;
  const columns = data.columns.data!;
  return (
    <div
      ref={boardRef}
      // Snapping would pull the board away from under a dragged card.
      className={
        group
          ? 'flex min-h-0 flex-1 flex-col gap-1 overflow-auto p-3 pt-0'
          : `flex min-h-0 flex-1 ${dragging ? '' : 'snap-x'} scroll-px-3 items-start gap-3 overflow-x-auto p-3`
      }
      data-testid="board"
      data-group={group ?? undefined}
    >
      {group ? (
        <BoardLanes
          lanes={lanes}
          columns={columns}
          containers={containers}
          collapsed={collapsed}
          toggle={toggleLane}
          doneIds={data.doneIds}
          columnProps={columnProps}
        />
      ) : (
        columns.map((c) => (
          <BoardColumn
            key={c.id}
            {...columnProps}
            column={c}
            ids={containers[c.id] ?? []}
            done={data.doneIds.has(c.id)}
          />
        ))
      )}
      {(data.tickets.data ?? []).length === 0 && (
        <div className="self-start">
          <EmptyState
            title="No tickets yet"
            action={
              <Button variant="primary" onClick={() => shell.newTicket(project.id)}>
                Create a ticket
              </Button>
            }
          >
            Press <Kbd>C</Kbd> anywhere to create one.
          </EmptyState>
        </div>
      )}
    </div>
  );
}

/** The card under the pointer while it is dragged. */
function DraggedCard({ ticket, data }: { ticket: Ticket; data: ProjectData }) {
  const assignee = assigneeOf(ticket, data.membersById);
  return (
    <div className="w-[256px] rotate-1 cursor-grabbing rounded-md border border-line-strong bg-surface p-2.5 shadow-pop">
      <TicketCardBody
        ticket={ticket}
        labels={ticketLabels(ticket, data.labelsById)}
        assigneeName={assignee?.name}
        assigneeAvatar={assignee?.avatar}
      />
    </div>
  );
}
