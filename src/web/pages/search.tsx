/**
 * The search page (/search?q=…, /search?view=<id>): results as you type over every project, the list
 * view with chosen columns, sorting and grouping, and saving the query as a view.
 */
import { useEffect, useMemo, useRef, useState } from 'react';
import { useLocation, useSearch as useSearchString } from 'wouter';
import {
  DEFAULT_VIEW_COLUMNS,
  parseQuery,
  QueryError,
  VIEW_COLUMNS,
  VIEW_GROUPS,
} from '../../shared/search-query';
import { ApiError, errorText } from '../api/client';
import { exportHref } from '../api/imports';
import { useProjects } from '../api/projects';
import {
  type SearchItem,
  useBulkUpdateResults,
  useCreateView,
  useDeleteView,
  useSearch,
  useUpdateView,
  useViews,
  type View,
} from '../api/search';
import { useSession } from '../api/session';
import type { TicketPatch } from '../api/tickets';
import { PRIORITIES } from '../api/types';
import { Popover } from '../components/Popover';
import { useToast } from '../components/toast';
import { Button, Input, Select } from '../components/ui';
import { useListNavigation } from '../hooks/list-navigation';
import { useDocumentTitle } from '../hooks/title';
import {
  COLUMN_TITLES,
  type ColumnName,
  GROUP_TITLES,
  type GroupName,
  ResultsTable,
  withSort,
} from './search-table';

function useDebounced<T>(value: T, ms: number): T {
  const [v, setV] = useState(value);
  useEffect(() => {
    const t = setTimeout(() => setV(value), ms);
    return () => clearTimeout(t);
  }, [value, ms]);
  return v;
}

/** The query's problem as the parser or the server words it, or null. */
function problemOf(text: string, error: unknown): string | null {
  try {
    parseQuery(text);
  } catch (e) {
    if (e instanceof QueryError) return e.message;
  }
  if (error instanceof ApiError && error.status === 400) return error.details[0]?.message ?? error.message;
  return error ? errorText(error) : null;
}

function SaveView({
  query,
  columns,
  groupBy,
  onSaved,
}: {
  query: string;
  columns: ColumnName[];
  groupBy: GroupName | null;
  onSaved: (v: View) => void;
}) {
  const projects = useProjects();
  const createView = useCreateView();
  const [name, setName] = useState('');
  const [projectId, setProjectId] = useState('');
  const [shared, setShared] = useState(false);
  const [error, setError] = useState<string | null>(null);
  return (
    <Popover
      label="Save view"
      align="right"
      panelClass="w-72 p-3"
      className="h-8 rounded-md border border-line px-3 text-[13px] hover:bg-hover"
      button="Save view"
    >
      {(close) => (
        <form
          className="flex flex-col gap-2"
          onSubmit={async (e) => {
            e.preventDefault();
            try {
              const v = await createView.mutateAsync({
                name,
                query,
                columns,
                groupBy,
                projectId: projectId || null,
                shared: shared && !!projectId,
              });
              setName('');
              close();
              onSaved(v);
            } catch (err) {
              setError(errorText(err));
            }
          }}
        >
          <label className="text-[12px] text-muted" htmlFor="view-name">
            Name
          </label>
          <Input
            id="view-name"
            value={name}
            onChange={(e) => setName(e.target.value)}
            required
            maxLength={100}
          />
          <label className="text-[12px] text-muted" htmlFor="view-project">
            Project
          </label>
          <Select id="view-project" value={projectId} onChange={(e) => setProjectId(e.target.value)}>
            <option value="">All my projects</option>
            {projects.data?.map((p) => (
              <option key={p.id} value={p.id}>
                {p.name}
              </option>
            ))}
          </Select>
          <label className="flex items-center gap-2 text-[13px]">
            <input
              type="checkbox"
              checked={shared}
              disabled={!projectId}
              onChange={(e) => setShared(e.target.checked)}
            />
            Share with the project's members
          </label>
          {error && <p className="text-[12px] text-danger">{error}</p>}
          <Button type="submit">Save</Button>
        </form>
      )}
    </Popover>
  );
}

/** The search text, and the layout it is shown in: a view's when the address names one. */
function useSearchState(view: View | undefined) {
  const params = new URLSearchParams(useSearchString());
  const [text, setText] = useState(params.get('q') ?? '');
  const [columns, setColumns] = useState<ColumnName[]>(DEFAULT_VIEW_COLUMNS);
  const [groupBy, setGroupBy] = useState<GroupName | null>(null);
  // Opening a view takes its query and layout.
  useEffect(() => {
    if (!view) return;
    setText(view.query);
    setColumns(view.columns);
    setGroupBy(view.groupBy);
  }, [view]);
  return { text, setText, columns, setColumns, groupBy, setGroupBy };
}

/** The results of the (debounced) query, all pages read so far, and what is wrong with the query. */
function useResults(text: string) {
  const query = useDebounced(text.trim(), 150);
  const parsed = useMemo(() => {
    try {
      return parseQuery(query);
    } catch {
      return null;
    }
  }, [query]);
  const results = useSearch(query, 50, parsed !== null);
  const items = useMemo(() => results.data?.pages.flatMap((p) => p.items) ?? [], [results.data]);
  const total = results.data?.pages[0]?.total ?? 0;
  const problem = problemOf(query, parsed ? results.error : null);
  return { query, parsed, results, items, total, problem };
}

export function SearchPage() {
  const [, navigate] = useLocation();
  const viewId = new URLSearchParams(useSearchString()).get('view');
  const views = useViews();
  const view = viewId ? views.data?.find((v) => v.id === viewId) : undefined;
  useDocumentTitle(view ? view.name : 'Search');
  const { text, setText, columns, setColumns, groupBy, setGroupBy } = useSearchState(view);
  const { query, parsed, results, items, total, problem } = useResults(text);
  const [selected, setSelected] = useState<ReadonlySet<string>>(new Set());
  const input = useRef<HTMLInputElement>(null);
  const open = (i: number) => {
    const t = items[i];
    if (t) navigate(`/projects/${t.projectKey}/${t.key}`);
  };
  const nav = useListNavigation(items.length, open);
  // A new query starts at its first result.
  const [shownFor, setShownFor] = useState(query);
  if (shownFor !== query) {
    setShownFor(query);
    nav.setActive(0);
  }

  useEffect(() => {
    if (viewId) return;
    const qs = query ? `?q=${encodeURIComponent(query)}` : '';
    if (window.location.search !== qs) navigate(`/search${qs}`, { replace: true });
  }, [query, viewId, navigate]);

  const apply = useApplyToResults();
  const chosen = items.filter((t) => selected.has(t.id));

  return (
    <div className="flex h-full flex-col gap-3 overflow-y-auto p-4">
      <div className="flex items-center gap-2">
        <h1 className="text-[18px] font-semibold">{view ? view.name : 'Search'}</h1>
        {view?.shared && (
          <span className="rounded bg-accent-soft px-1.5 text-[11px]">Shared in {view.projectKey}</span>
        )}
      </div>
      <div className="flex flex-wrap items-center gap-2">
        <Input
          ref={input}
          autoFocus
          aria-label="Search query"
          data-testid="search-input"
          placeholder='Search: words, "a phrase", assignee:me is:open priority>=high sort:due …'
          className="min-w-[20rem] flex-1 font-mono"
          value={text}
          role="combobox"
          aria-expanded="true"
          aria-controls="search-results"
          aria-activedescendant={items[nav.active] ? `search-row-${nav.active}` : undefined}
          onChange={(e) => setText(e.target.value)}
          onKeyDown={nav.onKeyDown}
        />
        <ColumnsPicker columns={columns} setColumns={setColumns} />
        <GroupSelect groupBy={groupBy} setGroupBy={setGroupBy} />
        <ViewActions view={view} query={text.trim()} columns={columns} groupBy={groupBy} />
        {view?.projectId && <ViewExports projectId={view.projectId} query={text.trim()} />}
      </div>
      <div className="min-h-5 text-[12px]" aria-live="polite">
        {problem ? (
          <span className="text-danger" data-testid="search-problem">
            {problem}
          </span>
        ) : (
          <span className="text-faint" data-testid="search-total">
            {results.isPending ? 'Searching…' : `${total} ${total === 1 ? 'ticket' : 'tickets'}`}
          </span>
        )}
      </div>
      {chosen.length > 0 && <BulkBar chosen={chosen} apply={apply} clear={() => setSelected(new Set())} />}
      {items.length > 0 && (
        <div id="search-results">
          <ResultsTable
            items={items}
            columns={columns}
            groupBy={groupBy}
            sort={parsed?.sort[0]}
            active={nav.active}
            onHover={nav.setActive}
            selected={selected}
            onSelect={(ids, on) =>
              setSelected((cur) => {
                const next = new Set(cur);
                for (const id of ids) on ? next.add(id) : next.delete(id);
                return next;
              })
            }
            onPriority={(t, priority) => apply([t], { priority })}
            onSort={(field) => {
              setText(withSort(text, field, parsed?.sort[0]));
              input.current?.focus();
            }}
          />
        </div>
      )}
      {results.hasNextPage && (
        <div>
          <Button onClick={() => results.fetchNextPage()} disabled={results.isFetchingNextPage}>
            {results.isFetchingNextPage ? 'Loading…' : `Load more (${items.length} of ${total})`}
          </Button>
        </div>
      )}
    </div>
  );
}

/** Applies one change to tickets of any projects, and says how it went. */
function useApplyToResults() {
  const toast = useToast();
  const bulk = useBulkUpdateResults();
  return async (tickets: SearchItem[], updates: TicketPatch) => {
    try {
      await bulk.mutateAsync({ tickets, updates });
      toast.show(`${tickets.length} ${tickets.length === 1 ? 'ticket' : 'tickets'} updated`, 'success');
    } catch (err) {
      toast.error(errorText(err));
    }
  };
}

function ColumnsPicker({
  columns,
  setColumns,
}: {
  columns: ColumnName[];
  setColumns: (update: (cs: ColumnName[]) => ColumnName[]) => void;
}) {
  return (
    <Popover
      label="Columns"
      align="right"
      panelClass="w-48 p-2"
      className="h-8 rounded-md border border-line px-3 text-[13px] hover:bg-hover"
      button="Columns"
    >
      {() => (
        <fieldset className="flex flex-col gap-1">
          <legend className="sr-only">Columns</legend>
          {VIEW_COLUMNS.map((c) => (
            <label key={c} className="flex items-center gap-2 text-[13px]">
              <input
                type="checkbox"
                checked={columns.includes(c)}
                disabled={columns.length === 1 && columns.includes(c)}
                onChange={(e) =>
                  setColumns((cs) =>
                    e.target.checked
                      ? VIEW_COLUMNS.filter((x) => x === c || cs.includes(x))
                      : cs.filter((x) => x !== c),
                  )
                }
              />
              {COLUMN_TITLES[c]}
            </label>
          ))}
        </fieldset>
      )}
    </Popover>
  );
}

function GroupSelect({
  groupBy,
  setGroupBy,
}: {
  groupBy: GroupName | null;
  setGroupBy: (g: GroupName | null) => void;
}) {
  return (
    <Select
      aria-label="Group by"
      value={groupBy ?? ''}
      onChange={(e) => setGroupBy((e.target.value || null) as GroupName | null)}
      className="w-40"
    >
      <option value="">No grouping</option>
      {VIEW_GROUPS.map((g) => (
        <option key={g} value={g}>
          Group by {GROUP_TITLES[g].toLowerCase()}
        </option>
      ))}
    </Select>
  );
}

/** Update or delete the open view when I may edit it; else save the search as a new view. */
function ViewActions({
  view,
  query,
  columns,
  groupBy,
}: {
  view: View | undefined;
  query: string;
  columns: ColumnName[];
  groupBy: GroupName | null;
}) {
  const toast = useToast();
  const [, navigate] = useLocation();
  const updateView = useUpdateView();
  const deleteView = useDeleteView();
  if (!view?.canEdit)
    return (
      <SaveView
        query={query}
        columns={columns}
        groupBy={groupBy}
        onSaved={(v) => navigate(`/search?view=${v.id}`)}
      />
    );
  return (
    <>
      <Button
        onClick={async () => {
          try {
            await updateView.mutateAsync({ id: view.id, body: { query, columns, groupBy } });
            toast.show('View saved', 'success');
          } catch (err) {
            toast.error(errorText(err));
          }
        }}
      >
        Update view
      </Button>
      <Button
        onClick={async () => {
          await deleteView.mutateAsync(view.id);
          navigate('/search');
        }}
      >
        Delete view
      </Button>
    </>
  );
}

/** A project's view downloads as that project's ticket list with the view's query (docs/import.md). */
function ViewExports({ projectId, query }: { projectId: string; query: string }) {
  return (
    <span className="flex items-center gap-2 text-[12px]">
      <a className="text-accent hover:underline" href={exportHref(projectId, 'csv', query)} download>
        Export CSV
      </a>
      <a className="text-accent hover:underline" href={exportHref(projectId, 'json', query)} download>
        Export JSON
      </a>
    </span>
  );
}

/** The selected results' bulk changes: priority, assign to me, unassign. */
function BulkBar({
  chosen,
  apply,
  clear,
}: {
  chosen: SearchItem[];
  apply: (tickets: SearchItem[], updates: TicketPatch) => void;
  clear: () => void;
}) {
  const session = useSession();
  return (
    <div
      className="flex flex-wrap items-center gap-2 rounded-md border border-line bg-subtle px-3 py-2"
      data-testid="bulk-bar"
    >
      <span className="text-[13px] font-medium">{chosen.length} selected</span>
      <Select
        aria-label="Set priority of the selected"
        value=""
        className="w-40"
        onChange={(e) =>
          e.target.value && apply(chosen, { priority: e.target.value as SearchItem['priority'] })
        }
      >
        <option value="">Set priority…</option>
        {PRIORITIES.map((p) => (
          <option key={p} value={p}>
            {p}
          </option>
        ))}
      </Select>
      <Button onClick={() => session.data?.user && apply(chosen, { assigneeId: session.data.user.id })}>
        Assign to me
      </Button>
      <Button onClick={() => apply(chosen, { assigneeId: null })}>Unassign</Button>
      <Button onClick={clear}>Clear selection</Button>
    </div>
  );
}
