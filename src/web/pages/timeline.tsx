import { useId, useLayoutEffect, useRef, useState } from 'react';
import { errorText } from '../api/client';
import {
  type TimelineGroupOut,
  type TimelineItemOut,
  useSetTimelineDates,
  useTimeline,
} from '../api/planning';
import type { Project } from '../api/types';
import { localToday } from '../components/DueDate';
import { TypeIcon } from '../components/icons';
import { ProjectFrame } from '../components/ProjectNav';
import { Button, EmptyState, ErrorState, Skeleton } from '../components/ui';
import { addDays } from '../lib/dates';
import { toggled } from '../lib/toggle';
import { TicketDrawer } from './ticket-drawer';
import { type Dates, daysBetween, describeDates, TimelineBar, usePendingDates } from './timeline-bar';

/** Each zoom: the width of a day, the days shown, and how many of them come before today. */
const ZOOMS = {
  weeks: { label: 'Weeks', dayWidth: 28, days: 7 * 16, before: 14 },
  months: { label: 'Months', dayWidth: 6, days: 7 * 56, before: 42 },
} as const;
type Zoom = keyof typeof ZOOMS;

/**
 * The timeline: epics and their tickets on a horizontal time axis from start to due date, a row
 * each, the tickets of an epic beneath it (collapsible), a line for today. Bars are dragged (or
 * moved from the keyboard) to change the dates; each change is a ticket update, shown at once and
 * undone with a message when the server refuses it. Live: other people's changes arrive through
 * the project's event stream, as on the board.
 */
export function TimelinePage({ projectKey }: { projectKey: string }) {
  return (
    <ProjectFrame projectKey={projectKey} tab="timeline">
      {(project) => <TimelineBody project={project} />}
    </ProjectFrame>
  );
}

function TimelineBody({ project }: { project: Project }) {
  const today = localToday();
  const [zoom, setZoom] = useState<Zoom>('weeks');
  const z = ZOOMS[zoom];
  const [from, setFrom] = useState(() => addDays(today, -z.before));
  const to = addDays(from, z.days - 1);
  const timeline = useTimeline(project.id, from, to);
  const setDates = useSetTimelineDates(project.id);
  const [collapsed, setCollapsed] = useState<Set<string>>(new Set());
  const [drawer, setDrawer] = useState<string | null>(null);
  const hintId = useId();
  const scroller = useRef<HTMLDivElement>(null);
  const trackWidth = z.days * z.dayWidth;

  const setZoomKeepingToday = (next: Zoom) => {
    setZoom(next);
    setFrom(addDays(today, -ZOOMS[next].before));
  };
  const shift = (days: number) => setFrom((f) => addDays(f, days));
  // Today sits a quarter into the visible part of the axis when a window first shows.
  const loaded = timeline.data !== undefined;
  // biome-ignore lint/correctness/useExhaustiveDependencies: only when the window, the zoom or the first data change
  useLayoutEffect(() => {
    const el = scroller.current;
    if (!el) return;
    const names = el.clientWidth < 640 ? 144 : 256;
    el.scrollLeft = Math.max(0, daysBetween(today, from) * z.dayWidth - (el.clientWidth - names) / 4);
  }, [from, zoom, loaded]);

  const pending = usePendingDates(timeline.data?.groups);
  const change = (item: TimelineItemOut, dates: Dates) => {
    const taken = setDates(item, dates);
    const forget = pending.hold(item.id, dates);
    taken.then((ok) => (ok ? forget(5_000) : forget()));
  };
  const toggle = (id: string) => setCollapsed((s) => toggled(s, id));

  return (
    // The name column is narrower on a phone, where the axis scrolls sideways.
    <div className="flex h-full flex-col [--tl-label:9rem] sm:[--tl-label:16rem]">
      <div className="flex flex-wrap items-center gap-2 border-b border-line px-3 py-2 sm:px-4">
        <fieldset className="flex items-center rounded-md border border-line p-0.5">
          <legend className="sr-only">Zoom</legend>
          {(Object.keys(ZOOMS) as Zoom[]).map((k) => (
            <button
              key={k}
              type="button"
              aria-pressed={zoom === k}
              onClick={() => setZoomKeepingToday(k)}
              className={`rounded px-2 py-0.5 text-[12px] ${zoom === k ? 'bg-hover font-medium text-fg' : 'text-muted hover:text-fg'}`}
            >
              {ZOOMS[k].label}
            </button>
          ))}
        </fieldset>
        <Button size="sm" variant="ghost" onClick={() => shift(-Math.round(z.days / 2))} aria-label="Earlier">
          ‹ Earlier
        </Button>
        <Button size="sm" onClick={() => setFrom(addDays(today, -z.before))}>
          Today
        </Button>
        <Button size="sm" variant="ghost" onClick={() => shift(Math.round(z.days / 2))} aria-label="Later">
          Later ›
        </Button>
        <span className="text-[12px] text-muted">{describeDates({ startDate: from, dueDate: to })}</span>
        <span className="flex-1" />
        <p id={hintId} className="hidden text-[12px] text-faint lg:block">
          Drag a bar or its ends. Keys: ←/→ move a day, Shift+←/→ the due date, Alt+←/→ the start date.
        </p>
      </div>
      {timeline.isError ? (
        <ErrorState message={errorText(timeline.error)} onRetry={() => timeline.refetch()} />
      ) : !timeline.data ? (
        <div className="flex flex-col gap-2 p-4" role="status" aria-busy="true" aria-label="Loading">
          <Skeleton className="h-8" />
          <Skeleton className="h-8" />
          <Skeleton className="h-8" />
        </div>
      ) : (
        <>
          {timeline.data.truncated && (
            <p role="status" className="border-b border-line bg-subtle px-4 py-1.5 text-[12px] text-warn">
              Only the first 500 items of this window are shown: zoom in or move the window.
            </p>
          )}
          <div
            ref={scroller}
            className="relative min-h-0 flex-1 overflow-auto"
            data-testid="timeline-scroller"
          >
            <div className="relative" style={{ width: `calc(var(--tl-label) + ${trackWidth}px)` }}>
              <Axis from={from} days={z.days} dayWidth={z.dayWidth} zoom={zoom} today={today} />
              {timeline.data.groups.length === 0 ? (
                <div className="sticky left-0 w-[min(100vw,40rem)]">
                  <EmptyState title="Nothing planned in these weeks">
                    Tickets and epics appear here once they have a start or due date in the window.
                  </EmptyState>
                </div>
              ) : (
                timeline.data.groups.map((g) => (
                  <Group
                    key={g.epic?.id ?? 'none'}
                    group={g}
                    collapsed={collapsed.has(g.epic?.id ?? 'none')}
                    onToggle={() => toggle(g.epic?.id ?? 'none')}
                    bar={(item, epic) => (
                      <TimelineBar
                        item={pending.view(item)}
                        epic={epic}
                        from={from}
                        dayWidth={z.dayWidth}
                        trackWidth={trackWidth}
                        hintId={hintId}
                        onChange={change}
                        onOpen={(t) => setDrawer(t.key)}
                      />
                    )}
                  />
                ))
              )}
            </div>
          </div>
        </>
      )}
      {drawer && <TicketDrawer project={project} ticketRef={drawer} onClose={() => setDrawer(null)} />}
    </div>
  );
}

const LABEL =
  'sticky left-0 z-10 flex w-[var(--tl-label)] shrink-0 items-center gap-1.5 border-r border-line bg-bg px-2';

/** The month names, the week (or month) ticks, their grid lines down the rows, and today's line. */
function Axis({
  from,
  days,
  dayWidth,
  zoom,
  today,
}: {
  from: string;
  days: number;
  dayWidth: number;
  zoom: Zoom;
  today: string;
}) {
  const months: { x: number; label: string }[] = [];
  const ticks: { x: number; label: string }[] = [];
  for (let i = 0; i < days; i++) {
    const day = addDays(from, i);
    const d = new Date(`${day}T00:00:00Z`);
    if (i === 0 || d.getUTCDate() === 1)
      months.push({
        x: i * dayWidth,
        label: d.toLocaleDateString(undefined, { month: 'short', year: 'numeric', timeZone: 'UTC' }),
      });
    if (zoom === 'weeks' ? d.getUTCDay() === 1 : d.getUTCDate() === 1)
      ticks.push({ x: i * dayWidth, label: zoom === 'weeks' ? String(d.getUTCDate()) : '' });
  }
  const todayX = daysBetween(today, from);
  return (
    <>
      <div className="sticky top-0 z-20 flex h-11 border-b border-line bg-bg">
        <div className={`${LABEL} z-30 text-[12px] font-medium text-muted`}>Epics and tickets</div>
        <div className="relative flex-1 overflow-hidden text-[11px] text-muted" aria-hidden="true">
          {months.map((m) => (
            <span
              key={m.x}
              className="absolute top-1 pl-1 font-medium whitespace-nowrap text-fg"
              style={{ left: m.x }}
            >
              {m.label}
            </span>
          ))}
          {ticks.map((t) => (
            <span key={t.x} className="absolute bottom-1 pl-1 tabular-nums" style={{ left: t.x }}>
              {t.label}
            </span>
          ))}
        </div>
      </div>
      <div
        aria-hidden="true"
        className="pointer-events-none absolute top-0 bottom-0 left-[var(--tl-label)]"
        style={{ width: days * dayWidth }}
      >
        {ticks.map((t) => (
          <div key={t.x} className="absolute top-11 bottom-0 border-l border-line" style={{ left: t.x }} />
        ))}
        {todayX >= 0 && todayX < days && (
          <div
            data-testid="today-line"
            className="absolute top-0 bottom-0 z-10 w-0.5 bg-danger/70"
            style={{ left: todayX * dayWidth + dayWidth / 2 }}
          />
        )}
      </div>
    </>
  );
}

/** An epic's row and its tickets' rows (the tickets hidden when collapsed); or the tickets of no epic. */
function Group({
  group,
  collapsed,
  onToggle,
  bar,
}: {
  group: TimelineGroupOut;
  collapsed: boolean;
  onToggle: () => void;
  bar: (item: TimelineItemOut, epic?: boolean) => React.ReactNode;
}) {
  const { epic, tickets } = group;
  const name = epic ? `${epic.key} ${epic.title}` : 'No epic';
  return (
    <section aria-label={name} className="relative">
      <div className="flex h-9 border-b border-line bg-subtle/60">
        <div className={`${LABEL} bg-subtle`}>
          <button
            type="button"
            aria-expanded={!collapsed}
            aria-label={`${collapsed ? 'Show' : 'Hide'} the tickets of ${name}`}
            onClick={onToggle}
            className="flex h-6 w-6 shrink-0 items-center justify-center rounded text-muted hover:bg-hover"
          >
            <span
              aria-hidden="true"
              className={`inline-block transition-transform ${collapsed ? '' : 'rotate-90'}`}
            >
              ▸
            </span>
          </button>
          {epic && <TypeIcon type="Epic" />}
          {epic && (
            <span className="hidden shrink-0 font-mono text-[11px] text-faint sm:inline">{epic.key}</span>
          )}
          <span className="truncate text-[13px] font-medium">{epic ? epic.title : 'No epic'}</span>
          <span className="ml-auto shrink-0 text-[11px] text-faint tabular-nums">{tickets.length}</span>
        </div>
        <div className="relative flex-1">{epic?.inWindow && bar(epic, true)}</div>
      </div>
      {!collapsed &&
        tickets.map((t) => (
          <div key={t.id} className="flex h-9 border-b border-line/60">
            <div className={`${LABEL} pl-5 sm:pl-9`}>
              <TypeIcon type={t.type} />
              <span className="hidden shrink-0 font-mono text-[11px] text-faint sm:inline">{t.key}</span>
              <span className={`truncate text-[13px] ${t.isDone ? 'text-muted line-through' : ''}`}>
                {t.title}
              </span>
            </div>
            <div className="relative flex-1">{bar(t)}</div>
          </div>
        ))}
    </section>
  );
}
