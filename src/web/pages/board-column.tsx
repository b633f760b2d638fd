/** A board column: its virtualised sortable cards and quick create. */
import { useDroppable } from '@dnd-kit/core';
import { SortableContext, useSortable, verticalListSortingStrategy } from '@dnd-kit/sortable';
import { CSS } from '@dnd-kit/utilities';
import { defaultRangeExtractor, useVirtualizer } from '@tanstack/react-virtual';
import { type KeyboardEvent, memo, useCallback, useRef, useState } from 'react';
import { useLocation } from 'wouter';
import { errorText } from '../api/client';
import { useCreateTicket } from '../api/tickets';
import type { Column, Label, Project, Ticket } from '../api/types';
import { PlusIcon } from '../components/icons';
import { TicketCardBody } from '../components/TicketCard';
import { useToast } from '../components/toast';
import { Input } from '../components/ui';
import type { MemberUser } from './board';
import { COL_PREFIX } from './board-drive';

export function ticketLabels(t: Ticket, labelsById: Map<string, Label>): Label[] {
  if (t.labelIds)
    return t.labelIds
      .map((id) => labelsById.get(id) ?? t.labels?.find((l) => l.id === id))
      .filter((l): l is Label => !!l);
  return t.labels ?? [];
}
export function assigneeOf(t: Ticket, membersById: Map<string, MemberUser>) {
  if (!t.assigneeId) return null;
  const m = membersById.get(t.assigneeId);
  if (m) return { name: m.name ?? m.username, avatar: m.avatar };
  return t.assignee ? { name: t.assignee.name, avatar: t.assignee.avatar } : null;
}

export const CARD_ESTIMATE = 84;
export const GAP = 6;

export const BoardColumn = memo(function BoardColumn({
  project,
  column,
  cellId = column.id,
  laneName,
  ids,
  byId,
  labelsById,
  membersById,
  activeId,
  quickDefaults,
  done,
  selected,
  onToggleSelected,
}: {
  project: Project;
  column: Column;
  /** The drop container: the column, or with swimlanes the lane's part of it. */
  cellId?: string;
  /** With swimlanes, the lane's name (for screen readers). */
  laneName?: string;
  ids: string[];
  byId: Map<string, Ticket>;
  labelsById: Map<string, Label>;
  membersById: Map<string, MemberUser>;
  activeId: string | null;
  quickDefaults: { sprintId?: string | null; assigneeId?: string };
  /** The done column (the last one): its due dates are not overdue. */
  done: boolean;
  selected: Set<string>;
  onToggleSelected: (id: string) => void;
}) {
  const { setNodeRef, isOver } = useDroppable({ id: `${COL_PREFIX}${cellId}` });
  const scrollRef = useRef<HTMLDivElement>(null);
  const activeIndex = activeId ? ids.indexOf(activeId) : -1;
  const virtualizer = useVirtualizer({
    count: ids.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => CARD_ESTIMATE + GAP,
    overscan: 8,
    getItemKey: (i) => ids[i],
    // The card being dragged stays mounted even when scrolled away.
    rangeExtractor: useCallback(
      (range: Parameters<typeof defaultRangeExtractor>[0]) => {
        const out = defaultRangeExtractor(range);
        if (activeIndex >= 0 && !out.includes(activeIndex)) out.push(activeIndex);
        return out.sort((a, b) => a - b);
      },
      [activeIndex],
    ),
  });
  const [quick, setQuick] = useState(false);

  return (
    <section
      ref={setNodeRef}
      aria-label={laneName ? `${column.name} column, ${laneName}` : `${column.name} column`}
      data-testid="column"
      data-column-name={column.name}
      data-column-id={column.id}
      data-cell-id={cellId}
      className={`flex ${laneName ? 'max-h-[60vh] pt-2' : 'max-h-full'} w-[min(272px,calc(100vw-56px))] shrink-0 snap-start flex-col rounded-lg border ${isOver ? 'border-accent' : 'border-transparent'} bg-subtle`}
    >
      {/* In a lane the column's name and count are in the board's header row. */}
      <div className={`${laneName ? 'hidden' : 'flex'} h-9 shrink-0 items-center gap-2 px-2.5`}>
        <h2 className="min-w-0 flex-1 truncate text-[12px] font-semibold text-fg">{column.name}</h2>
        <span className="text-[12px] text-faint" data-testid="column-count">
          {ids.length}
        </span>
        <button
          type="button"
          aria-label={`Add a ticket to ${column.name}`}
          title="Quick create"
          onClick={() => setQuick((q) => !q)}
          className="rounded p-0.5 text-faint hover:bg-hover hover:text-fg"
        >
          <PlusIcon />
        </button>
      </div>
      {quick && (
        <QuickCreate
          project={project}
          column={column}
          defaults={quickDefaults}
          onClose={() => setQuick(false)}
        />
      )}
      <div ref={scrollRef} className="min-h-16 flex-1 overflow-y-auto px-2 pb-2" data-testid="column-scroll">
        <div className="relative" style={{ height: Math.max(virtualizer.getTotalSize(), 48) }}>
          <SortableContext items={ids} strategy={verticalListSortingStrategy}>
            {virtualizer.getVirtualItems().map((v) => {
              const t = byId.get(ids[v.index]);
              if (!t) return null;
              return (
                <div
                  key={v.key}
                  data-index={v.index}
                  ref={virtualizer.measureElement}
                  className="absolute inset-x-0"
                  style={{ top: v.start, paddingBottom: GAP }}
                >
                  <SortableCard
                    project={project}
                    ticket={t}
                    labels={ticketLabels(t, labelsById)}
                    assignee={assigneeOf(t, membersById)}
                    done={done}
                    selected={selected.has(t.id)}
                    onToggleSelected={onToggleSelected}
                  />
                </div>
              );
            })}
          </SortableContext>
          {ids.length === 0 && (
            <div className="flex h-12 items-center justify-center rounded-md border border-dashed border-line text-[12px] text-faint">
              No tickets
            </div>
          )}
        </div>
      </div>
    </section>
  );
});

export const SortableCard = memo(function SortableCard({
  project,
  ticket,
  labels,
  assignee,
  done,
  selected,
  onToggleSelected,
}: {
  project: Project;
  ticket: Ticket;
  labels: Label[];
  assignee: { name: string; avatar: string | null } | null;
  done: boolean;
  selected: boolean;
  onToggleSelected: (id: string) => void;
}) {
  const [, navigate] = useLocation();
  const { attributes, listeners, setNodeRef, transform, transition, isDragging } = useSortable({
    id: ticket.id,
  });
  const open = () => navigate(`/projects/${project.key}/${ticket.key}`);
  const onKeyDown = (e: KeyboardEvent<HTMLDivElement>) => {
    listeners?.onKeyDown?.(e);
    if (!e.defaultPrevented && e.key === 'Enter') open();
  };
  return (
    // biome-ignore lint/a11y/useSemanticElements: a card holds block content; dnd-kit gives it the button role, focus and keys
    <div
      ref={setNodeRef}
      {...attributes}
      {...listeners}
      role="button"
      tabIndex={0}
      onKeyDown={onKeyDown}
      onClick={(e) => (e.shiftKey || e.ctrlKey || e.metaKey ? onToggleSelected(ticket.id) : open())}
      aria-roledescription="ticket card"
      aria-label={`${ticket.key} ${ticket.title}${selected ? ', selected' : ''}`}
      data-selected={selected ? 'true' : undefined}
      data-testid="card"
      data-key={ticket.key}
      data-id={ticket.id}
      style={{ transform: CSS.Translate.toString(transform), transition }}
      className={`cursor-pointer touch-manipulation rounded-md border p-2.5 ${
        selected ? 'border-accent bg-accent-soft' : 'border-line bg-surface hover:border-line-strong'
      } ${isDragging ? 'opacity-40' : ''}`}
    >
      <TicketCardBody
        ticket={ticket}
        labels={labels}
        assigneeName={assignee?.name}
        assigneeAvatar={assignee?.avatar}
        done={done}
      />
    </div>
  );
});

export function QuickCreate({
  project,
  column,
  defaults,
  onClose,
}: {
  project: Project;
  column: Column;
  defaults: { sprintId?: string | null; assigneeId?: string };
  onClose: () => void;
}) {
  const create = useCreateTicket(project.id);
  const toast = useToast();
  const [title, setTitle] = useState('');
  const submit = () => {
    const t = title.trim();
    if (!t) return;
    setTitle('');
    create.mutate(
      { title: t, columnId: column.id, ...defaults },
      {
        onError: (err) => {
          setTitle(t);
          toast.error(`Could not create the ticket: ${errorText(err)}`);
        },
      },
    );
  };
  return (
    <div className="px-2 pb-2">
      <Input
        autoFocus
        aria-label={`New ticket title in ${column.name}`}
        placeholder="Title, then Enter"
        value={title}
        maxLength={255}
        onChange={(e) => setTitle(e.target.value)}
        onKeyDown={(e) => {
          if (e.key === 'Enter') {
            e.preventDefault();
            submit();
          } else if (e.key === 'Escape') {
            e.preventDefault();
            e.stopPropagation();
            onClose();
          }
        }}
        onBlur={() => !title.trim() && onClose()}
      />
    </div>
  );
}
