import { type ReactNode, useId, useState } from 'react';
import {
  Bar,
  BarChart,
  CartesianGrid,
  Legend,
  Line,
  LineChart,
  ReferenceLine,
  ResponsiveContainer,
  Tooltip,
  type TooltipPayloadEntry,
  XAxis,
  YAxis,
} from 'recharts';
import { Link, useLocation, useSearch } from 'wouter';
import { errorText } from '../api/client';
import { useBurndown, useSprints, useVelocity } from '../api/sprints';
import type { Burndown, Project, SprintFull, Velocity } from '../api/types';
import { ProjectFrame, Section } from '../components/ProjectNav';
import { Button, EmptyState, ErrorState, Field, Select, Skeleton } from '../components/ui';
import { dayOf, shortDate } from '../lib/dates';

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
const C = {
  accent: 'var(--accent)',
  fg: 'var(--fg)',
  muted: 'var(--muted)',
  faint: 'var(--faint)',
  line: 'var(--line)',
  lineStrong: 'var(--line-strong)',
  warn: 'var(--warn)',
  success: 'var(--success)',
};

const axisTick = { fill: C.muted, fontSize: 11 };

const num = new Intl.NumberFormat(undefined, { maximumFractionDigits: 2 });
const fmt = (n: number | null | undefined) => (n === null || n === undefined ? '—' : num.format(n));
const pts = (n: number | null | undefined) => (n === null || n === undefined ? '—' : `${num.format(n)} pts`);
const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** The sprint a report opens on: the active one, else the latest completed, else the newest planned. */
export function defaultSprint(list: SprintFull[]): SprintFull | undefined {
  const active = list.find((s) => s.status === 'active');
  if (active) return active;
  const completed = list
    .filter((s) => s.status === 'completed')
    .sort((a, b) => (b.completedAt ?? '').localeCompare(a.completedAt ?? ''));
  return completed[0] ?? list[list.length - 1];
}

function ReportsBody({ project }: { project: Project }) {
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

const STATUS_LABEL: Record<SprintFull['status'], string> = {
  active: 'Active',
  completed: 'Completed',
  planning: 'Planning',
};

function dateRange(s: { startDate: string | null; endDate: string | null }) {
  if (!s.startDate && !s.endDate) return 'No dates yet';
  return `${shortDate(s.startDate) || '…'} – ${shortDate(s.endDate) || '…'}`;
}

function SprintPicker({
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
        <div className="flex min-w-0 flex-1 flex-col pb-1" data-testid="sprint-summary">
          <div className="flex items-center gap-2">
            <StatusBadge status={selected.status} />
            <span className="text-muted">{dateRange(selected)}</span>
          </div>
          {selected.goal && <p className="truncate text-muted">Goal: {selected.goal}</p>}
        </div>
      )}
    </div>
  );
}

function StatusBadge({ status }: { status: SprintFull['status'] }) {
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
function Stats({ items }: { items: { id: string; label: string; value: string; hint?: string }[] }) {
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

/** The tooltip of both charts, in the theme's surface and text colours. */
function ChartTooltip({
  active,
  payload,
  label,
  title,
}: {
  active?: boolean;
  payload?: readonly TooltipPayloadEntry[];
  label?: string | number;
  title?: (label: string) => string;
}) {
  if (!active || !payload || payload.length === 0) return null;
  return (
    <div className="rounded-md border border-line bg-surface px-2.5 py-1.5 text-[12px] shadow-pop">
      <div className="mb-0.5 font-medium text-fg">{title ? title(String(label)) : label}</div>
      {payload.map((p) => (
        <div key={String(p.dataKey)} className="flex items-center gap-2 text-muted">
          <span
            aria-hidden="true"
            className="inline-block h-2 w-2 rounded-full"
            style={{ background: p.color }}
          />
          <span className="flex-1">{p.name}</span>
          <span className="font-medium text-fg tabular-nums">{fmt(p.value as number | null)}</span>
        </div>
      ))}
    </div>
  );
}

const legendText = (value: string) => <span className="text-[12px] text-muted">{value}</span>;

/**
 * A data table that mirrors a chart: always in the document for screen readers, and shown on screen
 * with its toggle.
 */
function DataTable({
  caption,
  head,
  rows,
  testId,
}: {
  caption: string;
  head: string[];
  rows: ReactNode[][];
  testId: string;
}) {
  const [shown, setShown] = useState(false);
  const id = useId();
  return (
    <div className="mt-2">
      <Button
        size="sm"
        variant="ghost"
        aria-expanded={shown}
        aria-controls={id}
        onClick={() => setShown(!shown)}
      >
        {shown ? 'Hide data table' : 'Show data table'}
      </Button>
      <div id={id} className={shown ? 'mt-2 overflow-x-auto' : 'sr-only'}>
        <table className="w-full border-collapse text-[12px]" data-testid={testId}>
          <caption className="sr-only">{caption}</caption>
          <thead>
            <tr className="border-b border-line text-left text-muted">
              {head.map((h) => (
                <th key={h} scope="col" className="px-2 py-1 font-medium">
                  {h}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {rows.map((r, i) => (
              // biome-ignore lint/suspicious/noArrayIndexKey: rows are positional (one per day or sprint)
              <tr key={i} className="border-b border-line last:border-0">
                {r.map((cell, j) =>
                  j === 0 ? (
                    // biome-ignore lint/suspicious/noArrayIndexKey: cells are positional
                    <th key={j} scope="row" className="px-2 py-1 text-left font-normal">
                      {cell}
                    </th>
                  ) : (
                    // biome-ignore lint/suspicious/noArrayIndexKey: cells are positional
                    <td key={j} className="px-2 py-1 tabular-nums">
                      {cell}
                    </td>
                  ),
                )}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </div>
  );
}

// --- Burndown ----------------------------------------------------------------------------------

/** The last day with measured figures (days not reached yet have nulls). */
function lastMeasured(b: Burndown) {
  for (let i = b.days.length - 1; i >= 0; i--) if (b.days[i].remainingPoints !== null) return b.days[i];
  return undefined;
}

function daysLeft(endDate: string | null) {
  if (!endDate) return null;
  const end = Date.parse(`${dayOf(endDate)}T00:00:00.000Z`);
  const today = Date.parse(`${dayOf(null)}T00:00:00.000Z`);
  return Math.max(0, Math.round((end - today) / 86_400_000));
}

function BurndownSection({ project, sprint }: { project: Project; sprint: SprintFull }) {
  const burndown = useBurndown(project.id, sprint.id);
  const b = burndown.data;
  return (
    <Section
      title={`Burndown: ${sprint.name}`}
      description="Open story points at the end of each day against the ideal line from the committed points to zero."
    >
      {burndown.isError && (
        <ErrorState message={errorText(burndown.error)} onRetry={() => burndown.refetch()} />
      )}
      {!b && !burndown.isError && (
        <div role="status" aria-busy="true" aria-label="Loading the burndown">
          <Skeleton className="h-72" />
        </div>
      )}
      {b && b.sprintId === sprint.id && <BurndownBody sprint={sprint} burndown={b} />}
    </Section>
  );
}

function BurndownBody({ sprint, burndown: b }: { sprint: SprintFull; burndown: Burndown }) {
  const last = lastMeasured(b);
  if (b.status === 'planning' || b.days.length === 0)
    return (
      <div data-testid="burndown-empty">
        <Stats
          items={[
            {
              id: 'committed',
              label: 'Planned so far',
              value: pts(b.committedPoints),
              hint: plural(b.committedTickets, 'ticket'),
            },
          ]}
        />
        <p className="text-muted">{sprint.name} has not started: its burndown begins on the day it starts.</p>
      </div>
    );
  const scopeChange = last?.scopePoints != null ? last.scopePoints - b.committedPoints : null;
  const left = daysLeft(b.endDate);
  const data = b.days.map((d) => ({
    date: d.date,
    remaining: d.remainingPoints,
    ideal: d.idealPoints,
    scope: d.scopePoints,
  }));
  const today = dayOf(null);
  const showToday = b.status === 'active' && b.days.some((d) => d.date === today);
  const description =
    `Burndown of ${sprint.name}, ${dateRange(b)}: ${pts(b.committedPoints)} committed, ` +
    `${pts(last?.remainingPoints ?? b.committedPoints)} remaining` +
    (last ? ` on ${shortDate(last.date)}` : '') +
    '. The data table below lists every day.';
  return (
    <div data-testid="burndown">
      <Stats
        items={[
          {
            id: 'committed',
            label: 'Committed',
            value: pts(b.committedPoints),
            hint: plural(b.committedTickets, 'ticket'),
          },
          {
            id: 'completed',
            label: 'Completed',
            value: pts(last?.completedPoints ?? 0),
            hint:
              last?.scopePoints && last.completedPoints !== null
                ? `${Math.round((last.completedPoints / last.scopePoints) * 100)}% of the scope`
                : undefined,
          },
          {
            id: 'remaining',
            label: 'Remaining',
            value: pts(last?.remainingPoints ?? b.committedPoints),
            hint: last?.remainingTickets != null ? plural(last.remainingTickets, 'open ticket') : undefined,
          },
          b.status === 'completed'
            ? {
                id: 'scope-change',
                label: 'Scope change',
                value: scopeChange === null ? '—' : `${scopeChange > 0 ? '+' : ''}${pts(scopeChange)}`,
                hint: sprint.completedAt ? `Completed ${shortDate(sprint.completedAt)}` : undefined,
              }
            : {
                id: 'days-left',
                label: 'Days left',
                value: left === null ? '—' : String(left),
                hint:
                  scopeChange !== null && scopeChange !== 0
                    ? `Scope ${scopeChange > 0 ? '+' : ''}${pts(scopeChange)} since the start`
                    : `Ends ${shortDate(b.endDate)}`,
              },
        ]}
      />
      <figure className="m-0">
        <div className="h-72" data-testid="burndown-chart">
          <ResponsiveContainer width="100%" height="100%">
            <LineChart
              data={data}
              margin={{ top: 8, right: 16, bottom: 4, left: 0 }}
              role="img"
              aria-label={description}
            >
              <CartesianGrid stroke={C.line} strokeDasharray="3 3" vertical={false} />
              <XAxis
                dataKey="date"
                tickFormatter={(d: string) => shortDate(d)}
                tick={axisTick}
                stroke={C.lineStrong}
                tickLine={false}
                minTickGap={16}
              />
              <YAxis
                allowDecimals={false}
                tick={axisTick}
                stroke={C.lineStrong}
                tickLine={false}
                width={40}
                label={{ value: 'Points', angle: -90, position: 'insideLeft', fill: C.faint, fontSize: 11 }}
              />
              <Tooltip
                content={(p) => (
                  <ChartTooltip active={p.active} payload={p.payload} label={p.label} title={shortDate} />
                )}
                cursor={{ stroke: C.lineStrong }}
              />
              <Legend formatter={legendText} iconType="plainline" wrapperStyle={{ paddingTop: 4 }} />
              {showToday && (
                <ReferenceLine
                  x={today}
                  stroke={C.faint}
                  strokeDasharray="2 3"
                  label={{ value: 'Today', position: 'insideTopLeft', fill: C.muted, fontSize: 11 }}
                />
              )}
              <Line
                type="linear"
                dataKey="ideal"
                name="Ideal"
                stroke={C.faint}
                strokeDasharray="5 4"
                strokeWidth={1.5}
                dot={false}
                isAnimationActive={false}
              />
              <Line
                type="stepAfter"
                dataKey="scope"
                name="Scope"
                stroke={C.warn}
                strokeWidth={1.5}
                dot={false}
                isAnimationActive={false}
              />
              <Line
                type="linear"
                dataKey="remaining"
                name="Remaining"
                stroke={C.accent}
                strokeWidth={2.5}
                dot={{ r: 2.5, fill: C.accent, strokeWidth: 0 }}
                activeDot={{ r: 4 }}
                isAnimationActive={false}
              />
            </LineChart>
          </ResponsiveContainer>
        </div>
        <figcaption className="sr-only">{description}</figcaption>
      </figure>
      <DataTable
        testId="burndown-table"
        caption={`Burndown of ${sprint.name}, per day`}
        head={['Day', 'Remaining points', 'Ideal points', 'Completed points', 'Scope points', 'Open tickets']}
        rows={b.days.map((d) => [
          shortDate(d.date),
          fmt(d.remainingPoints),
          fmt(d.idealPoints),
          fmt(d.completedPoints),
          fmt(d.scopePoints),
          fmt(d.remainingTickets),
        ])}
      />
    </div>
  );
}

// --- Velocity ----------------------------------------------------------------------------------

function VelocitySection({ project, selectedId }: { project: Project; selectedId: string | undefined }) {
  const velocity = useVelocity(project.id);
  const v = velocity.data;
  return (
    <Section
      title="Velocity"
      description="Story points committed at the start and completed by the end of each of the last completed sprints."
    >
      {velocity.isError && (
        <ErrorState message={errorText(velocity.error)} onRetry={() => velocity.refetch()} />
      )}
      {!v && !velocity.isError && (
        <div role="status" aria-busy="true" aria-label="Loading the velocity">
          <Skeleton className="h-72" />
        </div>
      )}
      {v &&
        (v.sprints.length === 0 ? (
          <p className="text-muted" data-testid="velocity-empty">
            No completed sprints yet: velocity appears when the first sprint is completed.
          </p>
        ) : (
          <VelocityBody velocity={v} selectedId={selectedId} />
        ))}
    </Section>
  );
}

function VelocityBody({ velocity: v, selectedId }: { velocity: Velocity; selectedId: string | undefined }) {
  const committed = v.sprints.reduce((n, s) => n + s.committedPoints, 0);
  const completed = v.sprints.reduce((n, s) => n + s.completedPoints, 0);
  const carried = v.sprints.reduce((n, s) => n + s.carriedOverCount, 0);
  const latest = v.sprints[v.sprints.length - 1];
  const data = v.sprints.map((s) => ({
    id: s.id,
    name: s.name,
    committed: s.committedPoints,
    completed: s.completedPoints,
  }));
  const description =
    `Velocity of the last ${plural(v.sprints.length, 'completed sprint')}: on average ` +
    `${pts(v.averageCompletedPoints)} completed per sprint. The data table below lists each sprint.`;
  const selectedName = v.sprints.find((s) => s.id === selectedId)?.name;
  return (
    <div data-testid="velocity">
      <Stats
        items={[
          {
            id: 'average',
            label: 'Average velocity',
            value: pts(v.averageCompletedPoints),
            hint: `over ${plural(v.sprints.length, 'sprint')}`,
          },
          {
            id: 'last-sprint',
            label: `Last sprint (${latest.name})`,
            value: `${fmt(latest.completedPoints)} / ${fmt(latest.committedPoints)}`,
            hint: 'points completed / committed',
          },
          {
            id: 'completion-rate',
            label: 'Completion rate',
            value: committed > 0 ? `${Math.round((completed / committed) * 100)}%` : '—',
            hint: `${fmt(completed)} of ${pts(committed)}`,
          },
          {
            id: 'carried-over',
            label: 'Carried over',
            value: String(carried),
            hint: carried === 1 ? 'ticket' : 'tickets',
          },
        ]}
      />
      <figure className="m-0">
        <div className="h-72" data-testid="velocity-chart">
          <ResponsiveContainer width="100%" height="100%">
            <BarChart
              data={data}
              margin={{ top: 8, right: 16, bottom: 4, left: 0 }}
              barGap={2}
              role="img"
              aria-label={description}
            >
              <CartesianGrid stroke={C.line} strokeDasharray="3 3" vertical={false} />
              <XAxis
                dataKey="name"
                tick={(props: { x: number | string; y: number | string; payload: { value: string } }) => (
                  <text
                    x={Number(props.x)}
                    y={Number(props.y) + 12}
                    textAnchor="middle"
                    fontSize={11}
                    fill={props.payload.value === selectedName ? C.fg : C.muted}
                    fontWeight={props.payload.value === selectedName ? 600 : 400}
                  >
                    {props.payload.value}
                  </text>
                )}
                stroke={C.lineStrong}
                tickLine={false}
                interval={0}
              />
              <YAxis
                allowDecimals={false}
                tick={axisTick}
                stroke={C.lineStrong}
                tickLine={false}
                width={40}
                label={{ value: 'Points', angle: -90, position: 'insideLeft', fill: C.faint, fontSize: 11 }}
              />
              <Tooltip
                content={(p) => <ChartTooltip active={p.active} payload={p.payload} label={p.label} />}
                cursor={{ fill: 'var(--hover)' }}
              />
              <Legend formatter={legendText} wrapperStyle={{ paddingTop: 4 }} />
              <ReferenceLine
                y={v.averageCompletedPoints}
                stroke={C.success}
                strokeDasharray="4 3"
                label={{
                  value: `Average ${fmt(v.averageCompletedPoints)}`,
                  position: 'insideTopRight',
                  fill: C.success,
                  fontSize: 11,
                }}
              />
              <Bar
                dataKey="committed"
                name="Committed"
                fill={C.faint}
                fillOpacity={0.55}
                radius={[3, 3, 0, 0]}
                maxBarSize={36}
                isAnimationActive={false}
              />
              <Bar
                dataKey="completed"
                name="Completed"
                fill={C.accent}
                radius={[3, 3, 0, 0]}
                maxBarSize={36}
                isAnimationActive={false}
              />
            </BarChart>
          </ResponsiveContainer>
        </div>
        <figcaption className="sr-only">{description}</figcaption>
      </figure>
      <DataTable
        testId="velocity-table"
        caption="Velocity per completed sprint"
        head={['Sprint', 'Committed points', 'Completed points', 'Completed tickets', 'Carried over']}
        rows={v.sprints.map((s) => [
          s.name,
          fmt(s.committedPoints),
          fmt(s.completedPoints),
          `${s.completedTickets} of ${s.committedTickets}`,
          fmt(s.carriedOverCount),
        ])}
      />
    </div>
  );
}
