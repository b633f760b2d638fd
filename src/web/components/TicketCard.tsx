import { memo } from 'react';
import type { Label, Ticket } from '../api/types';
import { DueDate } from './DueDate';
import { PriorityIcon, TypeIcon } from './icons';
import { Avatar, LabelChip } from './ui';

/** A board card: key, title, type, priority, labels, story points and the assignee. */
export const TicketCardBody = memo(function TicketCardBody({
  ticket,
  labels,
  assigneeName,
  assigneeAvatar,
  done = false,
}: {
  ticket: Ticket;
  labels: Label[];
  assigneeName?: string | null;
  assigneeAvatar?: string | null;
  /** In a done column: a passed due date is not overdue then. */
  done?: boolean;
}) {
  const shown = labels.slice(0, 2);
  return (
    <>
      <div className="flex items-center gap-1.5 text-[11px] text-faint">
        <span className="font-mono" data-testid="card-key">
          {ticket.key}
        </span>
        {ticket.isCarriedOver && (ticket.carriedOverCount ?? 0) > 0 && (
          <span
            title={`Carried over ${ticket.carriedOverCount} time${ticket.carriedOverCount === 1 ? '' : 's'}`}
            className="rounded bg-surface-2 px-1 text-warn"
            data-testid="card-carried-over"
          >
            <span aria-hidden="true">↻{ticket.carriedOverCount}</span>
            <span className="sr-only">
              Carried over {ticket.carriedOverCount} time{ticket.carriedOverCount === 1 ? '' : 's'}
            </span>
          </span>
        )}
      </div>
      <div className="mt-0.5 line-clamp-2 text-[13px] leading-snug text-fg" data-testid="card-title">
        {ticket.title}
      </div>
      <div className="mt-2 flex items-center gap-1.5">
        <TypeIcon type={ticket.type} />
        <PriorityIcon priority={ticket.priority} />
        <span className="flex min-w-0 flex-1 items-center gap-1 overflow-hidden">
          {shown.map((l) => (
            <LabelChip key={l.id} name={l.name} color={l.color} />
          ))}
          {labels.length > shown.length && (
            <span className="shrink-0 text-[11px] text-faint">+{labels.length - shown.length}</span>
          )}
        </span>
        <DueDate dueDate={ticket.dueDate} done={done} />
        {ticket.storyPoints != null && (
          <span
            title={`${ticket.storyPoints} story points`}
            className="inline-flex h-5 min-w-5 shrink-0 items-center justify-center rounded-full bg-surface-2 px-1.5 text-[11px] text-muted"
          >
            {ticket.storyPoints}
          </span>
        )}
        {ticket.assigneeId && <Avatar name={assigneeName ?? 'Assignee'} src={assigneeAvatar} size={20} />}
      </div>
    </>
  );
});
