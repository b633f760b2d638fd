import { type KeyboardEvent, type PointerEvent, useEffect, useRef, useState } from 'react';
import type { TimelineGroupOut, TimelineItemOut } from '../api/planning';
import { addDays, shortDate } from '../lib/dates';

/** The days of a timeline bar: both set (a span), or one (a point on that day). */
export interface Dates {
  startDate: string | null;
  dueDate: string | null;
}

const DAY_MS = 86_400_000;
/** Whole days from `b` to `a` (YYYY-MM-DD). */
export const daysBetween = (a: string, b: string) =>
  Math.round((Date.parse(`${a}T00:00:00Z`) - Date.parse(`${b}T00:00:00Z`)) / DAY_MS);

const earlier = (a: string, b: string) => (a <= b ? a : b);
const later = (a: string, b: string) => (a >= b ? a : b);

/**
 * The dates after a change: `move` shifts both by `days`, `start` and `end` one edge, never past
 * the other (a span may shrink to one day). A point moves whatever the edge.
 */
export function shifted(d: Dates, edge: 'move' | 'start' | 'end', days: number): Dates {
  if (days === 0) return d;
  const s = d.startDate;
  const e = d.dueDate;
  if (!s || !e) return { startDate: s && addDays(s, days), dueDate: e && addDays(e, days) };
  const lo = earlier(s, e);
  const hi = later(s, e);
  if (edge === 'move') return { startDate: addDays(lo, days), dueDate: addDays(hi, days) };
  if (edge === 'start') return { startDate: earlier(addDays(lo, days), hi), dueDate: hi };
  return { startDate: lo, dueDate: later(addDays(hi, days), lo) };
}

export function describeDates(d: Dates) {
  if (d.startDate && d.dueDate) return `${shortDate(d.startDate)} – ${shortDate(d.dueDate)}`;
  if (d.dueDate) return `due ${shortDate(d.dueDate)}`;
  return `starts ${shortDate(d.startDate)}`;
}

type Edge = 'move' | 'start' | 'end';

/**
 * The dates just given to tickets on the timeline, shown until data fetched after the server took
 * them shows them too (or a few seconds after it took them): a refetch that began before a change
 * landed must not put a bar back, nor make the next key press start from the old dates. The
 * optimistic write to the cache does not count as "shown": a stale refetch may overwrite it.
 */
export function usePendingDates(groups: TimelineGroupOut[] | undefined) {
  const [pending, setPending] = useState<ReadonlyMap<string, Dates & { n: number; taken: boolean }>>(
    new Map(),
  );
  const seq = useRef(0);
  useEffect(() => {
    if (!groups) return;
    setPending((m) => {
      const next = new Map(m);
      for (const g of groups)
        for (const t of g.epic ? [g.epic, ...g.tickets] : g.tickets) {
          const p = next.get(t.id);
          if (p?.taken && p.startDate === t.startDate && p.dueDate === t.dueDate) next.delete(t.id);
        }
      return next.size === m.size ? m : next;
    });
  }, [groups]);
  const settle = (id: string, n: number, how: 'taken' | 'drop') =>
    setPending((m) => {
      if (m.get(id)?.n !== n) return m;
      const next = new Map(m);
      if (how === 'drop') next.delete(id);
      else next.set(id, { ...m.get(id)!, taken: true });
      return next;
    });
  return {
    /**
     * Remembers new dates until the server has taken them and a later fetch shows them: the
     * returned function forgets them at once (a refusal) or, given a delay, marks them taken and
     * forgets them after the delay at the latest.
     */
    hold(id: string, dates: Dates) {
      const n = ++seq.current;
      setPending((m) => new Map(m).set(id, { ...dates, n, taken: false }));
      return (after = 0) => {
        if (!after) return settle(id, n, 'drop');
        settle(id, n, 'taken');
        setTimeout(() => settle(id, n, 'drop'), after);
      };
    },
    /** The item with the dates just given to it. */
    view<T extends TimelineItemOut>(t: T): T {
      const p = pending.get(t.id);
      return p ? { ...t, startDate: p.startDate, dueDate: p.dueDate } : t;
    },
  };
}

/**
 * One ticket or epic on the time axis: a bar from start to due (a diamond when it has one date).
 * Dragging the bar moves both dates, dragging an end moves that one; from the keyboard, Left and
 * Right move the bar a day, Shift with them moves the due date, Alt the start date. A click (or
 * Enter) opens the ticket. Each finished change is one `onChange` with the new dates.
 */
export function TimelineBar({
  item,
  from,
  dayWidth,
  trackWidth,
  epic,
  hintId,
  onChange,
  onOpen,
}: {
  item: TimelineItemOut;
  from: string;
  dayWidth: number;
  trackWidth: number;
  epic?: boolean;
  hintId: string;
  onChange: (item: TimelineItemOut, dates: Dates) => void;
  onOpen: (item: TimelineItemOut) => void;
}) {
  const [drag, setDrag] = useState<{ edge: Edge; x: number; days: number; id: number } | null>(null);
  const moved = useRef(false);
  const shown = drag ? shifted(item, drag.edge, drag.days) : item;
  const point = !shown.startDate || !shown.dueDate;
  const first = point ? (shown.startDate ?? shown.dueDate)! : earlier(shown.startDate!, shown.dueDate!);
  const last = point ? first : later(shown.startDate!, shown.dueDate!);
  const left = daysBetween(first, from) * dayWidth;
  const right = (daysBetween(last, from) + 1) * dayWidth;
  const visLeft = Math.max(0, left);
  const visRight = Math.min(trackWidth, right);

  const down = (e: PointerEvent<HTMLButtonElement>) => {
    if (e.button !== 0) return;
    const edge = ((e.target as HTMLElement).dataset.edge as Edge | undefined) ?? 'move';
    e.currentTarget.setPointerCapture(e.pointerId);
    moved.current = false;
    setDrag({ edge: point ? 'move' : edge, x: e.clientX, days: 0, id: e.pointerId });
  };
  const move = (e: PointerEvent<HTMLButtonElement>) => {
    if (!drag || e.pointerId !== drag.id) return;
    const dx = e.clientX - drag.x;
    if (Math.abs(dx) > 3) moved.current = true;
    const days = Math.round(dx / dayWidth);
    if (days !== drag.days) setDrag({ ...drag, days });
  };
  const up = (e: PointerEvent<HTMLButtonElement>) => {
    if (!drag || e.pointerId !== drag.id) return;
    const next = shifted(item, drag.edge, drag.days);
    setDrag(null);
    if (next.startDate !== item.startDate || next.dueDate !== item.dueDate) onChange(item, next);
  };
  const key = (e: KeyboardEvent<HTMLButtonElement>) => {
    if (e.key !== 'ArrowLeft' && e.key !== 'ArrowRight') return;
    e.preventDefault();
    const days = e.key === 'ArrowLeft' ? -1 : 1;
    const edge: Edge = e.shiftKey ? 'end' : e.altKey ? 'start' : 'move';
    const next = shifted(item, edge, days);
    if (next.startDate !== item.startDate || next.dueDate !== item.dueDate) onChange(item, next);
  };

  if (visRight <= visLeft) return null;
  const label = `${item.key} ${item.title}: ${describeDates(shown)}${item.isDone ? ', done' : ''}`;
  const tone = item.isDone
    ? 'border-success/50 bg-success/15 text-fg'
    : epic
      ? 'border-accent bg-accent text-accent-fg'
      : 'border-accent/60 bg-accent-soft text-fg';
  const handlers = {
    onPointerDown: down,
    onPointerMove: move,
    onPointerUp: up,
    onPointerCancel: () => setDrag(null),
    onKeyDown: key,
    onClick: () => {
      if (moved.current) moved.current = false;
      else onOpen(item);
    },
    'aria-label': label,
    'aria-describedby': hintId,
    'data-ticket': item.key,
    title: label,
  };
  if (point) {
    const size = 14;
    const cx = left + dayWidth / 2;
    return (
      <button
        type="button"
        {...handlers}
        className={`absolute top-1/2 -translate-y-1/2 rotate-45 cursor-grab rounded-[3px] border ${tone} ${drag ? 'cursor-grabbing ring-2 ring-accent' : ''}`}
        style={{ left: cx - size / 2, width: size, height: size, touchAction: 'pan-y' }}
      />
    );
  }
  return (
    <button
      type="button"
      {...handlers}
      className={`absolute top-1.5 bottom-1.5 flex cursor-grab items-center overflow-hidden border text-left text-[12px] ${tone} ${
        left >= 0 ? 'rounded-l-md' : 'border-l-0'
      } ${right <= trackWidth ? 'rounded-r-md' : 'border-r-0'} ${drag ? 'cursor-grabbing ring-2 ring-accent' : ''}`}
      style={{ left: visLeft, width: visRight - visLeft, touchAction: 'pan-y' }}
    >
      {left >= 0 && (
        <span
          data-edge="start"
          aria-hidden="true"
          className="absolute inset-y-0 left-0 w-2 cursor-ew-resize"
        />
      )}
      <span className="pointer-events-none truncate px-2">{item.title}</span>
      {right <= trackWidth && (
        <span
          data-edge="end"
          aria-hidden="true"
          className="absolute inset-y-0 right-0 w-2 cursor-ew-resize"
        />
      )}
    </button>
  );
}
