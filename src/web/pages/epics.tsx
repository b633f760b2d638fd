import { useState } from 'react';
import { errorText } from '../api/client';
import { useColumns } from '../api/columns';
import { type EpicOut, type EpicsOut, useEpicChildren, useEpics } from '../api/planning';
import type { Project } from '../api/types';
import { DueDate } from '../components/DueDate';
import { TypeIcon } from '../components/icons';
import { ProjectFrame } from '../components/ProjectNav';
import { useShell } from '../components/shell-context';
import { Avatar, Button, EmptyState, ErrorState, Skeleton } from '../components/ui';
import { useDoneColumnIds } from '../hooks/project-data';
import { shortDate } from '../lib/dates';
import { toggled } from '../lib/toggle';
import { num, plural } from './Reports';
import { TicketDrawer } from './ticket-drawer';

/**
 * The epics of a project: one row per epic with its children's progress by count and by points,
 * its dates and assignee; a row opens to list the children (the ticket list filtered by parent),
 * each opening the ticket drawer. The top-level tickets of no epic are summed at the end.
 */
export function EpicsPage({ projectKey }: { projectKey: string }) {
  const shell = useShell();
  return (
    <ProjectFrame
      projectKey={projectKey}
      tab="epics"
      actions={(p) => (
        <Button size="sm" variant="primary" onClick={() => shell.newTicket(p.id, { type: 'Epic' })}>
          New epic
        </Button>
      )}
    >
      {(project) => <EpicsBody project={project} />}
    </ProjectFrame>
  );
}

function EpicsBody({ project }: { project: Project }) {
  const epics = useEpics(project.id);
  const shell = useShell();
  const [open, setOpen] = useState<Set<string>>(new Set());
  const [drawer, setDrawer] = useState<string | null>(null);
  if (epics.isError) return <ErrorState message={errorText(epics.error)} onRetry={() => epics.refetch()} />;
  if (!epics.data)
    return (
      <div className="flex max-w-5xl flex-col gap-2 p-4" role="status" aria-busy="true" aria-label="Loading">
        <Skeleton className="h-12" />
        <Skeleton className="h-12" />
        <Skeleton className="h-12" />
      </div>
    );
  const data = epics.data;
  const toggle = (id: string) => setOpen((s) => toggled(s, id));
  return (
    <div className="flex max-w-5xl flex-col gap-3 p-3 sm:p-4">
      {data.epics.length === 0 ? (
        <EmptyState
          title="No epics yet"
          action={
            <Button variant="primary" onClick={() => shell.newTicket(project.id, { type: 'Epic' })}>
              New epic
            </Button>
          }
        >
          An epic gathers the tickets of a larger piece of work: make a ticket its child by choosing the epic
          as its parent, and its progress shows here.
        </EmptyState>
      ) : (
        <ul aria-label="Epics" className="divide-y divide-line rounded-lg border border-line bg-surface">
          {data.epics.map((e) => (
            <li key={e.id}>
              <EpicRow epic={e} open={open.has(e.id)} onToggle={() => toggle(e.id)} onOpen={setDrawer} />
              {open.has(e.id) && <Children project={project} epic={e} onOpen={setDrawer} />}
            </li>
          ))}
        </ul>
      )}
      {data.total > data.epics.length && (
        <p className="text-muted">
          Showing the first {data.epics.length} of {data.total} epics.
        </p>
      )}
      <NoEpic data={data} />
      {drawer && <TicketDrawer project={project} ticketRef={drawer} onClose={() => setDrawer(null)} />}
    </div>
  );
}

/** A progress bar with its words: `done of total` and the share filled. */
export function Progress({
  label,
  done,
  total,
  unit,
}: {
  label: string;
  done: number;
  total: number;
  unit: string;
}) {
  const share = total > 0 ? Math.round((done / total) * 100) : 0;
  const text = `${num.format(done)} of ${num.format(total)} ${unit}`;
  return (
    <div className="flex min-w-0 items-center gap-2" title={`${label}: ${text}`}>
      <div
        role="progressbar"
        aria-label={label}
        aria-valuemin={0}
        aria-valuemax={100}
        aria-valuenow={share}
        aria-valuetext={text}
        className="h-1.5 w-20 shrink-0 overflow-hidden rounded-full bg-surface-2 sm:w-28"
      >
        <div className="h-full rounded-full bg-success" style={{ width: `${share}%` }} />
      </div>
      <span className="whitespace-nowrap text-[12px] text-muted tabular-nums">{text}</span>
    </div>
  );
}

function EpicRow({
  epic,
  open,
  onToggle,
  onOpen,
}: {
  epic: EpicOut;
  open: boolean;
  onToggle: () => void;
  onOpen: (key: string) => void;
}) {
  const c = epic.children;
  return (
    <div className="flex flex-wrap items-center gap-x-3 gap-y-1.5 px-3 py-2.5">
      <button
        type="button"
        aria-expanded={open}
        aria-label={`${open ? 'Hide' : 'Show'} the children of ${epic.key}`}
        onClick={onToggle}
        className="flex h-6 w-6 shrink-0 items-center justify-center rounded text-muted hover:bg-hover"
      >
        <span aria-hidden="true" className={`inline-block transition-transform ${open ? 'rotate-90' : ''}`}>
          ▸
        </span>
      </button>
      <TypeIcon type="Epic" />
      <button
        type="button"
        onClick={() => onOpen(epic.key)}
        className="flex min-w-0 flex-1 basis-48 items-baseline gap-2 rounded text-left hover:underline"
      >
        <span className="shrink-0 font-mono text-[12px] text-faint">{epic.key}</span>
        <span className={`truncate font-medium ${epic.isDone ? 'text-muted line-through' : ''}`}>
          {epic.title}
        </span>
      </button>
      <span className="rounded bg-surface-2 px-1.5 py-0.5 text-[12px] text-muted">{epic.columnName}</span>
      <div className="flex flex-wrap items-center gap-x-4 gap-y-1">
        <Progress label={`${epic.key} tickets done`} done={c.done} total={c.total} unit="tickets" />
        <Progress label={`${epic.key} points done`} done={c.donePoints} total={c.points} unit="pts" />
      </div>
      <span className="w-32 whitespace-nowrap text-[12px] text-muted tabular-nums">
        {epic.startDate || epic.dueDate
          ? `${shortDate(epic.startDate) || '…'} – ${shortDate(epic.dueDate) || '…'}`
          : 'No dates'}
      </span>
      {epic.assignee ? (
        <Avatar name={epic.assignee.name} src={epic.assignee.avatar} />
      ) : (
        <span className="w-5 text-center text-faint" title="Unassigned">
          –
        </span>
      )}
    </div>
  );
}

function Children({
  project,
  epic,
  onOpen,
}: {
  project: Project;
  epic: EpicOut;
  onOpen: (key: string) => void;
}) {
  const children = useEpicChildren(project.id, epic.id);
  const columns = useColumns(project.id);
  const done = useDoneColumnIds(project.id);
  const columnName = (id: string) => columns.data?.find((c) => c.id === id)?.name ?? '';
  if (children.isError)
    return <ErrorState message={errorText(children.error)} onRetry={() => children.refetch()} />;
  if (!children.data) return <Skeleton className="mx-3 mb-3 h-8" />;
  if (children.data.length === 0)
    return (
      <p className="px-12 pb-3 text-muted">
        No tickets in this epic yet: set {epic.key} as a ticket’s parent.
      </p>
    );
  return (
    <ul aria-label={`Children of ${epic.key}`} className="border-t border-line bg-subtle py-1">
      {children.data.map((t) => (
        <li key={t.id}>
          <button
            type="button"
            onClick={() => onOpen(t.key)}
            className="flex w-full flex-wrap items-center gap-x-3 gap-y-1 py-1.5 pr-3 pl-10 text-left hover:bg-hover sm:pl-12"
          >
            <TypeIcon type={t.type} />
            <span className="shrink-0 font-mono text-[12px] text-faint">{t.key}</span>
            <span className="min-w-0 flex-1 basis-40 truncate">{t.title}</span>
            <span className="text-[12px] text-muted">{columnName(t.columnId)}</span>
            <DueDate dueDate={t.dueDate} done={done.has(t.columnId)} />
            <span className="w-10 text-right text-[12px] text-muted tabular-nums">
              {t.storyPoints != null ? `${num.format(t.storyPoints)} pts` : ''}
            </span>
            {t.assignee ? <Avatar name={t.assignee.name} src={t.assignee.avatar} size={18} /> : null}
          </button>
        </li>
      ))}
    </ul>
  );
}

function NoEpic({ data }: { data: EpicsOut }) {
  const n = data.noEpic;
  if (n.total === 0) return null;
  return (
    <section
      aria-label="No epic"
      className="flex flex-wrap items-center gap-x-4 gap-y-1.5 rounded-lg border border-dashed border-line px-3 py-2.5"
    >
      <span className="flex-1 basis-48 font-medium text-muted">
        No epic · {plural(n.total, 'top-level ticket')}
      </span>
      <Progress label="Tickets of no epic done" done={n.done} total={n.total} unit="tickets" />
      <Progress label="Points of no epic done" done={n.donePoints} total={n.points} unit="pts" />
    </section>
  );
}
