import type { Label, Member, SprintFull } from '../api/types';
import { MenuItem, Popover } from '../components/Popover';
import {
  anyTicketFilter,
  noTicketFilters,
  smallSelect,
  TicketFilterFields,
  type TicketFilterValues,
} from '../components/TicketFilters';
import { Button } from '../components/ui';
import { SORTS, type SortKey } from './Backlog';

export function Toolbar({
  filters,
  setFilters,
  sort,
  setSort,
  members,
  labels,
  searchRef,
}: {
  filters: TicketFilterValues;
  setFilters: (f: TicketFilterValues) => void;
  sort: { key: SortKey; desc: boolean };
  setSort: (s: { key: SortKey; desc: boolean }) => void;
  members: Member[];
  labels: Label[];
  searchRef: React.RefObject<HTMLInputElement | null>;
}) {
  const any = anyTicketFilter(filters);
  return (
    // On a phone the filters scroll sideways in their own line and the sort menu wraps below them,
    // instead of the whole bar scrolling with the sort menu drawn over the filters.
    <div className="sticky top-0 z-20 flex min-w-0 flex-wrap items-center gap-2 border-b border-line bg-bg px-3 py-2 sm:px-4">
      <fieldset className="-m-0.5 flex min-w-0 max-w-full items-center gap-2 overflow-x-auto p-0.5 sm:flex-wrap sm:overflow-visible">
        <legend className="sr-only">Filters</legend>
        <TicketFilterFields
          filters={filters}
          setFilters={setFilters}
          members={members}
          labels={labels}
          searchRef={searchRef}
        />
        {any && (
          <Button size="sm" variant="ghost" onClick={() => setFilters(noTicketFilters)}>
            Clear filters
          </Button>
        )}
      </fieldset>
      <span className="flex-1" />
      <div className="flex shrink-0 items-center gap-1">
        <select
          aria-label="Sort by"
          className={smallSelect}
          value={sort.key}
          onChange={(e) => {
            const next = SORTS.find((s) => s.key === e.target.value)!;
            setSort({ key: next.key, desc: next.desc });
          }}
        >
          {SORTS.map((s) => (
            <option key={s.key} value={s.key}>
              Sort: {s.label}
            </option>
          ))}
        </select>
        <Button
          size="sm"
          variant="ghost"
          aria-label={
            sort.desc ? 'Sort descending (change to ascending)' : 'Sort ascending (change to descending)'
          }
          title={sort.desc ? 'Descending' : 'Ascending'}
          onClick={() => setSort({ ...sort, desc: !sort.desc })}
        >
          <span aria-hidden="true">{sort.desc ? '↓' : '↑'}</span>
        </Button>
      </div>
    </div>
  );
}

export { SelectionBar } from '../components/sprint/SelectionBar';

export function SprintActionsBar({
  sprint,
  otherActive,
  open,
}: {
  sprint: SprintFull;
  otherActive: boolean;
  open: (kind: 'edit' | 'start' | 'complete' | 'extend' | 'delete') => void;
}) {
  return (
    <div className="flex items-center gap-1">
      {sprint.status === 'active' ? (
        <>
          <Button
            size="sm"
            variant="primary"
            aria-label={`Complete ${sprint.name}`}
            onClick={() => open('complete')}
          >
            Complete
          </Button>
          <Button size="sm" aria-label={`Extend ${sprint.name}`} onClick={() => open('extend')}>
            Extend
          </Button>
        </>
      ) : (
        <Button
          size="sm"
          variant="primary"
          aria-label={`Start ${sprint.name}`}
          disabled={otherActive}
          title={otherActive ? 'Another sprint is active: complete it first' : undefined}
          onClick={() => open('start')}
        >
          Start
        </Button>
      )}
      <Popover
        label={`More actions for ${sprint.name}`}
        align="right"
        className="inline-flex h-7 w-7 items-center justify-center rounded-md text-muted hover:bg-hover hover:text-fg"
        button={<span aria-hidden="true">⋯</span>}
      >
        {(close) => (
          <div role="menu">
            <MenuItem
              onSelect={() => {
                close();
                open('edit');
              }}
            >
              Edit sprint
            </MenuItem>
            {sprint.status === 'planning' && (
              <MenuItem
                danger
                onSelect={() => {
                  close();
                  open('delete');
                }}
              >
                Delete sprint
              </MenuItem>
            )}
          </div>
        )}
      </Popover>
    </div>
  );
}

export function BudgetMeter({ points, budget }: { points: number; budget: number | null }) {
  if (budget == null)
    return (
      <span className="text-[12px] text-muted" data-testid="section-points">
        {points} pts
      </span>
    );
  const over = points > budget;
  const pct = budget > 0 ? Math.min(100, (points / budget) * 100) : 100;
  return (
    <span
      className="flex items-center gap-2"
      title={over ? `${points - budget} points over the budget` : undefined}
    >
      <span
        className={`text-[12px] ${over ? 'font-medium text-warn' : 'text-muted'}`}
        data-testid="section-points"
      >
        {points} / {budget} pts
      </span>
      <span
        className="hidden h-1.5 w-20 overflow-hidden rounded-full bg-surface-2 sm:inline-block"
        aria-hidden="true"
      >
        <span className={`block h-full ${over ? 'bg-warn' : 'bg-accent'}`} style={{ width: `${pct}%` }} />
      </span>
      {over && <span className="text-[12px] text-warn">over by {points - budget}</span>}
    </span>
  );
}
