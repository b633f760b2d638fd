/**
 * Swimlanes on the board (docs/decisions/049-swimlanes-and-filters.md): horizontal bands by assignee,
 * priority, type, epic or parent, each band holding one cell per column. A card dropped into another
 * lane takes that lane's value (assignee, priority, type, parent).
 */
import { useState } from 'react';
import { PRIORITIES, TICKET_TYPES } from '../../shared/enums';
import type { TicketPatch } from '../api/tickets';
import type { Column, Priority, Ticket, TicketType } from '../api/types';
import { PriorityIcon, TypeIcon } from '../components/icons';
import { Avatar } from '../components/ui';
import type { Containers, MemberUser } from './board';
import { BoardColumn } from './board-column';
import type { DragCells } from './board-drag';

export const LANE_KINDS = ['assignee', 'priority', 'type', 'epic', 'parent'] as const;
export type LaneKind = (typeof LANE_KINDS)[number];
export const LANE_TITLES: Record<LaneKind, string> = {
  assignee: 'Assignee',
  priority: 'Priority',
  type: 'Type',
  epic: 'Epic',
  parent: 'Parent',
};
export const isLaneKind = (v: string | null | undefined): v is LaneKind =>
  (LANE_KINDS as readonly string[]).includes(v ?? '');

/** The lane key of tickets without a value (no assignee, no epic, no parent). */
export const NO_LANE = 'none';
const EMPTY_TITLES: Partial<Record<LaneKind, string>> = {
  assignee: 'No assignee',
  epic: 'No epic',
  parent: 'No parent',
};

export interface Lane {
  key: string;
  title: string;
  kind: LaneKind;
  avatar?: { name: string; src: string | null };
}

/** The nearest Epic above a ticket (its parent, or its parent's parent, ...), or null. */
function epicOf(t: Ticket, byId: Map<string, Ticket>): Ticket | null {
  const seen = new Set<string>();
  let at = t.parentId ? byId.get(t.parentId) : undefined;
  while (at && !seen.has(at.id)) {
    if (at.type === 'Epic') return at;
    seen.add(at.id);
    at = at.parentId ? byId.get(at.parentId) : undefined;
  }
  return null;
}

/** Which lane a ticket is in. */
export function laneKeyOf(kind: LaneKind, t: Ticket, byId: Map<string, Ticket>): string {
  switch (kind) {
    case 'assignee':
      return t.assigneeId ?? NO_LANE;
    case 'priority':
      return t.priority;
    case 'type':
      return t.type;
    case 'parent':
      return t.parentId ?? NO_LANE;
    case 'epic':
      return epicOf(t, byId)?.id ?? NO_LANE;
  }
}

/** What a ticket takes when it lands in a lane: the lane's value of its field. */
export function lanePatchOf(kind: LaneKind, key: string): TicketPatch {
  const id = key === NO_LANE ? null : key;
  switch (kind) {
    case 'assignee':
      return { assigneeId: id };
    case 'priority':
      return { priority: key as Priority };
    case 'type':
      return { type: key as TicketType };
    case 'parent':
    case 'epic':
      return { parentId: id };
  }
}

/**
 * The lanes of the shown tickets, in a fixed order: people by name, priorities from the highest, types
 * in their order, epics and parents by number; the lane without a value comes last and is always there (a
 * card can be dropped into it).
 */
export function lanesOf(
  kind: LaneKind,
  shown: Ticket[],
  byId: Map<string, Ticket>,
  membersById: Map<string, MemberUser>,
): Lane[] {
  const keys = new Set(shown.map((t) => laneKeyOf(kind, t, byId)));
  if (kind === 'priority')
    return [...PRIORITIES]
      .reverse()
      .filter((p) => keys.has(p))
      .map((p) => ({ key: p, title: p, kind }));
  if (kind === 'type')
    return TICKET_TYPES.filter((p) => keys.has(p)).map((p) => ({ key: p, title: p, kind }));
  const lanes: Lane[] = [];
  for (const key of keys) {
    if (key === NO_LANE) continue;
    if (kind === 'assignee') {
      const m = membersById.get(key);
      const fromTicket = shown.find((t) => t.assigneeId === key)?.assignee;
      const name = m ? (m.name ?? m.username) : (fromTicket?.name ?? 'Former member');
      lanes.push({ key, title: name, kind, avatar: { name, src: m?.avatar ?? fromTicket?.avatar ?? null } });
    } else {
      const parent = byId.get(key);
      lanes.push({ key, title: parent ? `${parent.key} ${parent.title}` : 'Unknown ticket', kind });
    }
  }
  if (kind === 'assignee') lanes.sort((a, b) => a.title.localeCompare(b.title));
  else lanes.sort((a, b) => (byId.get(a.key)?.number ?? 0) - (byId.get(b.key)?.number ?? 0));
  lanes.push({ key: NO_LANE, title: EMPTY_TITLES[kind] ?? 'None', kind });
  return lanes;
}

const SEP = '|';
export const cellId = (lane: string, column: string) => `${lane}${SEP}${column}`;
const split = (cell: string) => {
  const at = cell.lastIndexOf(SEP);
  return { lane: cell.slice(0, at), column: cell.slice(at + 1) };
};

/** The drag cells of a board with lanes: lane by lane, column by column; collapsed lanes are left out. */
export function laneCells(
  kind: LaneKind,
  lanes: Lane[],
  columnIds: string[],
  collapsed: Set<string>,
  byId: Map<string, Ticket>,
): DragCells {
  return {
    order: lanes.filter((l) => !collapsed.has(l.key)).flatMap((l) => columnIds.map((c) => cellId(l.key, c))),
    columnOf: (cell) => split(cell).column,
    sameLane: (a, b) => split(a).lane === split(b).lane,
    lanePatch: (t, cell) => {
      const lane = split(cell).lane;
      return lane === laneKeyOf(kind, t, byId) ? null : lanePatchOf(kind, lane);
    },
  };
}

/** Collapsed lanes, remembered per board and grouping in this browser. */
export function useCollapsedLanes(projectId: string, kind: LaneKind | null) {
  const key = `docket:lanes:${projectId}:${kind ?? ''}`;
  const read = () => {
    try {
      return new Set<string>(JSON.parse(localStorage.getItem(key) ?? '[]'));
    } catch {
      return new Set<string>();
    }
  };
  const [state, setState] = useState<{ key: string; set: Set<string> }>(() => ({ key, set: read() }));
  const set = state.key === key ? state.set : read();
  if (state.key !== key) setState({ key, set });
  const toggle = (lane: string) => {
    const next = new Set(set);
    if (!next.delete(lane)) next.add(lane);
    try {
      localStorage.setItem(key, JSON.stringify([...next]));
    } catch {
      // Storage may be full or off: the choice then lasts until reload.
    }
    setState({ key, set: next });
  };
  return { collapsed: set, toggle };
}

/** A lane's header: collapse button with its name, avatar or icon, and count. */
export function LaneHeader({
  lane,
  count,
  collapsed,
  onToggle,
}: {
  lane: Lane;
  count: number;
  collapsed: boolean;
  onToggle: () => void;
}) {
  return (
    <div className="sticky left-0 z-[1] flex w-fit max-w-[calc(100vw-24px)] items-center">
      <button
        type="button"
        aria-expanded={!collapsed}
        onClick={onToggle}
        className="flex min-w-0 items-center gap-2 rounded-md px-1.5 py-1 text-left text-[13px] font-medium text-fg hover:bg-hover"
      >
        <span
          aria-hidden="true"
          className={`text-faint transition-transform ${collapsed ? '' : 'rotate-90'}`}
        >
          ▸
        </span>
        {lane.avatar && <Avatar name={lane.avatar.name} src={lane.avatar.src} size={18} />}
        {lane.kind === 'priority' && <PriorityIcon priority={lane.key as Priority} />}
        {lane.kind === 'type' && <TypeIcon type={lane.key as TicketType} />}
        <span className="min-w-0 truncate" data-testid="lane-title">
          {lane.title}
        </span>
        <span className="text-[12px] font-normal text-faint" data-testid="lane-count">
          {count}
        </span>
      </button>
    </div>
  );
}

type ColumnProps = Omit<Parameters<typeof BoardColumn>[0], 'column' | 'ids' | 'done' | 'cellId' | 'laneName'>;

/** The board with lanes: a header row of column names, then each lane's band of cells. */
export function BoardLanes({
  lanes,
  columns,
  containers,
  collapsed,
  toggle,
  doneIds,
  columnProps,
}: {
  lanes: Lane[];
  columns: Column[];
  containers: Containers;
  collapsed: Set<string>;
  toggle: (lane: string) => void;
  doneIds: Set<string>;
  columnProps: ColumnProps;
}) {
  const width = 'w-[min(272px,calc(100vw-56px))] shrink-0';
  return (
    <>
      <div className="sticky top-0 z-[2] flex w-max gap-3 bg-bg pt-3 pb-1" data-testid="lane-columns">
        {columns.map((c) => (
          <div key={c.id} className={`${width} flex items-center gap-2 px-2.5`}>
            <h2 className="min-w-0 flex-1 truncate text-[12px] font-semibold text-fg">{c.name}</h2>
            <span className="text-[12px] text-faint">
              {lanes.reduce((n, l) => n + (containers[cellId(l.key, c.id)]?.length ?? 0), 0)}
            </span>
          </div>
        ))}
      </div>
      {lanes.map((lane) => {
        const shut = collapsed.has(lane.key);
        const count = columns.reduce((n, c) => n + (containers[cellId(lane.key, c.id)]?.length ?? 0), 0);
        return (
          <section
            key={lane.key}
            aria-label={`${lane.title} lane`}
            data-testid="lane"
            data-lane-key={lane.key}
            data-lane-title={lane.title}
            className="flex w-max min-w-full flex-col gap-1 border-t border-line pt-1 pb-2"
          >
            <LaneHeader lane={lane} count={count} collapsed={shut} onToggle={() => toggle(lane.key)} />
            {!shut && (
              <div className="flex items-start gap-3">
                {columns.map((c) => (
                  <BoardColumn
                    key={c.id}
                    {...columnProps}
                    column={c}
                    cellId={cellId(lane.key, c.id)}
                    laneName={lane.title}
                    ids={containers[cellId(lane.key, c.id)] ?? []}
                    done={doneIds.has(c.id)}
                  />
                ))}
              </div>
            )}
          </section>
        );
      })}
    </>
  );
}
