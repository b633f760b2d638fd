/**
 * The backlog's drag and drop: tickets dragged between the sprint sections and the backlog, by
 * pointer, touch or keyboard (the arrows go from section to section), announced by name.
 */
import {
  type CollisionDetection,
  type DragEndEvent,
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
import { useState } from 'react';
import type { SprintFull, Ticket } from '../api/types';
import { TypeIcon } from '../components/icons';

export const BACKLOG = 'backlog';
export const SECTION = 'section:';

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

/** What a drag needs of the plan: the open sprints and the planned tickets by id. */
interface Sections {
  open: SprintFull[];
  byId: Map<string, Ticket>;
}

/**
 * Dragging tickets between sections (by pointer, touch or keyboard, announced by name): a ticket
 * of the selection takes the whole selection with it.
 */
export function useSectionDrag(
  plan: Sections,
  selected: Set<string>,
  selectedTickets: Ticket[],
  moveTo: (list: Ticket[], target: string | null) => void,
) {
  const [dragId, setDragId] = useState<string | null>(null);
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
    return k === BACKLOG ? 'Backlog' : (plan.open.find((s) => s.id === k)?.name ?? 'a sprint');
  };
  const announcements = {
    onDragStart: ({ active }: { active: { id: string | number } }) =>
      `Picked up ${plan.byId.get(String(active.id))?.key ?? 'ticket'}.`,
    onDragOver: ({ over }: { over: { id: string | number } | null }) =>
      over ? `Over ${titleOf(over.id)}.` : 'Not over a section.',
    onDragEnd: ({ over }: { over: { id: string | number } | null }) =>
      over ? `Dropped in ${titleOf(over.id)}.` : 'Dropped.',
    onDragCancel: () => 'Move cancelled.',
  };
  const dragging = dragId ? plan.byId.get(dragId) : undefined;
  const onDragEnd = (e: DragEndEvent) => {
    setDragId(null);
    const over = e.over?.id ? String(e.over.id) : '';
    if (!over.startsWith(SECTION)) return;
    const key = over.slice(SECTION.length);
    const t = plan.byId.get(String(e.active.id));
    if (!t) return;
    moveTo(selected.has(t.id) ? selectedTickets : [t], key === BACKLOG ? null : key);
  };
  return {
    dragging,
    dragCount: dragging && selected.has(dragging.id) ? selectedTickets.length : 1,
    dndProps: {
      sensors,
      collisionDetection: collision,
      onDragStart: (e: DragStartEvent) => setDragId(String(e.active.id)),
      onDragEnd,
      onDragCancel: () => setDragId(null),
      accessibility: {
        announcements,
        screenReaderInstructions: {
          draggable:
            'To move the ticket to a sprint or the backlog, press Space, choose the section with the up and down arrows, and press Space again. Escape cancels.',
        },
      },
    },
  };
}

/** The row under the pointer while tickets are dragged, with how many more go with it. */
export function DraggedRow({ ticket, count }: { ticket: Ticket; count: number }) {
  return (
    <div className="flex max-w-md cursor-grabbing items-center gap-2 rounded-md border border-line-strong bg-surface px-3 py-2 shadow-pop">
      <TypeIcon type={ticket.type} />
      <span className="font-mono text-[12px] text-faint">{ticket.key}</span>
      <span className="min-w-0 flex-1 truncate">{ticket.title}</span>
      {count > 1 && (
        <span className="rounded-full bg-accent px-1.5 text-[11px] text-accent-fg">+{count - 1}</span>
      )}
    </div>
  );
}
