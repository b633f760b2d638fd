import { Link, useLocation, useSearch } from 'wouter';
import { errorText } from '../api/client';
import { useSprints } from '../api/sprints';
import type { Project, SprintFull } from '../api/types';
import { ProjectFrame } from '../components/ProjectNav';
import { EmptyState, ErrorState, Field, Select, Skeleton } from '../components/ui';
import { shortDate } from '../lib/dates';
import { BurndownSection, VelocitySection } from './report-charts';

/**
 * Sprint reports: the burndown of one sprint (the active one by default, else the latest completed)
 * and the velocity of the last completed sprints. Both charts read the theme's CSS variables, so
 * they follow light and dark; each has a data table for screen readers that can also be shown.
 */
export function ReportsPage({ projectKey }: { projectKey: string }) {
  return (
    <ProjectFrame projectKey={projectKey} tab="reports">
      {(project) => <ReportsBody project={project} />}
    </ProjectFrame>
  );
}

/** The theme's colours, as CSS variables that SVG attributes and inline styles resolve. */
export const C = {
  accent: 'var(--accent)',
  fg: 'var(--fg)',
  muted: 'var(--muted)',
  faint: 'var(--faint)',
  line: 'var(--line)',
  lineStrong: 'var(--line-strong)',
  warn: 'var(--warn)',
  success: 'var(--success)',
};

export const axisTick = { fill: C.muted, fontSize: 11 };

export const num = new Intl.NumberFormat(undefined, { maximumFractionDigits: 2 });
export const fmt = (n: number | null | undefined) => (n === null || n === undefined ? '—' : num.format(n));
export const pts = (n: number | null | undefined) =>
  n === null || n === undefined ? '—' : `${num.format(n)} pts`;
export const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** The sprint a report opens on: the active one, else the latest completed, else the newest planned. */
export function defaultSprint(list: SprintFull[]): SprintFull | undefined {
  const active = list.find((s) => s.status === 'active');
  if (active) return active;
  const completed = list
    .filter((s) => s.status === 'completed')
    .sort((a, b) => (b.completedAt ?? '').localeCompare(a.completedAt ?? ''));
  return completed[0] ?? list[list.length - 1];
}

export function ReportsBody({ project }: { project: Project }) {
  const sprints = useSprints(project.id);
  const search = useSearch();
  const [, navigate] = useLocation();
  const requested = new URLSearchParams(search).get('sprint');
  if (sprints.isError)
    return <ErrorState message={errorText(sprints.error)} onRetry={() => sprints.refetch()} />;
  if (!sprints.data)
    return (
      <div className="flex max-w-5xl flex-col gap-4 p-4" role="status" aria-busy="true" aria-label="Loading">
        <Skeleton className="h-8 w-64" />
        <Skeleton className="h-72" />
        <Skeleton className="h-72" />
      </div>
    );
  const list = sprints.data;
  if (list.length === 0)
    return (
      <EmptyState
        title="No sprints yet"
        action={
          <Link
            href={`/projects/${project.key}/backlog`}
            className="inline-flex h-8 items-center rounded-md border border-line bg-surface px-3 font-medium hover:bg-hover"
          >
            Plan a sprint in the backlog
          </Link>
        }
      >
        Reports appear once the project has sprints: start one and its burndown fills in day by day; complete
        it and it joins the velocity chart.
      </EmptyState>
    );
  const selected = list.find((s) => s.id === requested) ?? defaultSprint(list);
  const select = (id: string) =>
    navigate(`/projects/${project.key}/reports?sprint=${encodeURIComponent(id)}`, { replace: true });
  return (
    <div className="flex max-w-5xl flex-col gap-4 p-4">
      <SprintPicker sprints={list} selected={selected} onSelect={select} />
      {selected && <BurndownSection project={project} sprint={selected} />}
      <VelocitySection project={project} selectedId={selected?.id} />
    </div>
  );
}

export const STATUS_LABEL: Record<SprintFull['status'], string> = {
  active: 'Active',
  completed: 'Completed',
  planning: 'Planning',
};

export function dateRange(s: { startDate: string | null; endDate: string | null }) {
  if (!s.startDate && !s.endDate) return 'No dates yet';
  return `${shortDate(s.startDate) || '…'} – ${shortDate(s.endDate) || '…'}`;
}

export function SprintPicker({
  sprints,
  selected,
  onSelect,
}: {
  sprints: SprintFull[];
  selected: SprintFull | undefined;
  onSelect: (id: string) => void;
}) {
  const groups: [SprintFull['status'], SprintFull[]][] = [
    ['active', sprints.filter((s) => s.status === 'active')],
    [
      'completed',
      sprints
        .filter((s) => s.status === 'completed')
        .sort((a, b) => (b.completedAt ?? '').localeCompare(a.completedAt ?? '')),
    ],
    ['planning', sprints.filter((s) => s.status === 'planning')],
  ];
  return (
    <div className="flex flex-wrap items-end gap-x-4 gap-y-2">
      <div className="w-64">
        <Field label="Sprint">
          {(id) => (
            <Select id={id} value={selected?.id ?? ''} onChange={(e) => onSelect(e.target.value)}>
              {groups.map(([status, items]) =>
                items.length === 0 ? null : (
                  <optgroup key={status} label={STATUS_LABEL[status]}>
                    {items.map((s) => (
                      <option key={s.id} value={s.id}>
                        {s.name}
                      </option>
                    ))}
                  </optgroup>
                ),
              )}
            </Select>
          )}
        </Field>
      </div>
      {selected && (
        // On a phone the summary takes its own line under the picker, the dates on one line.
        <div
          className="flex min-w-0 basis-full flex-col pb-1 sm:basis-0 sm:flex-1"
          data-testid="sprint-summary"
        >
          <div className="flex items-center gap-2">
            <StatusBadge status={selected.status} />
            <span className="whitespace-nowrap text-muted" data-testid="sprint-dates">
              {dateRange(selected)}
            </span>
          </div>
          {selected.goal && <p className="truncate text-muted">Goal: {selected.goal}</p>}
        </div>
      )}
    </div>
  );
}

export function StatusBadge({ status }: { status: SprintFull['status'] }) {
  const tone =
    status === 'active'
      ? 'border-accent/40 bg-accent-soft text-accent'
      : status === 'completed'
        ? 'border-line bg-surface-2 text-success'
        : 'border-line bg-surface-2 text-muted';
  return (
    <span className={`rounded-full border px-2 py-px text-[11px] font-medium ${tone}`}>
      {STATUS_LABEL[status]}
    </span>
  );
}

/** Summary figures: a definition list, each figure reachable by its test id. */
export function Stats({ items }: { items: { id: string; label: string; value: string; hint?: string }[] }) {
  return (
    <dl className="mb-3 grid grid-cols-2 gap-2 sm:grid-cols-4">
      {items.map((it) => (
        <div key={it.id} className="rounded-md border border-line bg-subtle px-3 py-2">
          <dt className="text-[12px] text-muted">{it.label}</dt>
          <dd className="text-[18px] font-semibold tabular-nums" data-testid={`stat-${it.id}`}>
            {it.value}
          </dd>
          {it.hint && <dd className="text-[12px] text-faint">{it.hint}</dd>}
        </div>
      ))}
    </dl>
  );
}
