import { type ReactNode, type RefObject, useEffect } from 'react';
import { errorText } from '../api/client';
import { useViews } from '../api/search';
import { useTicketIdsMatching } from '../api/tickets';
import { type Label, type Member, PRIORITIES, TICKET_TYPES, type Ticket } from '../api/types';
import { PriorityIcon, SearchIcon, TypeIcon } from './icons';
import { MultiPicker } from './MultiPicker';
import { Avatar, ColorDot, Input } from './ui';

/**
 * The ticket filters the board and the backlog share ('' or [] is "any"). A list matches any of its
 * values; the filters together must all match (docs/decisions/049-swimlanes-and-filters.md).
 */
export interface TicketFilterValues {
  text: string;
  type: string[];
  priority: string[];
  /** 'none' (unassigned), 'me' (whoever looks) or user ids. */
  assignee: string[];
  /** Label names (a label id from an older link matches too). */
  label: string[];
  /** A saved view ('' for none), and the tickets of this project its query finds (null: not loaded). */
  view: string;
  viewTicketIds: ReadonlySet<string> | null;
}

export const noTicketFilters: TicketFilterValues = {
  text: '',
  type: [],
  priority: [],
  assignee: [],
  label: [],
  view: '',
  viewTicketIds: null,
};

export const anyTicketFilter = (f: TicketFilterValues) =>
  Boolean(f.text || f.type.length || f.priority.length || f.assignee.length || f.label.length || f.view);

/** Whether a ticket's assignee is one of `values` ('none', 'me' = the signed-in user `me`, user ids). */
export function assigneeMatches(t: Ticket, values: string[], me?: string) {
  return values.some((v) =>
    v === 'none' ? !t.assigneeId : v === 'me' ? !!me && t.assigneeId === me : t.assigneeId === v,
  );
}

/** Whether a ticket has one of the labels (by name in any case, or by id). */
function labelMatches(t: Ticket, values: string[], labelsById?: Map<string, Label>) {
  const wanted = new Set(values.map((v) => v.toLowerCase()));
  const ids = t.labelIds ?? t.labels?.map((l) => l.id) ?? [];
  return ids.some((id) => {
    const name = labelsById?.get(id)?.name ?? t.labels?.find((l) => l.id === id)?.name;
    return wanted.has(id.toLowerCase()) || (name !== undefined && wanted.has(name.toLowerCase()));
  });
}

/**
 * Whether a ticket passes the filters; the text matches its key, title or description, and the
 * assignee `me` is the signed-in user (`me`).
 */
export function matchesTicketFilters(
  t: Ticket,
  f: TicketFilterValues,
  me?: string,
  labelsById?: Map<string, Label>,
) {
  if (f.assignee.length && !assigneeMatches(t, f.assignee, me)) return false;
  if (f.type.length && !f.type.includes(t.type)) return false;
  if (f.priority.length && !f.priority.includes(t.priority)) return false;
  if (f.label.length && !labelMatches(t, f.label, labelsById)) return false;
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
  const found = useTicketIdsMatching(projectId, view?.query ?? '', !!view);
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
  return (
    <>
      <div className="relative flex shrink-0 items-center">
        <span className="absolute left-2">
          <SearchIcon />
        </span>
        <Input
          ref={searchRef}
          value={filters.text}
          onChange={(e) => setFilters({ ...filters, text: e.target.value })}
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
      <MultiPicker
        label="Assignee"
        anyText="Any assignee"
        value={filters.assignee}
        onChange={(assignee) => setFilters({ ...filters, assignee })}
        options={[
          { value: 'me', label: 'Me' },
          { value: 'none', label: 'Unassigned' },
          ...members.map((m) => ({
            value: m.userId,
            label: m.user.name ?? m.user.username,
            icon: <Avatar name={m.user.name ?? m.user.username} src={m.user.avatar} size={16} />,
          })),
        ]}
      />
      <MultiPicker
        label="Type"
        anyText="Any type"
        value={filters.type}
        onChange={(type) => setFilters({ ...filters, type })}
        options={TICKET_TYPES.map((t) => ({ value: t, label: t, icon: <TypeIcon type={t} /> }))}
      />
      <MultiPicker
        label="Priority"
        anyText="Any priority"
        value={filters.priority}
        onChange={(priority) => setFilters({ ...filters, priority })}
        options={[...PRIORITIES]
          .reverse()
          .map((p) => ({ value: p, label: p, icon: <PriorityIcon priority={p} /> }))}
      />
      {members[0] && (
        <ViewFilter projectId={members[0].projectId} filters={filters} setFilters={setFilters} />
      )}
      <MultiPicker
        label="Label"
        anyText="Any label"
        value={filters.label}
        onChange={(label) => setFilters({ ...filters, label })}
        options={labels.map((l) => ({ value: l.name, label: l.name, icon: <ColorDot color={l.color} /> }))}
      />
    </>
  );
}
