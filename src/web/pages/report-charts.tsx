/** The reports' charts: burndown and velocity, with their data tables for screen readers. */
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
import { errorText } from '../api/client';
import { useBurndown, useVelocity } from '../api/sprints';
import type { Burndown, Project, SprintFull, Velocity } from '../api/types';
import { Section } from '../components/ProjectNav';
import { Button, ErrorState, Skeleton } from '../components/ui';
import { dayOf, shortDate } from '../lib/dates';
import { axisTick, C, dateRange, fmt, plural, pts, Stats } from './Reports';

/** The tooltip of both charts, in the theme's surface and text colours. */
export function ChartTooltip({
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

export const legendText = (value: string) => <span className="text-[12px] text-muted">{value}</span>;

/**
 * A data table that mirrors a chart: always in the document for screen readers, and shown on screen
 * with its toggle.
 */
export function DataTable({
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
export function lastMeasured(b: Burndown) {
  for (let i = b.days.length - 1; i >= 0; i--) if (b.days[i].remainingPoints !== null) return b.days[i];
  return undefined;
}

export function daysLeft(endDate: string | null) {
  if (!endDate) return null;
  const end = Date.parse(`${dayOf(endDate)}T00:00:00.000Z`);
  const today = Date.parse(`${dayOf(null)}T00:00:00.000Z`);
  return Math.max(0, Math.round((end - today) / 86_400_000));
}

export function BurndownSection({ project, sprint }: { project: Project; sprint: SprintFull }) {
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

/** The figures above a started sprint's burndown: committed, completed, remaining, and days left or the scope change. */
function burndownStats(sprint: SprintFull, b: Burndown) {
  const last = lastMeasured(b);
  const scopeChange = last?.scopePoints != null ? last.scopePoints - b.committedPoints : null;
  const left = daysLeft(b.endDate);
  return [
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
  ];
}

export function BurndownBody({ sprint, burndown: b }: { sprint: SprintFull; burndown: Burndown }) {
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
      <Stats items={burndownStats(sprint, b)} />
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

export function VelocitySection({
  project,
  selectedId,
}: {
  project: Project;
  selectedId: string | undefined;
}) {
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

export function VelocityBody({
  velocity: v,
  selectedId,
}: {
  velocity: Velocity;
  selectedId: string | undefined;
}) {
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
