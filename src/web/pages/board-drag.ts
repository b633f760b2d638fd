/**
 * Dragging cards on the board: the working copy of the containers while a card is in the air, the
 * sensors, and the move (column, place, and with swimlanes the lane's field) sent when it lands.
 */
import {
  type DragEndEvent,
  type DragOverEvent,
  type DragStartEvent,
  KeyboardSensor,
  MouseSensor,
  TouchSensor,
  useSensor,
  useSensors,
} from '@dnd-kit/core';
import { arrayMove } from '@dnd-kit/sortable';
import { type RefObject, useMemo, useRef, useState } from 'react';
import { columnTickets } from '../api/cache';
import type { TicketPatch, useUpdateTicket } from '../api/tickets';
import type { Column, Ticket } from '../api/types';
import {
  boardCollisions,
  boardKeyboardCoordinates,
  COL_PREFIX,
  type Containers,
  edgeScroll,
} from './board-drive';

export interface DragCells {
  /** Containers (cells) in order: with lanes, lane by lane and column by column. */
  order: string[];
  /** The board column of a cell. */
  columnOf: (cell: string) => string;
  /** Whether two cells are in the same lane (Left and Right stay in the lane). */
  sameLane: (a: string, b: string) => boolean;
  /** The fields a card takes when it lands in another lane (assignee, priority, ...), or null. */
  lanePatch: (ticket: Ticket, cell: string) => TicketPatch | null;
}

export function useBoardDrag({
  visible,
  cells,
  tickets,
  byId,
  columns,
  update,
}: {
  visible: Containers;
  cells: DragCells;
  tickets: Ticket[];
  byId: Map<string, Ticket>;
  columns: Column[];
  update: ReturnType<typeof useUpdateTicket>;
}) {
  const [drag, setDrag] = useState<{ activeId: string; containers: Containers } | null>(null);
  const containers = drag?.containers ?? visible;
  const containersRef = useRef(containers);
  containersRef.current = containers;
  const cellsRef = useRef(cells);
  cellsRef.current = cells;
  const keyboardTarget = useRef<string | null>(null);
  const collisions = useMemo(() => boardCollisions(keyboardTarget), []);
  const coordinateGetter = useMemo(
    () =>
      boardKeyboardCoordinates({
        columnOrder: () => cellsRef.current.order,
        sameLane: (a, b) => cellsRef.current.sameLane(a, b),
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
      const target = [...(d.containers[to] ?? [])];
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
    const cell = containerOf(activeId, d.containers);
    if (!cell) return;
    const to = cells.columnOf(cell);
    let seq = d.containers[cell];
    const overId = String(e.over.id);
    if (!overId.startsWith(COL_PREFIX) && seq.includes(overId))
      seq = arrayMove(seq, seq.indexOf(activeId), seq.indexOf(overId));
    const ticket = byId.get(activeId);
    if (!ticket) return;
    const order = orderInColumn(seq, activeId, columnTickets(tickets, to));
    const lane = cells.lanePatch(ticket, cell);
    if (to === ticket.columnId && order === ticket.order && !lane) return;
    const column = columns.find((c) => c.id === to);
    // The answer's toast says where it went and offers the undo (decision 048).
    update.mutate({
      ticket,
      patch: { ...lane, columnId: to, order },
      undoText: to !== ticket.columnId && column ? `${ticket.key} moved to ${column.name}` : undefined,
    });
  };

  const announcements = boardAnnouncements(byId, columns, cellsRef, containersRef);

  return {
    drag,
    containers,
    boardRef,
    dndProps: {
      sensors,
      collisionDetection: collisions,
      autoScroll,
      onDragStart,
      onDragOver,
      onDragEnd,
      onDragCancel: () => setDrag(null),
      accessibility: {
        announcements,
        screenReaderInstructions: {
          draggable:
            'To pick up a ticket, press Space. Left and Right move it to another column, Up and Down change its place, Space drops it, Escape cancels.',
        },
      },
    },
  };
}

/**
 * From a card's visible position in its cell to its position in the whole column (filters and lanes
 * hide tickets): before the next visible card, else after the previous one, else at the end.
 */
function orderInColumn(seq: string[], activeId: string, column: Ticket[]) {
  const i = seq.indexOf(activeId);
  const full = column.filter((t) => t.id !== activeId).map((t) => t.id);
  const after = seq.slice(i + 1);
  const before = seq.slice(0, i);
  let order: number;
  if (after.length) order = full.indexOf(after[0]);
  else if (before.length) order = full.indexOf(before[before.length - 1]) + 1;
  else order = full.length;
  return order < 0 ? full.length : order;
}

/** What a screen reader hears while a card is dragged: by key, column name and place. */
function boardAnnouncements(
  byId: Map<string, Ticket>,
  columns: Column[],
  cellsRef: RefObject<DragCells>,
  containersRef: RefObject<Containers>,
) {
  const cellName = (cell: string) => columns.find((x) => x.id === cellsRef.current.columnOf(cell))?.name;
  function describeOverFor(activeId: string, overId: string) {
    if (activeId !== overId) return `Over ${describeOver(overId)}.`;
    const c = containersRef.current;
    const cell = Object.keys(c).find((k) => c[k].includes(activeId));
    const name = (cell && cellName(cell)) ?? 'column';
    return `In ${name}, place ${(cell ? c[cell].indexOf(activeId) : 0) + 1} of ${cell ? c[cell].length : 0}.`;
  }
  function describeOver(id: string) {
    if (id.startsWith(COL_PREFIX)) return cellName(id.slice(COL_PREFIX.length)) ?? 'column';
    return byId.get(id)?.key ?? 'ticket';
  }
  return {
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
}
