import type { ReactNode, RefObject } from 'react';
import { type Label, type Member, PRIORITIES, TICKET_TYPES, type Ticket } from '../api/types';
import { SearchIcon } from './icons';
import { Input } from './ui';

/** The ticket filters the board and the backlog share ('' is "any"). */
export interface TicketFilterValues {
  text: string;
  type: string;
  priority: string;
  assignee: string; // '' | 'none' | user id
  label: string;
}

export const noTicketFilters: TicketFilterValues = {
  text: '',
  type: '',
  priority: '',
  assignee: '',
  label: '',
};

export const anyTicketFilter = (f: TicketFilterValues) =>
  Boolean(f.text || f.type || f.priority || f.assignee || f.label);

/** Whether a ticket passes the filters; the text matches its key, title or description. */
export function matchesTicketFilters(t: Ticket, f: TicketFilterValues) {
  if (f.assignee === 'none' ? t.assigneeId : f.assignee && t.assigneeId !== f.assignee) return false;
  if (f.type && t.type !== f.type) return false;
  if (f.priority && t.priority !== f.priority) return false;
  if (f.label && !(t.labelIds ?? t.labels?.map((l) => l.id) ?? []).includes(f.label)) return false;
  if (f.text) {
    const q = f.text.toLowerCase();
    if (
      !t.key.toLowerCase().includes(q) &&
      !t.title.toLowerCase().includes(q) &&
      !(t.description ?? '').toLowerCase().includes(q)
    )
      return false;
  }
  return true;
}

/** The look of a toolbar's small select. */
export const smallSelect =
  'h-7 max-w-[11rem] shrink-0 rounded-md border border-line bg-surface px-1.5 text-[12px] text-fg focus:border-accent focus:outline-none';

/**
 * The filter controls: text search (Escape clears it), then `between` (the board's sprint picker),
 * assignee, type, priority and label.
 */
export function TicketFilterFields<F extends TicketFilterValues>({
  filters,
  setFilters,
  members,
  labels,
  searchRef,
  searchExtra,
  searchTestId,
  between,
}: {
  filters: F;
  setFilters: (f: F) => void;
  members: Member[];
  labels: Label[];
  searchRef: RefObject<HTMLInputElement | null>;
  /** Shown inside the search box, at its right (a shortcut hint). */
  searchExtra?: ReactNode;
  searchTestId?: string;
  between?: ReactNode;
}) {
  const set = (k: keyof TicketFilterValues) => (e: { target: { value: string } }) =>
    setFilters({ ...filters, [k]: e.target.value });
  return (
    <>
      <div className="relative flex shrink-0 items-center">
        <span className="absolute left-2">
          <SearchIcon />
        </span>
        <Input
          ref={searchRef}
          value={filters.text}
          onChange={set('text')}
          onKeyDown={(e) => {
            if (e.key === 'Escape' && filters.text) {
              e.preventDefault();
              setFilters({ ...filters, text: '' });
            }
          }}
          placeholder="Search…"
          aria-label="Search tickets"
          className="h-7 w-40 shrink-0 pl-7 text-[12px] sm:w-44"
          data-testid={searchTestId}
        />
        {searchExtra}
      </div>
      {between}
      <select
        aria-label="Assignee"
        className={smallSelect}
        value={filters.assignee}
        onChange={set('assignee')}
      >
        <option value="">Any assignee</option>
        <option value="none">Unassigned</option>
        {members.map((m) => (
          <option key={m.userId} value={m.userId}>
            {m.user.name ?? m.user.username}
          </option>
        ))}
      </select>
      <select aria-label="Type" className={smallSelect} value={filters.type} onChange={set('type')}>
        <option value="">Any type</option>
        {TICKET_TYPES.map((t) => (
          <option key={t}>{t}</option>
        ))}
      </select>
      <select
        aria-label="Priority"
        className={smallSelect}
        value={filters.priority}
        onChange={set('priority')}
      >
        <option value="">Any priority</option>
        {PRIORITIES.map((p) => (
          <option key={p}>{p}</option>
        ))}
      </select>
      <select aria-label="Label" className={smallSelect} value={filters.label} onChange={set('label')}>
        <option value="">Any label</option>
        {labels.map((l) => (
          <option key={l.id} value={l.id}>
            {l.name}
          </option>
        ))}
      </select>
    </>
  );
}
