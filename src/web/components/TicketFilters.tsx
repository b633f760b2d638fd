import { useQuery } from '@tanstack/react-query';
import { type ReactNode, type RefObject, useEffect } from 'react';
import { enc, errorText, listAll } from '../api/client';
import { projectPath } from '../api/projects';
import { useViews } from '../api/search';
import { type Label, type Member, PRIORITIES, TICKET_TYPES, type Ticket } from '../api/types';
import { SearchIcon } from './icons';
import { Input } from './ui';

/** The ticket filters the board and the backlog share ('' is "any"). */
export interface TicketFilterValues {
  text: string;
  type: string;
  priority: string;
  assignee: string; // '' | 'none' | 'me' | user id
  label: string;
  /** A saved view ('' for none), and the tickets of this project its query finds (null: not loaded). */
  view: string;
  viewTicketIds: ReadonlySet<string> | null;
}

export const noTicketFilters: TicketFilterValues = {
  text: '',
  type: '',
  priority: '',
  assignee: '',
  label: '',
  view: '',
  viewTicketIds: null,
};

export const anyTicketFilter = (f: TicketFilterValues) =>
  Boolean(f.text || f.type || f.priority || f.assignee || f.label || f.view);

/**
 * Whether a ticket passes the filters; the text matches its key, title or description, and the
 * assignee `me` is the signed-in user (`me`).
 */
export function matchesTicketFilters(t: Ticket, f: TicketFilterValues, me?: string) {
  const assignee = f.assignee === 'me' ? (me ?? '') : f.assignee;
  if (assignee === 'none' ? t.assigneeId : assignee && t.assigneeId !== assignee) return false;
  if (f.type && t.type !== f.type) return false;
  if (f.priority && t.priority !== f.priority) return false;
  if (f.label && !(t.labelIds ?? t.labels?.map((l) => l.id) ?? []).includes(f.label)) return false;
  if (f.view && f.viewTicketIds && !f.viewTicketIds.has(t.id)) return false;
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

/**
 * A saved view as a filter: its query runs on the server within the project (`query=` on the ticket
 * list, the grammar of docs/search.md) and the board or backlog shows the tickets it finds. It is
 * read again every 10 seconds and when the window regains focus, so new matches appear.
 */
function ViewFilter<F extends TicketFilterValues>({
  projectId,
  filters,
  setFilters,
}: {
  projectId: string;
  filters: F;
  setFilters: (f: F) => void;
}) {
  const views = useViews();
  const usable = (views.data ?? []).filter((v) => v.projectId === null || v.projectId === projectId);
  const view = usable.find((v) => v.id === filters.view);
  const found = useQuery({
    queryKey: ['view-tickets', projectId, view?.query ?? ''],
    queryFn: async ({ signal }) =>
      (await listAll<Ticket>(projectPath(projectId, `/tickets?query=${enc(view?.query ?? '')}`), signal)).map(
        (t) => t.id,
      ),
    enabled: !!view,
    refetchInterval: 10_000,
    retry: false,
  });
  const ids = found.data;
  // biome-ignore lint/correctness/useExhaustiveDependencies: only a new answer (or an error) sets the ids
  useEffect(() => {
    if (!filters.view) return;
    const next = found.isError ? new Set<string>() : ids ? new Set(ids) : null;
    if (next) setFilters({ ...filters, viewTicketIds: next });
  }, [ids, found.isError, filters.view]);
  if (usable.length === 0) return null;
  return (
    <select
      aria-label="View"
      title={found.isError ? errorText(found.error) : view?.query}
      className={`${smallSelect} ${found.isError ? 'border-danger' : ''}`}
      value={filters.view}
      onChange={(e) => setFilters({ ...filters, view: e.target.value, viewTicketIds: null })}
    >
      <option value="">Any view</option>
      {usable.map((v) => (
        <option key={v.id} value={v.id}>
          {v.name}
        </option>
      ))}
    </select>
  );
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
        <option value="me">Me</option>
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
      {members[0] && (
        <ViewFilter projectId={members[0].projectId} filters={filters} setFilters={setFilters} />
      )}
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
