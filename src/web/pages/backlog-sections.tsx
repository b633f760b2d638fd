/** The backlog's sections: a sprint or the backlog, with its sortable rows. */
import { useDraggable, useDroppable } from '@dnd-kit/core';
import { memo, useEffect, useRef } from 'react';
import type { Label, Member, Project, SprintFull, Ticket } from '../api/types';
import { DueDate } from '../components/DueDate';
import { PlusIcon, PriorityIcon, TypeIcon } from '../components/icons';
import { MenuItem, Popover } from '../components/Popover';
import { Avatar, Button, LabelChip } from '../components/ui';
import { shortDate, sumPoints } from '../lib/dates';
import { BudgetMeter } from './backlog-bars';
import { SECTION } from './backlog-drag';

export interface RowContext {
  project: Project;
  colName: Map<string, string>;
  /** The done columns (sprint settings, else the last): their tickets are never overdue. */
  doneIds: Set<string>;
  labelsById: Map<string, Label>;
  membersById: Map<string, Member['user']>;
  open: SprintFull[];
  selected: Set<string>;
  toggle: (ids: string[], on: boolean) => void;
  moveTo: (list: Ticket[], target: string | null) => void;
  openTicket: (t: Ticket) => void;
}

export function PlanSection({
  id,
  title,
  sprint,
  tickets,
  shown,
  ctx,
  collapsed,
  setCollapsed,
  newTicket,
  anyFilter,
  headerActions,
}: {
  id: string;
  title: string;
  sprint?: SprintFull;
  tickets: Ticket[];
  shown: Ticket[];
  ctx: RowContext;
  collapsed: Set<string>;
  setCollapsed: (fn: (s: Set<string>) => Set<string>) => void;
  newTicket: (sprintId: string | null) => void;
  anyFilter: boolean;
  headerActions?: React.ReactNode;
}) {
  const { setNodeRef, isOver } = useDroppable({ id: `${SECTION}${id}` });
  const isCollapsed = collapsed.has(id);
  const shownIds = shown.map((t) => t.id);
  const selectedHere = shownIds.filter((x) => ctx.selected.has(x)).length;
  const allBox = useRef<HTMLInputElement>(null);
  useEffect(() => {
    if (allBox.current) allBox.current.indeterminate = selectedHere > 0 && selectedHere < shownIds.length;
  }, [selectedHere, shownIds.length]);
  const points = sumPoints(tickets);
  return (
    <section
      ref={setNodeRef}
      aria-label={title}
      data-testid="plan-section"
      data-section={id}
      className={`rounded-lg border bg-subtle ${isOver ? 'border-accent ring-1 ring-accent' : 'border-line'}`}
    >
      <div className="flex flex-wrap items-center gap-x-3 gap-y-1 px-3 py-2">
        <input
          ref={allBox}
          type="checkbox"
          className="ml-5"
          aria-label={`Select all shown in ${title}`}
          disabled={shownIds.length === 0}
          checked={shownIds.length > 0 && selectedHere === shownIds.length}
          onChange={(e) => ctx.toggle(shownIds, e.target.checked)}
        />
        <button
          type="button"
          aria-expanded={!isCollapsed}
          aria-label={`${isCollapsed ? 'Expand' : 'Collapse'} ${title}`}
          className="rounded px-0.5 text-faint hover:bg-hover hover:text-fg"
          onClick={() =>
            setCollapsed((s) => {
              const next = new Set(s);
              if (next.has(id)) next.delete(id);
              else next.add(id);
              return next;
            })
          }
        >
          <span
            aria-hidden="true"
            className={`inline-block transition-transform ${isCollapsed ? '-rotate-90' : ''}`}
          >
            ▾
          </span>
        </button>
        <h2 className="text-[14px] font-semibold text-fg">{title}</h2>
        {sprint && (
          <span
            className={`rounded-full px-2 py-0.5 text-[11px] font-medium ${
              sprint.status === 'active' ? 'bg-accent-soft text-accent' : 'bg-surface-2 text-muted'
            }`}
          >
            {sprint.status === 'active' ? 'Active' : 'Planning'}
          </span>
        )}
        {sprint && (
          <span className="text-[12px] text-muted" data-testid="sprint-dates">
            {sprint.startDate || sprint.endDate
              ? `${shortDate(sprint.startDate) || '…'} – ${shortDate(sprint.endDate) || '…'}`
              : 'No dates'}
          </span>
        )}
        <span className="text-[12px] text-muted" data-testid="section-count">
          {anyFilter && shown.length !== tickets.length
            ? `${shown.length} of ${tickets.length} tickets`
            : `${tickets.length} ticket${tickets.length === 1 ? '' : 's'}`}
        </span>
        <BudgetMeter points={points} budget={sprint ? sprint.budget : null} />
        <span className="flex-1" />
        <Button
          size="sm"
          variant="ghost"
          aria-label={`New ticket in ${title}`}
          title="New ticket"
          onClick={() => newTicket(sprint?.id ?? null)}
        >
          <PlusIcon /> <span className="hidden md:inline">Ticket</span>
        </Button>
        {headerActions}
      </div>
      {sprint?.goal && (
        <p className="-mt-1 px-3 pb-2 pl-[4.35rem] text-[12px] text-muted" data-testid="sprint-goal">
          {sprint.goal}
        </p>
      )}
      {!isCollapsed && (
        <ul
          className="flex min-h-12 flex-col gap-px rounded-b-[7px] border-t border-line bg-line"
          aria-label={`Tickets in ${title}`}
        >
          {shown.map((t) => (
            <BacklogRow key={t.id} ticket={t} ctx={ctx} selected={ctx.selected.has(t.id)} />
          ))}
          {shown.length === 0 && (
            <li className="flex h-12 items-center justify-center rounded-b-[7px] bg-surface text-[12px] text-faint">
              {tickets.length > 0
                ? 'No tickets match these filters.'
                : sprint
                  ? 'Drag tickets here, or move them with a ticket’s menu.'
                  : 'The backlog is empty.'}
            </li>
          )}
        </ul>
      )}
    </section>
  );
}

export const BacklogRow = memo(function BacklogRow({
  ticket,
  ctx,
  selected,
}: {
  ticket: Ticket;
  ctx: RowContext;
  selected: boolean;
}) {
  const { setNodeRef, setActivatorNodeRef, attributes, listeners, isDragging } = useDraggable({
    id: ticket.id,
  });
  // The whole row drags with a mouse or finger; the keyboard picks it up by its handle.
  const { onKeyDown: keyDown, ...pointerListeners } = listeners ?? {};
  const labels = (ticket.labelIds ?? ticket.labels?.map((l) => l.id) ?? [])
    .map((id) => ctx.labelsById.get(id))
    .filter((l): l is Label => !!l);
  const shownLabels = labels.slice(0, 2);
  const assignee = ticket.assigneeId ? ctx.membersById.get(ticket.assigneeId) : undefined;
  const assigneeName = assignee ? (assignee.name ?? assignee.username) : ticket.assignee?.name;
  const carried = ticket.isCarriedOver && (ticket.carriedOverCount ?? 0) > 0;
  const stop = {
    onMouseDown: (e: React.MouseEvent) => e.stopPropagation(),
    onTouchStart: (e: React.TouchEvent) => e.stopPropagation(),
  };
  return (
    <li
      ref={setNodeRef}
      {...pointerListeners}
      data-testid="backlog-row"
      data-key={ticket.key}
      className={`flex min-h-10 cursor-grab flex-wrap items-center gap-x-2 gap-y-0.5 px-3 py-1.5 text-[13px] last:rounded-b-[7px] sm:flex-nowrap ${
        selected ? 'bg-accent-soft' : 'bg-surface hover:bg-hover'
      } ${isDragging ? 'opacity-40' : ''}`}
    >
      <button
        ref={setActivatorNodeRef}
        {...attributes}
        type="button"
        onKeyDown={keyDown as React.KeyboardEventHandler<HTMLButtonElement> | undefined}
        aria-label={`Move ${ticket.key}`}
        title="Drag to a sprint or the backlog (Space, then the arrow keys)"
        className="-ml-1 flex h-6 w-4 shrink-0 cursor-grab items-center justify-center rounded text-faint hover:bg-hover hover:text-fg"
      >
        <span aria-hidden="true">⠿</span>
      </button>
      <span className="flex items-center" {...stop}>
        <input
          type="checkbox"
          aria-label={`Select ${ticket.key}`}
          checked={selected}
          onChange={(e) => ctx.toggle([ticket.id], e.target.checked)}
        />
      </span>
      <TypeIcon type={ticket.type} />
      <span className="min-w-[5.5rem] flex-1 whitespace-nowrap font-mono text-[12px] text-faint sm:flex-none sm:shrink-0">
        {ticket.key}
      </span>
      {/* On a phone the title takes a line of its own under the key, not the few pixels left beside it. */}
      <span className="order-last min-w-0 basis-full truncate pl-11 sm:order-none sm:basis-0 sm:flex-1 sm:pl-0">
        <button
          type="button"
          className="max-w-full truncate text-left text-fg hover:underline"
          onClick={() => ctx.openTicket(ticket)}
          aria-label={`Open ${ticket.key} ${ticket.title}`}
        >
          {ticket.title}
        </button>
      </span>
      {carried && (
        <span
          data-testid="carried-over"
          title={`Carried over ${ticket.carriedOverCount} time${ticket.carriedOverCount === 1 ? '' : 's'}`}
          className="shrink-0 rounded bg-surface-2 px-1 text-[11px] text-warn"
        >
          <span aria-hidden="true">↻{ticket.carriedOverCount}</span>
          <span className="sr-only">
            Carried over {ticket.carriedOverCount} time{ticket.carriedOverCount === 1 ? '' : 's'}
          </span>
        </span>
      )}
      <span className="hidden shrink-0 items-center gap-1 md:flex">
        {shownLabels.map((l) => (
          <LabelChip key={l.id} name={l.name} color={l.color} />
        ))}
        {labels.length > shownLabels.length && (
          <span className="text-[11px] text-faint">+{labels.length - shownLabels.length}</span>
        )}
      </span>
      <span
        className="hidden w-24 shrink-0 truncate rounded bg-surface-2 px-1.5 py-0.5 text-center text-[11px] text-muted sm:inline"
        data-testid="row-column"
      >
        {ctx.colName.get(ticket.columnId) ?? ''}
      </span>
      <DueDate dueDate={ticket.dueDate} done={ctx.doneIds.has(ticket.columnId)} />
      <PriorityIcon priority={ticket.priority} />
      <span
        className="inline-flex h-5 w-7 shrink-0 items-center justify-center rounded-full bg-surface-2 text-[11px] text-muted"
        title={ticket.storyPoints != null ? `${ticket.storyPoints} story points` : 'No estimate'}
        data-testid="row-points"
      >
        {ticket.storyPoints ?? '–'}
      </span>
      <span className="flex w-5 shrink-0 justify-center">
        {ticket.assigneeId && <Avatar name={assigneeName ?? 'Assignee'} src={assignee?.avatar} size={20} />}
      </span>
      <span {...stop}>
        <RowMenu ticket={ticket} ctx={ctx} />
      </span>
    </li>
  );
});

/** A row's menu: open the ticket, or move it to the backlog or another open sprint. */
function RowMenu({ ticket, ctx }: { ticket: Ticket; ctx: RowContext }) {
  return (
    <Popover
      label={`Actions for ${ticket.key}`}
      align="right"
      panelClass="w-56"
      className="inline-flex h-6 w-6 items-center justify-center rounded text-muted hover:bg-hover hover:text-fg"
      button={<span aria-hidden="true">⋯</span>}
    >
      {(close) => (
        <div role="menu">
          <MenuItem
            onSelect={() => {
              close();
              ctx.openTicket(ticket);
            }}
          >
            Open ticket
          </MenuItem>
          <div className="my-1 border-t border-line" />
          {ticket.sprintId && (
            <MenuItem
              onSelect={() => {
                close();
                ctx.moveTo([ticket], null);
              }}
            >
              Move to backlog
            </MenuItem>
          )}
          {ctx.open
            .filter((s) => s.id !== ticket.sprintId)
            .map((s) => (
              <MenuItem
                key={s.id}
                onSelect={() => {
                  close();
                  ctx.moveTo([ticket], s.id);
                }}
              >
                Move to {s.name}
              </MenuItem>
            ))}
        </div>
      )}
    </Popover>
  );
}
