/** The board's frame: its header, filter bar, selection bar, skeleton and the project switcher. */
import { Link, useLocation } from 'wouter';
import { errorText } from '../api/client';
import { exportHref } from '../api/imports';
import { useProjects } from '../api/projects';
import type { useSprintActions } from '../api/sprints';
import type { Column, Label, Member, Project, Sprint, Ticket } from '../api/types';
import { PlusIcon } from '../components/icons';
import { MenuItem, Popover } from '../components/Popover';
import { ProjectTabs } from '../components/ProjectNav';
import { BulkDeleteDialog } from '../components/sprint/BulkDeleteDialog';
import { BulkEditDialog } from '../components/sprint/BulkEditDialog';
import { SelectionBar } from '../components/sprint/SelectionBar';
import {
  anyTicketFilter,
  matchesTicketFilters,
  noTicketFilters,
  smallSelect,
  TicketFilterFields,
  type TicketFilterValues,
} from '../components/TicketFilters';
import { useToast } from '../components/toast';
import { Button, ColorDot, Kbd, Skeleton } from '../components/ui';
import { isLaneKind, LANE_KINDS, LANE_TITLES, type LaneKind } from './board-lanes';

export interface Filters extends TicketFilterValues {
  sprint: string; // 'default' | 'all' | 'backlog' | sprint id
  /** Swimlanes: '' for none. */
  group: LaneKind | '';
}
export const emptyFilters: Filters = { ...noTicketFilters, sprint: 'default', group: '' };
/** Filters per project, kept while the tab lives (opening a ticket or another project keeps them). */
export const savedFilters = new Map<string, Filters>();

export function matches(
  t: Ticket,
  f: Filters,
  sprintId: string | null | 'all',
  me?: string,
  labelsById?: Map<string, Label>,
) {
  if (sprintId !== 'all' && (t.sprintId ?? null) !== sprintId) return false;
  return matchesTicketFilters(t, f, me, labelsById);
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

/** The board's header: project switcher, tabs, import/export and New ticket. */
export function BoardHeader({
  project,
  sprintName,
  onNewTicket,
}: {
  project: Project;
  /** The active sprint's name when the board shows it. */
  sprintName: string | null;
  onNewTicket: () => void;
}) {
  return (
    <header className="flex h-12 shrink-0 items-center gap-2 border-b border-line px-3">
      <ProjectSwitcher project={project} />
      {/* The same tabs as the project's other pages; they scroll on a phone. */}
      <div className="min-w-0 overflow-x-auto">
        <ProjectTabs project={project} current="board" />
      </div>
      <span className="hidden truncate text-faint lg:inline">{sprintName ? `· ${sprintName}` : ''}</span>
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
      <Button variant="primary" size="sm" title="New ticket (C)" onClick={onNewTicket}>
        <PlusIcon /> <span className="hidden sm:inline">New ticket</span>
      </Button>
    </header>
  );
}

/** The selection bar of the board (the backlog's bulk actions plus a move to a column) and its dialogs. */
export function BoardSelection({
  selectedTickets,
  sprints,
  columns,
  members,
  labels,
  actions,
  dialog,
  setDialog,
  clear,
}: {
  selectedTickets: Ticket[];
  sprints: Sprint[];
  columns: Column[];
  members: Member[];
  labels: Label[];
  actions: ReturnType<typeof useSprintActions>;
  dialog: 'edit' | 'delete' | null;
  setDialog: (d: 'edit' | 'delete' | null) => void;
  clear: () => void;
}) {
  const toast = useToast();
  const open = sprints.filter((s) => s.status !== 'completed');
  const bulkMove = (patch: { sprintId?: string | null; columnId?: string }, where: string) => {
    const ids = selectedTickets.map((t) => t.id);
    actions
      .bulkUpdate(ids, patch, `${ids.length} ticket${ids.length === 1 ? '' : 's'} moved to ${where}`)
      .catch((err) => toast.error(`Could not move the tickets: ${errorText(err)}`));
  };
  return (
    <>
      {selectedTickets.length > 0 && (
        <SelectionBar
          tickets={selectedTickets}
          open={open}
          moveTo={(_list, target) =>
            bulkMove(
              { sprintId: target },
              target ? (sprints.find((s) => s.id === target)?.name ?? 'the sprint') : 'the backlog',
            )
          }
          clear={clear}
          onEdit={() => setDialog('edit')}
          onDelete={() => setDialog('delete')}
          extra={
            <select
              aria-label="Move selected tickets to column"
              className={smallSelect}
              value=""
              onChange={(e) => {
                const c = columns.find((x) => x.id === e.target.value);
                if (c) bulkMove({ columnId: c.id }, c.name);
              }}
            >
              <option value="">Column…</option>
              {columns.map((c) => (
                <option key={c.id} value={c.id}>
                  {c.name}
                </option>
              ))}
            </select>
          }
        />
      )}
      {dialog === 'edit' && (
        <BulkEditDialog
          tickets={selectedTickets}
          columns={columns}
          members={members}
          labels={labels}
          sprints={open}
          actions={actions}
          onClose={() => setDialog(null)}
          onDone={() => {}}
        />
      )}
      {dialog === 'delete' && (
        <BulkDeleteDialog
          tickets={selectedTickets}
          actions={actions}
          onDeleted={clear}
          onClose={() => setDialog(null)}
        />
      )}
    </>
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
      <select
        aria-label="Group by"
        className={smallSelect}
        value={filters.group}
        onChange={(e) => setFilters({ ...filters, group: isLaneKind(e.target.value) ? e.target.value : '' })}
      >
        <option value="">No swimlanes</option>
        {LANE_KINDS.map((k) => (
          <option key={k} value={k}>
            Lanes: {LANE_TITLES[k]}
          </option>
        ))}
      </select>
      {any && (
        <Button
          size="sm"
          variant="ghost"
          onClick={() => setFilters({ ...emptyFilters, sprint: filters.sprint, group: filters.group })}
        >
          Clear filters
        </Button>
      )}
    </fieldset>
  );
}
