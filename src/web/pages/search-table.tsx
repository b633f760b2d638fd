/** The list view: any search's results as a table with chosen columns, sortable headers and groups. */
import { useQueries } from '@tanstack/react-query';
import { Fragment, useMemo } from 'react';
import { Link } from 'wouter';
import { PRIORITIES } from '../../shared/enums';
import { DEFAULT_SORT_DIR, SORT_FIELDS, type SortField, type SortSpec } from '../../shared/search-query';
import { columnsQuery } from '../api/columns';
import { membersQuery } from '../api/members';
import type { SearchItem, View } from '../api/search';
import { sprintsQuery } from '../api/sprints';
import { PriorityIcon, TypeIcon } from '../components/icons';
import { relativeTime } from '../components/time';
import { Avatar, LabelChip } from '../components/ui';
import { shortDate } from '../lib/dates';

export type ColumnName = View['columns'][number];
export type GroupName = NonNullable<View['groupBy']>;

export const COLUMN_TITLES: Record<ColumnName, string> = {
  key: 'Key',
  title: 'Title',
  type: 'Type',
  priority: 'Priority',
  status: 'Status',
  assignee: 'Assignee',
  reporter: 'Reporter',
  sprint: 'Sprint',
  points: 'Points',
  due: 'Due',
  labels: 'Labels',
  project: 'Project',
  created: 'Created',
  updated: 'Updated',
};
export const GROUP_TITLES: Record<GroupName, string> = {
  status: 'Status',
  assignee: 'Assignee',
  priority: 'Priority',
  sprint: 'Sprint',
  project: 'Project',
  type: 'Type',
};

/** The table column that a server-side sort orders by. */
const SORT_OF: Partial<Record<ColumnName, SortField>> = {
  key: 'key',
  priority: 'priority',
  points: 'points',
  due: 'due',
  created: 'created',
  updated: 'updated',
};

const SORT_RE = /(^|\s)sort:\S+/gi;

/** The query with its sort replaced: a header click sorts on the server, so every page follows it. */
export function withSort(query: string, field: SortField, current: SortSpec | undefined): string {
  const dir = current?.field === field ? (current.dir === 'asc' ? 'desc' : 'asc') : DEFAULT_SORT_DIR[field];
  const rest = query.replace(SORT_RE, ' ').replace(/\s+/g, ' ').trim();
  return `${rest}${rest ? ' ' : ''}sort:${field}-${dir}`;
}

/** Column names, sprint names and reporters of the projects in the results, from the shared cache. */
function useLookups(projectIds: string[]) {
  const columns = useQueries({
    queries: projectIds.map((id) => ({ ...columnsQuery(id), staleTime: 30_000 })),
  });
  const sprints = useQueries({
    queries: projectIds.map((id) => ({ ...sprintsQuery(id), staleTime: 30_000 })),
  });
  const members = useQueries({
    queries: projectIds.map((id) => ({ ...membersQuery(id), staleTime: 30_000 })),
  });
  return useMemo(() => {
    const column = new Map<string, { name: string; order: number }>();
    for (const q of columns) for (const c of q.data ?? []) column.set(c.id, { name: c.name, order: c.order });
    const sprint = new Map<string, string>();
    for (const q of sprints) for (const s of q.data ?? []) sprint.set(s.id, s.name);
    const person = new Map<string, string>();
    for (const q of members)
      for (const m of q.data ?? []) person.set(m.userId, m.user?.name ?? m.user?.username ?? m.userId);
    return { column, sprint, person };
  }, [columns, sprints, members]);
}

type Lookups = ReturnType<typeof useLookups>;

function cell(col: ColumnName, t: SearchItem, l: Lookups) {
  switch (col) {
    case 'key':
      return <span className="font-mono text-[12px] text-muted">{t.key}</span>;
    case 'title':
      return <span className="truncate">{t.title}</span>;
    case 'type':
      return (
        <span className="inline-flex items-center gap-1">
          <TypeIcon type={t.type} /> {t.type}
        </span>
      );
    case 'priority':
      return (
        <span className="inline-flex items-center gap-1">
          <PriorityIcon priority={t.priority} /> {t.priority}
        </span>
      );
    case 'status':
      return l.column.get(t.columnId)?.name ?? '…';
    case 'assignee':
      return t.assignee ? (
        <span className="inline-flex items-center gap-1.5">
          <Avatar name={t.assignee.name} src={t.assignee.avatar} size={18} /> {t.assignee.name}
        </span>
      ) : (
        <span className="text-faint">Unassigned</span>
      );
    case 'reporter':
      return t.reporterId ? (l.person.get(t.reporterId) ?? '—') : '—';
    case 'sprint':
      return t.sprintId ? (l.sprint.get(t.sprintId) ?? '…') : <span className="text-faint">Backlog</span>;
    case 'points':
      return t.storyPoints ?? '—';
    case 'due':
      return t.dueDate ? shortDate(t.dueDate) : '—';
    case 'labels':
      return (
        <span className="flex flex-wrap gap-1">
          {t.labels.map((x) => (
            <LabelChip key={x.id} name={x.name} color={x.color} />
          ))}
        </span>
      );
    case 'project':
      return <span className="font-mono text-[12px]">{t.projectKey}</span>;
    case 'created':
      return relativeTime(t.createdAt);
    case 'updated':
      return relativeTime(t.updatedAt);
  }
}

/** The group of a ticket: its heading and an order among groups. */
function groupOf(g: GroupName, t: SearchItem, l: Lookups): { key: string; title: string; order: string } {
  switch (g) {
    case 'status': {
      const c = l.column.get(t.columnId);
      return {
        key: c?.name.toLowerCase() ?? t.columnId,
        title: c?.name ?? '…',
        order: String(c?.order ?? 99).padStart(3, '0'),
      };
    }
    case 'assignee':
      return t.assignee
        ? { key: t.assigneeId ?? '', title: t.assignee.name, order: `1${t.assignee.name.toLowerCase()}` }
        : { key: 'none', title: 'Unassigned', order: '2' };
    case 'priority': {
      const i = PRIORITIES.length - PRIORITIES.indexOf(t.priority);
      return { key: t.priority, title: t.priority, order: String(i).padStart(2, '0') };
    }
    case 'sprint':
      return t.sprintId
        ? {
            key: t.sprintId,
            title: l.sprint.get(t.sprintId) ?? '…',
            order: `1${l.sprint.get(t.sprintId) ?? ''}`,
          }
        : { key: 'none', title: 'Backlog', order: '2' };
    case 'project':
      return { key: t.projectKey, title: t.projectKey, order: t.projectKey };
    case 'type':
      return { key: t.type, title: t.type, order: t.type };
  }
}

export function ResultsTable({
  items,
  columns,
  groupBy,
  sort,
  active,
  onSort,
  onHover,
  selected,
  onSelect,
  onPriority,
}: {
  items: SearchItem[];
  columns: ColumnName[];
  groupBy: GroupName | null;
  sort: SortSpec | undefined;
  active: number;
  onSort: (field: SortField) => void;
  onHover: (index: number) => void;
  /** Ticket ids chosen for a bulk action. */
  selected: ReadonlySet<string>;
  onSelect: (ids: string[], on: boolean) => void;
  /** An inline edit of a ticket's priority. */
  onPriority: (t: SearchItem, priority: SearchItem['priority']) => void;
}) {
  const projectIds = useMemo(() => [...new Set(items.map((t) => t.projectId))], [items]);
  const lookups = useLookups(projectIds);
  const groups = useMemo(() => {
    const indexed = items.map((t, i) => ({ t, i }));
    if (!groupBy) return [{ key: 'all', title: '', rows: indexed }];
    const map = new Map<string, { key: string; title: string; order: string; rows: typeof indexed }>();
    for (const r of indexed) {
      const g = groupOf(groupBy, r.t, lookups);
      const entry = map.get(g.key) ?? { ...g, rows: [] };
      entry.rows.push(r);
      map.set(g.key, entry);
    }
    return [...map.values()].sort((a, b) => a.order.localeCompare(b.order));
  }, [items, groupBy, lookups]);

  return (
    <table className="w-full table-fixed border-collapse text-[13px]" data-testid="search-results">
      <thead>
        <tr className="border-b border-line text-left text-[12px] text-faint">
          <th scope="col" className="w-8 px-2 py-1.5">
            <input
              type="checkbox"
              aria-label="Select all shown"
              checked={items.length > 0 && items.every((t) => selected.has(t.id))}
              onChange={(e) =>
                onSelect(
                  items.map((t) => t.id),
                  e.target.checked,
                )
              }
            />
          </th>
          {columns.map((c) => {
            const field = SORT_OF[c];
            const sorted = field && sort?.field === field ? sort.dir : undefined;
            return (
              <th
                key={c}
                scope="col"
                aria-sort={sorted ? (sorted === 'asc' ? 'ascending' : 'descending') : undefined}
                className={`px-2 py-1.5 font-medium ${c === 'title' ? 'w-[40%]' : ''}`}
              >
                {field && (SORT_FIELDS as readonly string[]).includes(field) ? (
                  <button type="button" className="hover:text-fg" onClick={() => onSort(field)}>
                    {COLUMN_TITLES[c]} {sorted === 'asc' ? '↑' : sorted === 'desc' ? '↓' : ''}
                  </button>
                ) : (
                  COLUMN_TITLES[c]
                )}
              </th>
            );
          })}
        </tr>
      </thead>
      <tbody>
        {groups.map((g) => (
          <Fragment key={g.key}>
            {groupBy && (
              <tr className="bg-subtle">
                <th
                  colSpan={columns.length}
                  scope="rowgroup"
                  className="px-2 py-1 text-left text-[12px] font-semibold"
                >
                  {g.title} <span className="font-normal text-faint">{g.rows.length}</span>
                </th>
              </tr>
            )}
            {g.rows.map(({ t, i }) => (
              <tr
                key={t.id}
                id={`search-row-${i}`}
                aria-selected={i === active}
                onMouseMove={() => onHover(i)}
                className={`border-b border-line ${i === active ? 'bg-hover' : ''}`}
              >
                <td className="px-2 py-1.5">
                  <input
                    type="checkbox"
                    aria-label={`Select ${t.key}`}
                    checked={selected.has(t.id)}
                    onChange={(e) => onSelect([t.id], e.target.checked)}
                  />
                </td>
                {columns.map((c) => (
                  <td key={c} className="truncate px-2 py-1.5">
                    {c === 'priority' ? (
                      <span className="inline-flex items-center gap-1">
                        <PriorityIcon priority={t.priority} />
                        <select
                          aria-label={`Priority of ${t.key}`}
                          value={t.priority}
                          onChange={(e) => onPriority(t, e.target.value as SearchItem['priority'])}
                          className="rounded border border-transparent bg-transparent hover:border-line"
                        >
                          {PRIORITIES.map((p) => (
                            <option key={p} value={p}>
                              {p}
                            </option>
                          ))}
                        </select>
                      </span>
                    ) : c === 'title' ? (
                      <Link href={`/projects/${t.projectKey}/${t.key}`} className="hover:underline">
                        {t.title}
                      </Link>
                    ) : (
                      cell(c, t, lookups)
                    )}
                  </td>
                ))}
              </tr>
            ))}
          </Fragment>
        ))}
      </tbody>
    </table>
  );
}
