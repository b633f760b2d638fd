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
  useDraggable,
  useDroppable,
  useSensor,
  useSensors,
} from '@dnd-kit/core';
import { memo, useEffect, useMemo, useRef, useState } from 'react';
import { errorText } from '../api/client';
import { useColumns } from '../api/columns';
import { useLabels } from '../api/labels';
import { useMembers } from '../api/members';
import { useSprintActions, useSprintSettings, useSprints } from '../api/sprints';
import { useTickets, useUpdateTicket } from '../api/tickets';
import type { SprintFull } from '../api/types';
import { type Label, type Member, PRIORITIES, type Project, type Ticket } from '../api/types';
import { ConfirmDialog } from '../components/ConfirmDialog';
import { PlusIcon, PriorityIcon, TypeIcon } from '../components/icons';
import { MenuItem, Popover } from '../components/Popover';
import { ProjectFrame } from '../components/ProjectNav';
import { useShell } from '../components/shell-context';
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
  smallSelect,
  TicketFilterFields,
  type TicketFilterValues,
} from '../components/TicketFilters';
import { useToast } from '../components/toast';
import { Avatar, Button, EmptyState, ErrorState, LabelChip, Skeleton } from '../components/ui';
import { shortDate, sumPoints } from '../lib/dates';
import { TicketDrawer } from './ticket';

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

type SortKey = 'rank' | 'priority' | 'number' | 'points' | 'updated';
const SORTS: { key: SortKey; label: string; desc: boolean }[] = [
  { key: 'rank', label: 'Board order', desc: false },
  { key: 'priority', label: 'Priority', desc: true },
  { key: 'number', label: 'Number', desc: false },
  { key: 'points', label: 'Story points', desc: true },
  { key: 'updated', label: 'Last updated', desc: true },
];

const BACKLOG = 'backlog';
const SECTION = 'section:';

type DialogState =
  | { kind: 'edit' | 'start' | 'complete' | 'extend' | 'delete'; sprint: SprintFull }
  | { kind: 'bulk-edit' | 'bulk-delete' };

/** Tickets with a pointer over a section win; otherwise (touch, edges) the most overlapped section. */
const collision: CollisionDetection = (args) => {
  const hits = pointerWithin(args);
  return hits.length ? hits : rectIntersection(args);
};

/**
 * Keyboard moves go from section to section: the up and down arrows put the ticket just inside the
 * previous or next sprint (or the backlog), which is then the drop target.
 */
const sectionKeyboardCoordinates: KeyboardCoordinateGetter = (event, { context }) => {
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

function Backlog({
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

  const [filters, setFilters] = useState<TicketFilterValues>(noTicketFilters);
  const [sort, setSort] = useState<{ key: SortKey; desc: boolean }>({ key: 'rank', desc: false });
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
  const doneIds = useMemo(() => {
    const known = (settings.data?.doneColumnIds ?? []).filter((id) => colIndex.has(id));
    if (known.length) return new Set(known);
    const last = cols[cols.length - 1];
    return new Set(last ? [last.id] : []);
  }, [settings.data, colIndex, cols]);

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
    (bySection.get(k) ?? []).filter((t) => matchesTicketFilters(t, filters)).sort(compare);

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
      update.mutate(
        { ticket: t, patch: { sprintId: target } },
        { onSuccess: () => toast.show(`${t.key} moved to ${sectionName(target)}`) },
      );
      return;
    }
    actions
      .bulkUpdate(
        moving.map((t) => t.id),
        { sprintId: target },
      )
      .then(() => toast.show(`${moving.length} tickets moved to ${sectionName(target)}`))
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
  const anyFilter = Object.values(filters).some(Boolean);
  const weeks = settings.data?.defaultSprintDuration ?? 2;

  const rowContext: RowContext = {
    project,
    colName,
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
        <ConfirmDialog
          title={`Delete ${selectedTickets.length} ticket${selectedTickets.length === 1 ? '' : 's'}?`}
          confirmLabel={`Delete ${selectedTickets.length} ticket${selectedTickets.length === 1 ? '' : 's'}`}
          busyLabel="Deleting…"
          onConfirm={async () => {
            const n = selectedTickets.length;
            await actions.bulkDelete(selectedTickets.map((t) => t.id));
            setSelected(new Set());
            toast.show(`${n} ticket${n === 1 ? '' : 's'} deleted`);
          }}
          onClose={() => setDialog(null)}
        >
          <p>
            {selectedTickets
              .slice(0, 8)
              .map((t) => t.key)
              .join(', ')}
            {selectedTickets.length > 8 ? ` and ${selectedTickets.length - 8} more` : ''} will be deleted with
            their comments and attachments. This cannot be undone.
          </p>
        </ConfirmDialog>
      )}
      {openTicket && (
        <TicketDrawer project={project} ticketRef={openTicket} onClose={() => setOpenTicket(null)} />
      )}
    </div>
  );
}

function Toolbar({
  filters,
  setFilters,
  sort,
  setSort,
  members,
  labels,
  searchRef,
}: {
  filters: TicketFilterValues;
  setFilters: (f: TicketFilterValues) => void;
  sort: { key: SortKey; desc: boolean };
  setSort: (s: { key: SortKey; desc: boolean }) => void;
  members: Member[];
  labels: Label[];
  searchRef: React.RefObject<HTMLInputElement | null>;
}) {
  const any = anyTicketFilter(filters);
  return (
    <div className="sticky top-0 z-20 flex min-w-0 items-center gap-2 overflow-x-auto border-b border-line bg-bg px-3 py-2 sm:flex-wrap sm:px-4">
      <fieldset className="flex min-w-0 items-center gap-2 sm:flex-wrap">
        <legend className="sr-only">Filters</legend>
        <TicketFilterFields
          filters={filters}
          setFilters={setFilters}
          members={members}
          labels={labels}
          searchRef={searchRef}
        />
        {any && (
          <Button size="sm" variant="ghost" onClick={() => setFilters(noTicketFilters)}>
            Clear filters
          </Button>
        )}
      </fieldset>
      <span className="flex-1" />
      <div className="flex shrink-0 items-center gap-1">
        <select
          aria-label="Sort by"
          className={smallSelect}
          value={sort.key}
          onChange={(e) => {
            const next = SORTS.find((s) => s.key === e.target.value)!;
            setSort({ key: next.key, desc: next.desc });
          }}
        >
          {SORTS.map((s) => (
            <option key={s.key} value={s.key}>
              Sort: {s.label}
            </option>
          ))}
        </select>
        <Button
          size="sm"
          variant="ghost"
          aria-label={
            sort.desc ? 'Sort descending (change to ascending)' : 'Sort ascending (change to descending)'
          }
          title={sort.desc ? 'Descending' : 'Ascending'}
          onClick={() => setSort({ ...sort, desc: !sort.desc })}
        >
          <span aria-hidden="true">{sort.desc ? '↓' : '↑'}</span>
        </Button>
      </div>
    </div>
  );
}

function SelectionBar({
  tickets,
  open,
  moveTo,
  clear,
  onEdit,
  onDelete,
}: {
  tickets: Ticket[];
  open: SprintFull[];
  moveTo: (list: Ticket[], target: string | null) => void;
  clear: () => void;
  onEdit: () => void;
  onDelete: () => void;
}) {
  return (
    <section
      aria-label="Selected tickets"
      className="sticky top-[45px] z-10 flex flex-wrap items-center gap-2 border-b border-line bg-accent-soft px-3 py-1.5 sm:px-4"
    >
      <span className="font-medium text-fg" data-testid="selection-count">
        {tickets.length} selected
      </span>
      <span className="text-muted">· {sumPoints(tickets)} pts</span>
      <span className="flex-1" />
      <select
        aria-label="Move selected tickets to"
        className={smallSelect}
        value=""
        onChange={(e) => {
          const v = e.target.value;
          if (!v) return;
          moveTo(tickets, v === BACKLOG ? null : v);
        }}
      >
        <option value="">Move to…</option>
        <option value={BACKLOG}>Backlog</option>
        {open.map((s) => (
          <option key={s.id} value={s.id}>
            {s.name}
          </option>
        ))}
      </select>
      <Button size="sm" onClick={onEdit}>
        Edit…
      </Button>
      <Button size="sm" variant="danger" onClick={onDelete}>
        Delete…
      </Button>
      <Button size="sm" variant="ghost" onClick={clear}>
        Clear selection
      </Button>
    </section>
  );
}

function SprintActionsBar({
  sprint,
  otherActive,
  open,
}: {
  sprint: SprintFull;
  otherActive: boolean;
  open: (kind: 'edit' | 'start' | 'complete' | 'extend' | 'delete') => void;
}) {
  return (
    <div className="flex items-center gap-1">
      {sprint.status === 'active' ? (
        <>
          <Button
            size="sm"
            variant="primary"
            aria-label={`Complete ${sprint.name}`}
            onClick={() => open('complete')}
          >
            Complete
          </Button>
          <Button size="sm" aria-label={`Extend ${sprint.name}`} onClick={() => open('extend')}>
            Extend
          </Button>
        </>
      ) : (
        <Button
          size="sm"
          variant="primary"
          aria-label={`Start ${sprint.name}`}
          disabled={otherActive}
          title={otherActive ? 'Another sprint is active: complete it first' : undefined}
          onClick={() => open('start')}
        >
          Start
        </Button>
      )}
      <Popover
        label={`More actions for ${sprint.name}`}
        align="right"
        className="inline-flex h-7 w-7 items-center justify-center rounded-md text-muted hover:bg-hover hover:text-fg"
        button={<span aria-hidden="true">⋯</span>}
      >
        {(close) => (
          <div role="menu">
            <MenuItem
              onSelect={() => {
                close();
                open('edit');
              }}
            >
              Edit sprint
            </MenuItem>
            {sprint.status === 'planning' && (
              <MenuItem
                danger
                onSelect={() => {
                  close();
                  open('delete');
                }}
              >
                Delete sprint
              </MenuItem>
            )}
          </div>
        )}
      </Popover>
    </div>
  );
}

function BudgetMeter({ points, budget }: { points: number; budget: number | null }) {
  if (budget == null)
    return (
      <span className="text-[12px] text-muted" data-testid="section-points">
        {points} pts
      </span>
    );
  const over = points > budget;
  const pct = budget > 0 ? Math.min(100, (points / budget) * 100) : 100;
  return (
    <span
      className="flex items-center gap-2"
      title={over ? `${points - budget} points over the budget` : undefined}
    >
      <span
        className={`text-[12px] ${over ? 'font-medium text-warn' : 'text-muted'}`}
        data-testid="section-points"
      >
        {points} / {budget} pts
      </span>
      <span
        className="hidden h-1.5 w-20 overflow-hidden rounded-full bg-surface-2 sm:inline-block"
        aria-hidden="true"
      >
        <span className={`block h-full ${over ? 'bg-warn' : 'bg-accent'}`} style={{ width: `${pct}%` }} />
      </span>
      {over && <span className="text-[12px] text-warn">over by {points - budget}</span>}
    </span>
  );
}

interface RowContext {
  project: Project;
  colName: Map<string, string>;
  labelsById: Map<string, Label>;
  membersById: Map<string, Member['user']>;
  open: SprintFull[];
  selected: Set<string>;
  toggle: (ids: string[], on: boolean) => void;
  moveTo: (list: Ticket[], target: string | null) => void;
  openTicket: (t: Ticket) => void;
}

function PlanSection({
  id,
  title,
  sprint,
  tickets,
  shown,
  ctx,
  collapsed,
  setCollapsed,
  newTicket,
  anyFilter,
  headerActions,
}: {
  id: string;
  title: string;
  sprint?: SprintFull;
  tickets: Ticket[];
  shown: Ticket[];
  ctx: RowContext;
  collapsed: Set<string>;
  setCollapsed: (fn: (s: Set<string>) => Set<string>) => void;
  newTicket: (sprintId: string | null) => void;
  anyFilter: boolean;
  headerActions?: React.ReactNode;
}) {
  const { setNodeRef, isOver } = useDroppable({ id: `${SECTION}${id}` });
  const isCollapsed = collapsed.has(id);
  const shownIds = shown.map((t) => t.id);
  const selectedHere = shownIds.filter((x) => ctx.selected.has(x)).length;
  const allBox = useRef<HTMLInputElement>(null);
  useEffect(() => {
    if (allBox.current) allBox.current.indeterminate = selectedHere > 0 && selectedHere < shownIds.length;
  }, [selectedHere, shownIds.length]);
  const points = sumPoints(tickets);
  return (
    <section
      ref={setNodeRef}
      aria-label={title}
      data-testid="plan-section"
      data-section={id}
      className={`rounded-lg border bg-subtle ${isOver ? 'border-accent ring-1 ring-accent' : 'border-line'}`}
    >
      <div className="flex flex-wrap items-center gap-x-3 gap-y-1 px-3 py-2">
        <input
          ref={allBox}
          type="checkbox"
          className="ml-5"
          aria-label={`Select all shown in ${title}`}
          disabled={shownIds.length === 0}
          checked={shownIds.length > 0 && selectedHere === shownIds.length}
          onChange={(e) => ctx.toggle(shownIds, e.target.checked)}
        />
        <button
          type="button"
          aria-expanded={!isCollapsed}
          aria-label={`${isCollapsed ? 'Expand' : 'Collapse'} ${title}`}
          className="rounded px-0.5 text-faint hover:bg-hover hover:text-fg"
          onClick={() =>
            setCollapsed((s) => {
              const next = new Set(s);
              if (next.has(id)) next.delete(id);
              else next.add(id);
              return next;
            })
          }
        >
          <span
            aria-hidden="true"
            className={`inline-block transition-transform ${isCollapsed ? '-rotate-90' : ''}`}
          >
            ▾
          </span>
        </button>
        <h2 className="text-[14px] font-semibold text-fg">{title}</h2>
        {sprint && (
          <span
            className={`rounded-full px-2 py-0.5 text-[11px] font-medium ${
              sprint.status === 'active' ? 'bg-accent-soft text-accent' : 'bg-surface-2 text-muted'
            }`}
          >
            {sprint.status === 'active' ? 'Active' : 'Planning'}
          </span>
        )}
        {sprint && (
          <span className="text-[12px] text-muted" data-testid="sprint-dates">
            {sprint.startDate || sprint.endDate
              ? `${shortDate(sprint.startDate) || '…'} – ${shortDate(sprint.endDate) || '…'}`
              : 'No dates'}
          </span>
        )}
        <span className="text-[12px] text-muted" data-testid="section-count">
          {anyFilter && shown.length !== tickets.length
            ? `${shown.length} of ${tickets.length} tickets`
            : `${tickets.length} ticket${tickets.length === 1 ? '' : 's'}`}
        </span>
        <BudgetMeter points={points} budget={sprint ? sprint.budget : null} />
        <span className="flex-1" />
        <Button
          size="sm"
          variant="ghost"
          aria-label={`New ticket in ${title}`}
          title="New ticket"
          onClick={() => newTicket(sprint?.id ?? null)}
        >
          <PlusIcon /> <span className="hidden md:inline">Ticket</span>
        </Button>
        {headerActions}
      </div>
      {sprint?.goal && (
        <p className="-mt-1 px-3 pb-2 pl-[4.35rem] text-[12px] text-muted" data-testid="sprint-goal">
          {sprint.goal}
        </p>
      )}
      {!isCollapsed && (
        <ul
          className="flex min-h-12 flex-col gap-px rounded-b-[7px] border-t border-line bg-line"
          aria-label={`Tickets in ${title}`}
        >
          {shown.map((t) => (
            <BacklogRow key={t.id} ticket={t} ctx={ctx} selected={ctx.selected.has(t.id)} />
          ))}
          {shown.length === 0 && (
            <li className="flex h-12 items-center justify-center rounded-b-[7px] bg-surface text-[12px] text-faint">
              {tickets.length > 0
                ? 'No tickets match these filters.'
                : sprint
                  ? 'Drag tickets here, or move them with a ticket’s menu.'
                  : 'The backlog is empty.'}
            </li>
          )}
        </ul>
      )}
    </section>
  );
}

const BacklogRow = memo(function BacklogRow({
  ticket,
  ctx,
  selected,
}: {
  ticket: Ticket;
  ctx: RowContext;
  selected: boolean;
}) {
  const { setNodeRef, setActivatorNodeRef, attributes, listeners, isDragging } = useDraggable({
    id: ticket.id,
  });
  // The whole row drags with a mouse or finger; the keyboard picks it up by its handle.
  const { onKeyDown: keyDown, ...pointerListeners } = listeners ?? {};
  const labels = (ticket.labelIds ?? ticket.labels?.map((l) => l.id) ?? [])
    .map((id) => ctx.labelsById.get(id))
    .filter((l): l is Label => !!l);
  const shownLabels = labels.slice(0, 2);
  const assignee = ticket.assigneeId ? ctx.membersById.get(ticket.assigneeId) : undefined;
  const assigneeName = assignee ? (assignee.name ?? assignee.username) : ticket.assignee?.name;
  const carried = ticket.isCarriedOver && (ticket.carriedOverCount ?? 0) > 0;
  const stop = {
    onMouseDown: (e: React.MouseEvent) => e.stopPropagation(),
    onTouchStart: (e: React.TouchEvent) => e.stopPropagation(),
  };
  return (
    <li
      ref={setNodeRef}
      {...pointerListeners}
      data-testid="backlog-row"
      data-key={ticket.key}
      className={`flex min-h-10 cursor-grab items-center gap-2 px-3 py-1.5 text-[13px] last:rounded-b-[7px] ${
        selected ? 'bg-accent-soft' : 'bg-surface hover:bg-hover'
      } ${isDragging ? 'opacity-40' : ''}`}
    >
      <button
        ref={setActivatorNodeRef}
        {...attributes}
        type="button"
        onKeyDown={keyDown as React.KeyboardEventHandler<HTMLButtonElement> | undefined}
        aria-label={`Move ${ticket.key}`}
        title="Drag to a sprint or the backlog (Space, then the arrow keys)"
        className="-ml-1 flex h-6 w-4 shrink-0 cursor-grab items-center justify-center rounded text-faint hover:bg-hover hover:text-fg"
      >
        <span aria-hidden="true">⠿</span>
      </button>
      <span className="flex items-center" {...stop}>
        <input
          type="checkbox"
          aria-label={`Select ${ticket.key}`}
          checked={selected}
          onChange={(e) => ctx.toggle([ticket.id], e.target.checked)}
        />
      </span>
      <TypeIcon type={ticket.type} />
      <span className="min-w-[5.5rem] shrink-0 whitespace-nowrap font-mono text-[12px] text-faint">
        {ticket.key}
      </span>
      <span className="min-w-0 flex-1 truncate">
        <button
          type="button"
          className="max-w-full truncate text-left text-fg hover:underline"
          onClick={() => ctx.openTicket(ticket)}
          aria-label={`Open ${ticket.key} ${ticket.title}`}
        >
          {ticket.title}
        </button>
      </span>
      {carried && (
        <span
          data-testid="carried-over"
          title={`Carried over ${ticket.carriedOverCount} time${ticket.carriedOverCount === 1 ? '' : 's'}`}
          className="shrink-0 rounded bg-surface-2 px-1 text-[11px] text-warn"
        >
          <span aria-hidden="true">↻{ticket.carriedOverCount}</span>
          <span className="sr-only">
            Carried over {ticket.carriedOverCount} time{ticket.carriedOverCount === 1 ? '' : 's'}
          </span>
        </span>
      )}
      <span className="hidden shrink-0 items-center gap-1 md:flex">
        {shownLabels.map((l) => (
          <LabelChip key={l.id} name={l.name} color={l.color} />
        ))}
        {labels.length > shownLabels.length && (
          <span className="text-[11px] text-faint">+{labels.length - shownLabels.length}</span>
        )}
      </span>
      <span
        className="hidden w-24 shrink-0 truncate rounded bg-surface-2 px-1.5 py-0.5 text-center text-[11px] text-muted sm:inline"
        data-testid="row-column"
      >
        {ctx.colName.get(ticket.columnId) ?? ''}
      </span>
      <PriorityIcon priority={ticket.priority} />
      <span
        className="inline-flex h-5 w-7 shrink-0 items-center justify-center rounded-full bg-surface-2 text-[11px] text-muted"
        title={ticket.storyPoints != null ? `${ticket.storyPoints} story points` : 'No estimate'}
        data-testid="row-points"
      >
        {ticket.storyPoints ?? '–'}
      </span>
      <span className="flex w-5 shrink-0 justify-center">
        {ticket.assigneeId && <Avatar name={assigneeName ?? 'Assignee'} src={assignee?.avatar} size={20} />}
      </span>
      <span {...stop}>
        <Popover
          label={`Actions for ${ticket.key}`}
          align="right"
          panelClass="w-56"
          className="inline-flex h-6 w-6 items-center justify-center rounded text-muted hover:bg-hover hover:text-fg"
          button={<span aria-hidden="true">⋯</span>}
        >
          {(close) => (
            <div role="menu">
              <MenuItem
                onSelect={() => {
                  close();
                  ctx.openTicket(ticket);
                }}
              >
                Open ticket
              </MenuItem>
              <div className="my-1 border-t border-line" />
              {ticket.sprintId && (
                <MenuItem
                  onSelect={() => {
                    close();
                    ctx.moveTo([ticket], null);
                  }}
                >
                  Move to backlog
                </MenuItem>
              )}
              {ctx.open
                .filter((s) => s.id !== ticket.sprintId)
                .map((s) => (
                  <MenuItem
                    key={s.id}
                    onSelect={() => {
                      close();
                      ctx.moveTo([ticket], s.id);
                    }}
                  >
                    Move to {s.name}
                  </MenuItem>
                ))}
            </div>
          )}
        </Popover>
      </span>
    </li>
  );
});
