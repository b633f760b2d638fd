import {
  type CollisionDetection,
  DndContext,
  type DragEndEvent,
  DragOverlay,
  type DragStartEvent,
  type KeyboardCoordinateGetter,
  KeyboardSensor,
  MouseSensor,
  pointerWithin,
  rectIntersection,
  TouchSensor,
  useSensor,
  useSensors,
} from '@dnd-kit/core';
import { useEffect, useMemo, useRef, useState } from 'react';
import { doneColumnIds } from '../../shared/rules';
import { errorText } from '../api/client';
import { useColumns } from '../api/columns';
import { useLabels } from '../api/labels';
import { useMembers } from '../api/members';
import { useSession } from '../api/session';
import { useSprintActions, useSprintSettings, useSprints } from '../api/sprints';
import { useTickets, useUpdateTicket } from '../api/tickets';
import type { SprintFull } from '../api/types';
import { PRIORITIES, type Project, type Ticket } from '../api/types';
import { ConfirmDialog } from '../components/ConfirmDialog';
import { PlusIcon, TypeIcon } from '../components/icons';
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
import { filtersFromSearch, replaceSearch, searchOfFilters } from '../lib/filter-address';
import { SelectionBar, SprintActionsBar, Toolbar } from './backlog-bars';
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

export const BACKLOG = 'backlog';
export const SECTION = 'section:';

export type DialogState =
  | { kind: 'edit' | 'start' | 'complete' | 'extend' | 'delete'; sprint: SprintFull }
  | { kind: 'bulk-edit' | 'bulk-delete' };

/** Tickets with a pointer over a section win; otherwise (touch, edges) the most overlapped section. */
export const collision: CollisionDetection = (args) => {
  const hits = pointerWithin(args);
  return hits.length ? hits : rectIntersection(args);
};

/**
 * Keyboard moves go from section to section: the up and down arrows put the ticket just inside the
 * previous or next sprint (or the backlog), which is then the drop target.
 */
export const sectionKeyboardCoordinates: KeyboardCoordinateGetter = (event, { context }) => {
  if (event.code !== 'ArrowDown' && event.code !== 'ArrowUp') return undefined;
  event.preventDefault();
  const { active, collisionRect, droppableRects, droppableContainers, over } = context;
  if (!active || !collisionRect) return undefined;
  const list = droppableContainers
    .getEnabled()
    .map((c) => ({ id: String(c.id), rect: droppableRects.get(c.id) }))
    .filter((x): x is { id: string; rect: NonNullable<typeof x.rect> } => !!x.rect)
    .sort((a, b) => a.rect.top - b.rect.top);
  let i = over ? list.findIndex((x) => x.id === String(over.id)) : -1;
  if (i < 0) i = list.findIndex((x) => x.rect.top <= collisionRect.top && x.rect.bottom >= collisionRect.top);
  const next = list[event.code === 'ArrowDown' ? i + 1 : i - 1];
  if (!next) return undefined;
  return { x: next.rect.left + 8, y: next.rect.top + 8 };
};

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
  const toast = useToast();
  const tickets = useTickets(project.id);
  const columns = useColumns(project.id);
  const members = useMembers(project.id);
  const labels = useLabels(project.id);
  const sprints = useSprints(project.id);
  const settings = useSprintSettings(project.id);
  const actions = useSprintActions(project.id);
  const update = useUpdateTicket(project.id);

  // Filters and sort come from the address (a shared link, a reload) and are written back to it.
  const [initial] = useState(() => backlogStateOf(window.location.search));
  const [filters, setFilters] = useState<TicketFilterValues>(initial.filters);
  const [sort, setSort] = useState<{ key: SortKey; desc: boolean }>(initial.sort);
  useEffect(() => {
    replaceSearch(searchOfFilters({ ...filters, sort: sortText(sort) }, { sort: 'rank-asc' }));
  }, [filters, sort]);
  const [selected, setSelected] = useState<Set<string>>(() => new Set());
  const [collapsed, setCollapsed] = useState<Set<string>>(() => new Set());
  const [dialog, setDialog] = useState<DialogState | null>(null);
  const [openTicket, setOpenTicket] = useState<string | null>(null);
  const [dragId, setDragId] = useState<string | null>(null);
  const searchRef = useRef<HTMLInputElement>(null);
  useEffect(() => {
    shell.setSearchFocus(() => searchRef.current?.focus());
    return () => shell.setSearchFocus(null);
  }, [shell]);

  const me = useSession().data?.user?.id;
  const cols = columns.data ?? [];
  const colIndex = useMemo(() => new Map(cols.map((c, i) => [c.id, i])), [cols]);
  const colName = useMemo(() => new Map(cols.map((c) => [c.id, c.name])), [cols]);
  const labelsById = useMemo(() => new Map((labels.data ?? []).map((l) => [l.id, l])), [labels.data]);
  const membersById = useMemo(
    () => new Map((members.data ?? []).map((m) => [m.userId, m.user])),
    [members.data],
  );

  const open = (sprints.data ?? []).filter((s) => s.status !== 'completed');
  const activeSprint = open.find((s) => s.status === 'active');
  const planning = open.filter((s) => s.status === 'planning');
  const sectionSprints = activeSprint ? [activeSprint, ...planning] : planning;
  const openIds = new Set(open.map((s) => s.id));

  // Which columns count as done: the sprint settings' choice, else the last column.
  const doneIds = useMemo(
    () =>
      new Set(
        doneColumnIds(
          cols.map((c) => c.id),
          settings.data?.doneColumnIds ?? [],
        ),
      ),
    [settings.data, cols],
  );

  const all = tickets.data ?? [];
  const planned = all.filter((t) => !t.sprintId || openIds.has(t.sprintId));
  const bySection = new Map<string, Ticket[]>();
  for (const t of planned) {
    const k = t.sprintId ?? BACKLOG;
    const list = bySection.get(k);
    if (list) list.push(t);
    else bySection.set(k, [t]);
  }
  const byId = new Map(planned.map((t) => [t.id, t]));
  const selectedTickets = planned.filter((t) => selected.has(t.id));

  const compare = (a: Ticket, b: Ticket) => {
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
  const shownOf = (k: string) =>
    (bySection.get(k) ?? []).filter((t) => matchesTicketFilters(t, filters, me, labelsById)).sort(compare);

  const toggle = (ids: string[], on: boolean) =>
    setSelected((s) => {
      const next = new Set(s);
      for (const id of ids) {
        if (on) next.add(id);
        else next.delete(id);
      }
      return next;
    });

  const sectionName = (target: string | null) =>
    target ? (open.find((s) => s.id === target)?.name ?? 'the sprint') : 'the backlog';

  /** Moves tickets to a sprint (or the backlog: null): one update, or one bulk update for several. */
  const moveTo = (list: Ticket[], target: string | null) => {
    const moving = list.filter((t) => (t.sprintId ?? null) !== target);
    if (moving.length === 0) return;
    if (moving.length === 1) {
      const t = moving[0];
      update.mutate({
        ticket: t,
        patch: { sprintId: target },
        undoText: `${t.key} moved to ${sectionName(target)}`,
      });
      return;
    }
    actions
      .bulkUpdate(
        moving.map((t) => t.id),
        { sprintId: target },
        `${moving.length} tickets moved to ${sectionName(target)}`,
      )
      .catch((err) => toast.error(`Could not move the tickets: ${errorText(err)}`));
  };

  const sensors = useSensors(
    useSensor(MouseSensor, { activationConstraint: { distance: 4 } }),
    useSensor(TouchSensor, { activationConstraint: { delay: 200, tolerance: 6 } }),
    useSensor(KeyboardSensor, {
      coordinateGetter: sectionKeyboardCoordinates,
      keyboardCodes: { start: ['Space', 'Enter'], cancel: ['Escape'], end: ['Space', 'Enter'] },
    }),
  );
  const titleOf = (droppableId: string | number) => {
    const k = String(droppableId).slice(SECTION.length);
    return k === BACKLOG ? 'Backlog' : (open.find((s) => s.id === k)?.name ?? 'a sprint');
  };
  const announcements = {
    onDragStart: ({ active }: { active: { id: string | number } }) =>
      `Picked up ${byId.get(String(active.id))?.key ?? 'ticket'}.`,
    onDragOver: ({ over }: { over: { id: string | number } | null }) =>
      over ? `Over ${titleOf(over.id)}.` : 'Not over a section.',
    onDragEnd: ({ over }: { over: { id: string | number } | null }) =>
      over ? `Dropped in ${titleOf(over.id)}.` : 'Dropped.',
    onDragCancel: () => 'Move cancelled.',
  };
  const dragging = dragId ? byId.get(dragId) : undefined;
  const dragCount = dragging && selected.has(dragging.id) ? selectedTickets.length : 1;
  const onDragStart = (e: DragStartEvent) => setDragId(String(e.active.id));
  const onDragEnd = (e: DragEndEvent) => {
    setDragId(null);
    const over = e.over?.id ? String(e.over.id) : '';
    if (!over.startsWith(SECTION)) return;
    const key = over.slice(SECTION.length);
    const target = key === BACKLOG ? null : key;
    const t = byId.get(String(e.active.id));
    if (!t) return;
    moveTo(selected.has(t.id) ? selectedTickets : [t], target);
  };

  const error = tickets.error ?? columns.error ?? sprints.error;
  const ready = !!(tickets.data && columns.data && sprints.data);
  const anyFilter = anyTicketFilter(filters);
  const weeks = settings.data?.defaultSprintDuration ?? 2;

  const rowContext: RowContext = {
    project,
    colName,
    doneIds,
    labelsById,
    membersById,
    open,
    selected,
    toggle,
    moveTo,
    openTicket: (t) => setOpenTicket(t.key),
  };

  const sectionCommon = {
    ctx: rowContext,
    collapsed,
    setCollapsed,
    newTicket: (sprintId: string | null) =>
      shell.newTicket(project.id, sprintId ? { sprintId } : { sprintId: null }),
    anyFilter,
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
          open={open}
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
        <DndContext
          sensors={sensors}
          collisionDetection={collision}
          onDragStart={onDragStart}
          onDragEnd={onDragEnd}
          onDragCancel={() => setDragId(null)}
          accessibility={{
            announcements,
            screenReaderInstructions: {
              draggable:
                'To move the ticket to a sprint or the backlog, press Space, choose the section with the up and down arrows, and press Space again. Escape cancels.',
            },
          }}
        >
          <div className="flex flex-col gap-3 p-3 sm:p-4">
            {sectionSprints.map((s) => (
              <PlanSection
                key={s.id}
                id={s.id}
                title={s.name}
                sprint={s}
                tickets={bySection.get(s.id) ?? []}
                shown={shownOf(s.id)}
                {...sectionCommon}
                headerActions={
                  <SprintActionsBar
                    sprint={s}
                    otherActive={!!activeSprint && activeSprint.id !== s.id}
                    open={(kind) => setDialog({ kind, sprint: s })}
                  />
                }
              />
            ))}
            {sectionSprints.length === 0 && (
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
              tickets={bySection.get(BACKLOG) ?? []}
              shown={shownOf(BACKLOG)}
              {...sectionCommon}
            />
            {all.length === 0 && (
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
            {dragging ? (
              <div className="flex max-w-md cursor-grabbing items-center gap-2 rounded-md border border-line-strong bg-surface px-3 py-2 shadow-pop">
                <TypeIcon type={dragging.type} />
                <span className="font-mono text-[12px] text-faint">{dragging.key}</span>
                <span className="min-w-0 flex-1 truncate">{dragging.title}</span>
                {dragCount > 1 && (
                  <span className="rounded-full bg-accent px-1.5 text-[11px] text-accent-fg">
                    +{dragCount - 1}
                  </span>
                )}
              </div>
            ) : null}
          </DragOverlay>
        </DndContext>
      )}

      {creating && <SprintFormDialog actions={actions} onClose={closeCreate} />}
      {dialog?.kind === 'edit' && (
        <SprintFormDialog sprint={dialog.sprint} actions={actions} onClose={() => setDialog(null)} />
      )}
      {dialog?.kind === 'start' && (
        <StartSprintDialog
          sprint={dialog.sprint}
          tickets={bySection.get(dialog.sprint.id) ?? []}
          weeks={weeks}
          actions={actions}
          onClose={() => setDialog(null)}
        />
      )}
      {dialog?.kind === 'extend' && (
        <ExtendSprintDialog sprint={dialog.sprint} actions={actions} onClose={() => setDialog(null)} />
      )}
      {dialog?.kind === 'complete' && (
        <CompleteSprintDialog
          sprint={dialog.sprint}
          tickets={all.filter((t) => t.sprintId === dialog.sprint.id)}
          isDone={(t) => doneIds.has(t.columnId)}
          nextCandidates={planning.filter((s) => s.id !== dialog.sprint.id)}
          autoCarryOver={settings.data?.autoCarryOverIncomplete ?? false}
          actions={actions}
          onClose={() => setDialog(null)}
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
          onClose={() => setDialog(null)}
        >
          {(() => {
            const n = bySection.get(dialog.sprint.id)?.length ?? 0;
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
          columns={cols}
          members={members.data ?? []}
          labels={labels.data ?? []}
          sprints={open}
          actions={actions}
          onClose={() => setDialog(null)}
          onDone={() => {}}
        />
      )}
      {dialog?.kind === 'bulk-delete' && (
        <BulkDeleteDialog
          tickets={selectedTickets}
          actions={actions}
          onDeleted={() => setSelected(new Set())}
          onClose={() => setDialog(null)}
        />
      )}
      {openTicket && (
        <TicketDrawer project={project} ticketRef={openTicket} onClose={() => setOpenTicket(null)} />
      )}
    </div>
  );
}
