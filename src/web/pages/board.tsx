import {
  DndContext,
  type DragEndEvent,
  type DragOverEvent,
  DragOverlay,
  type DragStartEvent,
  KeyboardSensor,
  MouseSensor,
  TouchSensor,
  useSensor,
  useSensors,
} from '@dnd-kit/core';
import { arrayMove } from '@dnd-kit/sortable';
import { useQueryClient } from '@tanstack/react-query';
import { useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState } from 'react';
import { Link, useLocation, useSearch } from 'wouter';
import { doneColumnIds } from '../../shared/rules';
import { columnTickets } from '../api/cache';
import { errorText } from '../api/client';
import { useColumns } from '../api/columns';
import { useProjectEvents } from '../api/events';
import { exportHref } from '../api/imports';
import { useLabels } from '../api/labels';
import { useMembers } from '../api/members';
import { useProject, useProjects } from '../api/projects';
import { useSession } from '../api/session';
import { useSprintActions, useSprintSettings, useSprints } from '../api/sprints';
import { useTickets, useUpdateTicket } from '../api/tickets';
import type { Label, Member, Project, Sprint, Ticket } from '../api/types';
import { PlusIcon } from '../components/icons';
import { MenuItem, Popover } from '../components/Popover';
import { ProjectTabs } from '../components/ProjectNav';
import { useShell } from '../components/shell-context';
import { BulkDeleteDialog } from '../components/sprint/BulkDeleteDialog';
import { BulkEditDialog } from '../components/sprint/BulkEditDialog';
import { SelectionBar } from '../components/sprint/SelectionBar';
import { TicketCardBody } from '../components/TicketCard';
import {
  anyTicketFilter,
  matchesTicketFilters,
  noTicketFilters,
  smallSelect,
  TicketFilterFields,
  type TicketFilterValues,
} from '../components/TicketFilters';
import { useToast } from '../components/toast';
import { Button, ColorDot, EmptyState, ErrorState, Kbd, Skeleton } from '../components/ui';
import { useEscape, useShortcut } from '../hooks/shortcuts';
import { filtersFromSearch, searchOfFilters } from '../lib/filter-address';
import { assigneeOf, BoardColumn, CARD_ESTIMATE, GAP, ticketLabels } from './board-column';
import {
  boardCollisions,
  boardKeyboardCoordinates,
  COL_PREFIX,
  type Containers,
  edgeScroll,
} from './board-drive';
import { type QuickSetKind, QuickSetMenu } from './board-quick-set';
import { TicketDrawer } from './ticket-drawer';

export interface Filters extends TicketFilterValues {
  sprint: string; // 'default' | 'all' | 'backlog' | sprint id
}
export const emptyFilters: Filters = { ...noTicketFilters, sprint: 'default' };
/** Filters per project, kept while the tab lives (opening a ticket or another project keeps them). */
export const savedFilters = new Map<string, Filters>();

export function matches(t: Ticket, f: Filters, sprintId: string | null | 'all', me?: string) {
  if (sprintId !== 'all' && (t.sprintId ?? null) !== sprintId) return false;
  return matchesTicketFilters(t, f, me);
}

/** The project view: the board, with the ticket drawer when the path names a ticket. */
export function ProjectPage({ projectKey, ticketRef }: { projectKey: string; ticketRef?: string }) {
  const qc = useQueryClient();
  const [, navigate] = useLocation();
  const project = useProject(projectKey, qc);
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

export function BoardSkeleton() {
  return (
    <div className="flex h-full flex-col" role="status" aria-busy="true" aria-label="Loading board">
      <div className="flex h-12 items-center gap-3 border-b border-line px-4">
        <Skeleton className="h-5 w-40" />
      </div>
      <div className="flex gap-3 p-3">
        {[0, 1, 2].map((c) => (
          <div key={c} className="flex w-[272px] shrink-0 flex-col gap-2">
            <Skeleton className="h-5 w-24" />
            {[0, 1, 2].map((i) => (
              <Skeleton key={i} className="h-[72px]" />
            ))}
          </div>
        ))}
      </div>
    </div>
  );
}

export function ProjectSwitcher({ project }: { project: Project }) {
  const projects = useProjects();
  const [, navigate] = useLocation();
  return (
    <Popover
      label="Switch project"
      className="flex items-center gap-2 rounded-md px-1.5 py-1 hover:bg-hover"
      panelClass="w-64 max-h-80 overflow-y-auto"
      button={
        <>
          <ColorDot color={project.color} />
          <span className="max-w-[40vw] truncate text-[14px] font-semibold">{project.name}</span>
          <span className="font-mono text-[11px] text-faint">{project.key}</span>
          <span aria-hidden="true" className="text-faint">
            ▾
          </span>
        </>
      }
    >
      {(close) => (
        <div role="menu">
          {projects.data?.map((p) => (
            <MenuItem
              key={p.id}
              active={p.id === project.id}
              onSelect={() => {
                close();
                navigate(`/projects/${p.key}`);
              }}
            >
              <ColorDot color={p.color} />
              <span className="min-w-0 flex-1 truncate">{p.name}</span>
              <span className="font-mono text-[11px] text-faint">{p.key}</span>
            </MenuItem>
          ))}
        </div>
      )}
    </Popover>
  );
}

export function FilterBar({
  filters,
  setFilters,
  sprints,
  members,
  labels,
  searchRef,
}: {
  filters: Filters;
  setFilters: (f: Filters) => void;
  sprints: Sprint[];
  members: Member[];
  labels: Label[];
  searchRef: React.RefObject<HTMLInputElement | null>;
}) {
  const open = sprints.filter((s) => s.status !== 'completed');
  const active = open.find((s) => s.status === 'active');
  const sprintValue = filters.sprint === 'default' ? (active ? active.id : 'all') : filters.sprint;
  const any = anyTicketFilter(filters);
  return (
    <fieldset className="flex min-w-0 items-center gap-2 overflow-x-auto border-b border-line px-3 py-2 sm:flex-wrap sm:px-4">
      <legend className="sr-only">Filters</legend>
      <TicketFilterFields
        filters={filters}
        setFilters={setFilters}
        members={members}
        labels={labels}
        searchRef={searchRef}
        searchTestId="board-search"
        searchExtra={
          <span className="pointer-events-none absolute right-1.5 hidden sm:block">
            <Kbd>/</Kbd>
          </span>
        }
        between={
          <select
            aria-label="Sprint"
            className={smallSelect}
            value={sprintValue}
            onChange={(e) => setFilters({ ...filters, sprint: e.target.value })}
          >
            <option value="all">All tickets</option>
            <option value="backlog">Backlog (no sprint)</option>
            {open.map((s) => (
              <option key={s.id} value={s.id}>
                {s.name}
                {s.status === 'active' ? ' (active)' : ''}
              </option>
            ))}
          </select>
        }
      />
      {any && (
        <Button
          size="sm"
          variant="ghost"
          onClick={() => setFilters({ ...emptyFilters, sprint: filters.sprint })}
        >
          Clear filters
        </Button>
      )}
    </fieldset>
  );
}

export { COL_PREFIX, type Containers } from './board-drive';

/** The board: columns with their tickets in order, drag and drop, filters, quick create. */
export function Board({ project }: { project: Project }) {
  const shell = useShell();
  const toast = useToast();
  const columns = useColumns(project.id);
  const tickets = useTickets(project.id);
  const members = useMembers(project.id);
  const labels = useLabels(project.id);
  const sprints = useSprints(project.id);
  const update = useUpdateTicket(project.id);
  const sprintSettings = useSprintSettings(project.id);
  const me = useSession().data?.user?.id;
  // Which columns count as done (no overdue mark there): the sprint settings' choice, else the last.
  const doneIds = useMemo(
    () =>
      new Set(
        doneColumnIds(
          (columns.data ?? []).map((c) => c.id),
          sprintSettings.data?.doneColumnIds ?? [],
        ),
      ),
    [columns.data, sprintSettings.data],
  );
  // Filters come from the address when it names any (a shared link, a reload), else from this tab.
  const search = useSearch();
  const [location] = useLocation();
  const initialFilters = (): Filters => {
    const named = filtersFromSearch(search);
    return named ? { ...emptyFilters, ...named } : (savedFilters.get(project.id) ?? emptyFilters);
  };
  const [filters, setFiltersState] = useState<Filters>(initialFilters);
  const setFilters = (f: Filters) => {
    savedFilters.set(project.id, f);
    setFiltersState(f);
  };
  // biome-ignore lint/correctness/useExhaustiveDependencies: read again only when the project changes
  useEffect(() => setFiltersState(initialFilters()), [project.id]);
  // The address follows the filters (replaced, not pushed: Back leaves the board, not a filter).
  useEffect(() => {
    if (location !== `/projects/${project.key}`) return;
    const want = searchOfFilters(filters);
    if (want !== new URLSearchParams(window.location.search).toString())
      window.history.replaceState(
        window.history.state,
        '',
        `${window.location.pathname}${want ? `?${want}` : ''}`,
      );
  }, [filters, location, project.key]);
  const searchRef = useRef<HTMLInputElement>(null);
  useEffect(() => {
    shell.setSearchFocus(() => searchRef.current?.focus());
    return () => shell.setSearchFocus(null);
  }, [shell]);

  const sprintList = sprints.data ?? [];
  const activeSprint = sprintList.find((s) => s.status === 'active');
  const sprintFilter: string | null | 'all' =
    filters.sprint === 'default'
      ? (activeSprint?.id ?? 'all')
      : filters.sprint === 'backlog'
        ? null
        : filters.sprint;

  const labelsById = useMemo(() => new Map((labels.data ?? []).map((l) => [l.id, l])), [labels.data]);
  const membersById = useMemo(
    () => new Map((members.data ?? []).map((m) => [m.userId, m.user])),
    [members.data],
  );

  // The visible ids per column, in order.
  const visible: Containers = useMemo(() => {
    const out: Containers = {};
    const list = tickets.data ?? [];
    for (const c of columns.data ?? [])
      out[c.id] = columnTickets(list, c.id)
        .filter((t) => matches(t, filters, sprintFilter, me))
        .map((t) => t.id);
    return out;
  }, [tickets.data, columns.data, filters, sprintFilter, me]);
  const byId = useMemo(() => new Map((tickets.data ?? []).map((t) => [t.id, t])), [tickets.data]);

  // Drag state: a working copy of the containers while a card is in the air.
  const [drag, setDrag] = useState<{ activeId: string; containers: Containers } | null>(null);
  const containers = drag?.containers ?? visible;
  const containersRef = useRef(containers);
  containersRef.current = containers;
  const columnOrderRef = useRef<string[]>([]);
  columnOrderRef.current = (columns.data ?? []).map((c) => c.id);
  const keyboardTarget = useRef<string | null>(null);
  const collisions = useMemo(() => boardCollisions(keyboardTarget), []);
  const coordinateGetter = useMemo(
    () =>
      boardKeyboardCoordinates({
        columnOrder: () => columnOrderRef.current,
        containers: () => containersRef.current,
        keyboardTarget,
      }),
    [],
  );
  const boardRef = useRef<HTMLDivElement>(null);
  const [autoScroll, setAutoScroll] = useState(() => edgeScroll(1200, 700));
  const sensors = useSensors(
    useSensor(MouseSensor, { activationConstraint: { distance: 4 } }),
    // On touch screens a short press picks a card up, so that a swipe still scrolls the board.
    useSensor(TouchSensor, { activationConstraint: { delay: 200, tolerance: 6 } }),
    useSensor(KeyboardSensor, {
      coordinateGetter,
      keyboardCodes: { start: ['Space'], cancel: ['Escape'], end: ['Space', 'Enter'] },
    }),
  );
  const containerOf = (id: string, c: Containers) =>
    id.startsWith(COL_PREFIX) ? id.slice(COL_PREFIX.length) : Object.keys(c).find((k) => c[k].includes(id));

  const onDragStart = (e: DragStartEvent) => {
    keyboardTarget.current = null;
    const board = boardRef.current;
    const scroller = board?.querySelector('[data-testid="column-scroll"]');
    setAutoScroll(edgeScroll(board?.clientWidth ?? 0, scroller?.clientHeight ?? 0));
    setDrag({ activeId: String(e.active.id), containers: visible });
  };
  const onDragOver = (e: DragOverEvent) => {
    const overId = e.over?.id;
    if (!drag || overId == null) return;
    const activeId = String(e.active.id);
    setDrag((d) => {
      if (!d) return d;
      const from = containerOf(activeId, d.containers);
      const to = containerOf(String(overId), d.containers);
      if (!from || !to || from === to) return d;
      const source = d.containers[from].filter((x) => x !== activeId);
      const target = [...d.containers[to]];
      const overIndex = target.indexOf(String(overId));
      const at = overIndex >= 0 ? overIndex : target.length;
      target.splice(at, 0, activeId);
      // A keyboard move has put the card in its place: from now on it is over itself.
      if (keyboardTarget.current) keyboardTarget.current = activeId;
      return { ...d, containers: { ...d.containers, [from]: source, [to]: target } };
    });
  };
  const onDragEnd = (e: DragEndEvent) => {
    const d = drag;
    keyboardTarget.current = null;
    setDrag(null);
    if (!d || !e.over) return;
    const activeId = String(e.active.id);
    const to = containerOf(activeId, d.containers);
    if (!to) return;
    let seq = d.containers[to];
    const overId = String(e.over.id);
    if (!overId.startsWith(COL_PREFIX) && seq.includes(overId))
      seq = arrayMove(seq, seq.indexOf(activeId), seq.indexOf(overId));
    const ticket = byId.get(activeId);
    if (!ticket) return;
    // From the visible position to the position in the whole column (filters may hide tickets).
    const i = seq.indexOf(activeId);
    const full = columnTickets(tickets.data ?? [], to)
      .filter((t) => t.id !== activeId)
      .map((t) => t.id);
    const after = seq.slice(i + 1);
    const before = seq.slice(0, i);
    let order: number;
    if (after.length) order = full.indexOf(after[0]);
    else if (before.length) order = full.indexOf(before[before.length - 1]) + 1;
    else order = full.length;
    if (order < 0) order = full.length;
    if (to === ticket.columnId && order === ticket.order) return;
    const column = columns.data?.find((c) => c.id === to);
    update.mutate(
      { ticket, patch: { columnId: to, order } },
      {
        onSuccess: () =>
          to !== ticket.columnId && column && toast.show(`${ticket.key} moved to ${column.name}`),
      },
    );
  };

  // j/k move between cards (column by column, top to bottom); a/s/p/l set a field of the focused card.
  const [quickSet, setQuickSet] = useState<{ kind: QuickSetKind; id: string; anchor: HTMLElement } | null>(
    null,
  );
  const focusedCard = () => {
    const el = (document.activeElement as HTMLElement | null)?.closest<HTMLElement>('[data-testid="card"]');
    const id = el ? byId.get(String(el.dataset.id)) : undefined;
    return el && id ? { el, ticket: id } : null;
  };
  const focusCard = (id: string) => {
    const t = byId.get(id);
    if (!t) return;
    const find = () =>
      boardRef.current?.querySelector<HTMLElement>(`[data-testid="card"][data-key="${CSS.escape(t.key)}"]`);
    const el = find();
    if (el) {
      el.focus();
      el.scrollIntoView({ block: 'nearest', inline: 'nearest' });
      return;
    }
    // Not drawn yet (the column draws only what is near its view): scroll its column there first.
    const scroller = boardRef.current
      ?.querySelector(`[data-testid="column"][data-column-id="${CSS.escape(t.columnId)}"]`)
      ?.querySelector<HTMLElement>('[data-testid="column-scroll"]');
    const at = (containers[t.columnId] ?? []).indexOf(id);
    if (scroller && at >= 0) scroller.scrollTop = at * (CARD_ESTIMATE + GAP);
    requestAnimationFrame(() => requestAnimationFrame(() => find()?.focus()));
  };
  const step = (by: 1 | -1) => {
    if (drag || !columns.data) return false;
    const order = columns.data.flatMap((c) => containers[c.id] ?? []);
    if (!order.length) return false;
    const current = focusedCard();
    const at = current ? order.indexOf(current.ticket.id) : -1;
    const next =
      at < 0 ? (by === 1 ? 0 : order.length - 1) : Math.min(order.length - 1, Math.max(0, at + by));
    focusCard(order[next]);
    return true;
  };
  useShortcut('j', () => step(1));
  useShortcut('k', () => step(-1));
  const openQuickSet = (kind: QuickSetKind) => {
    const current = focusedCard();
    if (drag || !current) return false;
    setQuickSet({ kind, id: current.ticket.id, anchor: current.el });
    return true;
  };
  useShortcut('a', () => openQuickSet('assignee'));
  useShortcut('s', () => openQuickSet('status'));
  useShortcut('p', () => openQuickSet('priority'));
  useShortcut('l', () => openQuickSet('labels'));
  const quickTicket = quickSet ? byId.get(quickSet.id) : undefined;

  // Several cards selected (Shift-, Ctrl- or ⌘-click, or x on a focused card): the backlog's bulk actions.
  const actions = useSprintActions(project.id);
  const [selected, setSelected] = useState<Set<string>>(() => new Set());
  const [bulkDialog, setBulkDialog] = useState<'edit' | 'delete' | null>(null);
  const toggleSelected = useCallback(
    (id: string) =>
      setSelected((s) => {
        const next = new Set(s);
        if (!next.delete(id)) next.add(id);
        return next;
      }),
    [],
  );
  const selectedTickets = (tickets.data ?? []).filter((t) => selected.has(t.id));
  useShortcut('x', () => {
    const current = focusedCard();
    if (drag || !current) return false;
    toggleSelected(current.ticket.id);
    return true;
  });
  useEscape(() => setSelected(new Set()), selectedTickets.length > 0 && !bulkDialog);
  const bulkMove = (patch: { sprintId?: string | null; columnId?: string }, where: string) => {
    const ids = selectedTickets.map((t) => t.id);
    actions
      .bulkUpdate(ids, patch)
      .then(() => toast.show(`${ids.length} ticket${ids.length === 1 ? '' : 's'} moved to ${where}`))
      .catch((err) => toast.error(`Could not move the tickets: ${errorText(err)}`));
  };

  const announcements = {
    onDragStart: ({ active }: { active: { id: string | number } }) =>
      `Picked up ${byId.get(String(active.id))?.key ?? 'ticket'}.`,
    onDragOver: ({
      active,
      over,
    }: {
      active: { id: string | number };
      over: { id: string | number } | null;
    }) => (over ? describeOverFor(String(active.id), String(over.id)) : 'Not over a column.'),
    onDragEnd: ({ over }: { over: { id: string | number } | null }) =>
      over ? `Dropped at ${describeOver(String(over.id))}.` : 'Dropped.',
    onDragCancel: () => 'Move cancelled.',
  };
  function describeOverFor(activeId: string, overId: string) {
    if (activeId !== overId) return `Over ${describeOver(overId)}.`;
    const c = containersRef.current;
    const col = Object.keys(c).find((k) => c[k].includes(activeId));
    const name = columns.data?.find((x) => x.id === col)?.name ?? 'column';
    return `In ${name}, place ${(col ? c[col].indexOf(activeId) : 0) + 1} of ${col ? c[col].length : 0}.`;
  }
  function describeOver(id: string) {
    if (id.startsWith(COL_PREFIX))
      return columns.data?.find((c) => `${COL_PREFIX}${c.id}` === id)?.name ?? 'column';
    return byId.get(id)?.key ?? 'ticket';
  }

  // Render time of the board with its data (read by the browser tests for the 1,000-card budget).
  const measured = useRef(false);
  const ready = !!(tickets.data && columns.data);
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

  const error = columns.error ?? tickets.error;
  const total = tickets.data?.length ?? 0;
  const shownCount = Object.values(visible).reduce((n, ids) => n + ids.length, 0);
  const activeTicket = drag ? byId.get(drag.activeId) : undefined;

  return (
    <div className="flex h-full flex-col">
      <header className="flex h-12 shrink-0 items-center gap-2 border-b border-line px-3">
        <ProjectSwitcher project={project} />
        {/* The same tabs as the project's other pages; they scroll on a phone. */}
        <div className="min-w-0 overflow-x-auto">
          <ProjectTabs project={project} current="board" />
        </div>
        <span className="hidden truncate text-faint lg:inline">
          {activeSprint && sprintFilter === activeSprint.id ? `· ${activeSprint.name}` : ''}
        </span>
        <span className="flex-1" />
        <Popover
          label="Import and export"
          align="right"
          className="h-7 rounded-md px-2 text-[12px] text-muted hover:bg-hover hover:text-fg"
          button={<span>Import / Export</span>}
        >
          {() => (
            <div className="flex flex-col py-1">
              <Link className="px-3 py-1.5 hover:bg-hover" href={`/projects/${project.key}/import`}>
                Import from a file…
              </Link>
              <a className="px-3 py-1.5 hover:bg-hover" href={exportHref(project.id, 'csv')} download>
                Export CSV
              </a>
              <a className="px-3 py-1.5 hover:bg-hover" href={exportHref(project.id, 'json')} download>
                Export JSON
              </a>
            </div>
          )}
        </Popover>
        <Button
          variant="primary"
          size="sm"
          title="New ticket (C)"
          onClick={() =>
            shell.newTicket(project.id, {
              sprintId: sprintFilter !== 'all' ? sprintFilter : undefined,
            })
          }
        >
          <PlusIcon /> <span className="hidden sm:inline">New ticket</span>
        </Button>
      </header>
      {selectedTickets.length > 0 && (
        <SelectionBar
          tickets={selectedTickets}
          open={sprintList.filter((s) => s.status !== 'completed')}
          moveTo={(_list, target) =>
            bulkMove(
              { sprintId: target },
              target ? (sprintList.find((s) => s.id === target)?.name ?? 'the sprint') : 'the backlog',
            )
          }
          clear={() => setSelected(new Set())}
          onEdit={() => setBulkDialog('edit')}
          onDelete={() => setBulkDialog('delete')}
          extra={
            <select
              aria-label="Move selected tickets to column"
              className={smallSelect}
              value=""
              onChange={(e) => {
                const c = columns.data?.find((x) => x.id === e.target.value);
                if (c) bulkMove({ columnId: c.id }, c.name);
              }}
            >
              <option value="">Column…</option>
              {(columns.data ?? []).map((c) => (
                <option key={c.id} value={c.id}>
                  {c.name}
                </option>
              ))}
            </select>
          }
        />
      )}
      {bulkDialog === 'edit' && (
        <BulkEditDialog
          tickets={selectedTickets}
          columns={columns.data ?? []}
          members={members.data ?? []}
          labels={labels.data ?? []}
          sprints={sprintList.filter((s) => s.status !== 'completed')}
          actions={actions}
          onClose={() => setBulkDialog(null)}
          onDone={() => {}}
        />
      )}
      {bulkDialog === 'delete' && (
        <BulkDeleteDialog
          tickets={selectedTickets}
          actions={actions}
          onDeleted={() => setSelected(new Set())}
          onClose={() => setBulkDialog(null)}
        />
      )}
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
          <DndContext
            sensors={sensors}
            collisionDetection={collisions}
            autoScroll={autoScroll}
            onDragStart={onDragStart}
            onDragOver={onDragOver}
            onDragEnd={onDragEnd}
            onDragCancel={() => setDrag(null)}
            accessibility={{
              announcements,
              screenReaderInstructions: {
                draggable:
                  'To pick up a ticket, press Space. Left and Right move it to another column, Up and Down change its place, Space drops it, Escape cancels.',
              },
            }}
          >
            <div
              ref={boardRef}
              // Snapping would pull the board away from under a dragged card.
              className={`flex min-h-0 flex-1 ${drag ? '' : 'snap-x'} scroll-px-3 items-start gap-3 overflow-x-auto p-3`}
              data-testid="board"
            >
              {columns.data!.map((c) => (
                <BoardColumn
                  key={c.id}
                  project={project}
                  column={c}
                  ids={containers[c.id] ?? []}
                  byId={byId}
                  labelsById={labelsById}
                  membersById={membersById}
                  activeId={drag?.activeId ?? null}
                  selected={selected}
                  onToggleSelected={toggleSelected}
                  done={doneIds.has(c.id)}
                  quickDefaults={{
                    sprintId: sprintFilter !== 'all' ? sprintFilter : undefined,
                    assigneeId:
                      filters.assignee === 'me'
                        ? me
                        : filters.assignee && filters.assignee !== 'none'
                          ? filters.assignee
                          : undefined,
                  }}
                />
              ))}
              {total === 0 && (
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
            {quickSet && quickTicket && (
              <QuickSetMenu
                kind={quickSet.kind}
                ticket={quickTicket}
                anchor={quickSet.anchor}
                columns={columns.data!}
                members={members.data ?? []}
                labels={labels.data ?? []}
                onSet={(patch) => update.mutate({ ticket: quickTicket, patch })}
                onClose={() => setQuickSet(null)}
              />
            )}
            <DragOverlay dropAnimation={null}>
              {activeTicket ? (
                <div className="w-[256px] rotate-1 cursor-grabbing rounded-md border border-line-strong bg-surface p-2.5 shadow-pop">
                  <TicketCardBody
                    ticket={activeTicket}
                    labels={ticketLabels(activeTicket, labelsById)}
                    assigneeName={assigneeOf(activeTicket, membersById)?.name}
                    assigneeAvatar={assigneeOf(activeTicket, membersById)?.avatar}
                  />
                </div>
              ) : null}
            </DragOverlay>
          </DndContext>
        </>
      )}
    </div>
  );
}

export type MemberUser = Member['user'];
