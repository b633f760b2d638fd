/**
 * The mapping step of an import (docs/import.md): what the mapping, or its defaults, makes of a
 * source's statuses, types, priorities, people, labels and sprints in the target project's terms,
 * and what the run found of each (the wizard's preview).
 */
import type { ColumnsTable } from '../../db/types.js';
import { PRIORITIES, type Priority, TICKET_TYPES, type TicketType } from '../../shared/enums.js';
import type { ImportFound, ImportMapping } from '../../shared/imports.js';
import { LIMITS } from '../../shared/limits.js';
import type { SourcePerson, SourceRecord } from './source.js';

/** How many distinct source values `found` lists per kind. */
const FOUND_MAX = 200;

export const lower = (s: string) => s.trim().toLowerCase();
export const cut = (s: string, max: number) => (s.length > max ? s.slice(0, max) : s);
const caseless = <T>(r: Record<string, T> | undefined) =>
  new Map(Object.entries(r ?? {}).map(([k, v]) => [lower(k), v] as const));

const TYPE_WORDS: Record<string, TicketType> = {
  'sub-task': 'Subtask',
  'sub task': 'Subtask',
  subtask: 'Subtask',
  'sub-issue': 'Subtask',
  story: 'Story',
  'user story': 'Story',
  feature: 'Story',
  'new feature': 'Story',
  bug: 'Bug',
  defect: 'Bug',
  epic: 'Epic',
};
const PRIORITY_WORDS: Record<string, Priority> = {
  blocker: 'Critical',
  urgent: 'Highest',
  critical: 'Critical',
  major: 'High',
  minor: 'Low',
  trivial: 'Lowest',
  'no priority': 'Medium',
  none: 'Medium',
  normal: 'Medium',
};
/** Status names that mean "not started" / "under way" / "finished" when no column has the name. */
const STATUS_STAGE: Record<string, 'first' | 'doing' | 'last'> = {
  open: 'first',
  new: 'first',
  todo: 'first',
  'to do': 'first',
  backlog: 'first',
  triage: 'first',
  unstarted: 'first',
  reopened: 'first',
  started: 'doing',
  'in progress': 'doing',
  'in development': 'doing',
  closed: 'last',
  done: 'last',
  resolved: 'last',
  completed: 'last',
  complete: 'last',
  canceled: 'last',
  cancelled: 'last',
  "won't do": 'last',
  'won’t do': 'last',
};

/** The allowed story-point value nearest to n (ties go up). */
export function nearestPoints(n: number | null): number | null {
  if (n === null) return null;
  let best: number = LIMITS.storyPoints[0];
  for (const p of LIMITS.storyPoints) if (Math.abs(p - n) <= Math.abs(best - n)) best = p;
  return best;
}

export type UserRow = { id: string; username: string; email: string | null; name: string | null };

/** The project's names and the instance's people, and what the mapping (or its defaults) makes of a source value. */
export class Mapper {
  readonly columns = new Map<string, { id: string | null; name: string }>();
  readonly labels = new Map<string, { id: string | null; name: string }>();
  readonly sprints = new Map<string, { id: string | null; name: string }>();
  private readonly people = new Map<string, UserRow | null>();
  private readonly byUsername = new Map<string, UserRow>();
  private readonly byEmail = new Map<string, UserRow>();
  private readonly byName = new Map<string, UserRow | null>();
  readonly found: ImportFound;
  private readonly seen = {
    statuses: new Set<string>(),
    types: new Set<string>(),
    priorities: new Set<string>(),
    people: new Set<string>(),
    labels: new Set<string>(),
  };
  private readonly statusMap;
  private readonly typeMap;
  private readonly priorityMap;
  private readonly peopleMap;
  private readonly labelMap;
  private readonly stageColumns: Record<'first' | 'doing' | 'last', string>;

  constructor(
    readonly mapping: ImportMapping,
    columnRows: Pick<ColumnsTable, 'id' | 'name'>[],
    labelRows: { id: string; name: string }[],
    sprintRows: { id: string; name: string }[],
    users: UserRow[],
    readonly members: Set<string>,
  ) {
    this.found = {
      statuses: [],
      types: [],
      priorities: [],
      people: [],
      labels: [],
      archived: { records: 0, lists: [], choice: mapping.archived ?? 'done' },
    };
    for (const c of columnRows) this.columns.set(lower(c.name), { id: c.id, name: c.name });
    for (const l of labelRows) this.labels.set(lower(l.name), { id: l.id, name: l.name });
    for (const s of sprintRows) this.sprints.set(lower(s.name), { id: s.id, name: s.name });
    for (const u of users) {
      this.byUsername.set(lower(u.username), u);
      if (u.email) this.byEmail.set(lower(u.email), u);
      // A display name two people share names nobody.
      if (u.name) this.byName.set(lower(u.name), this.byName.has(lower(u.name)) ? null : u);
    }
    this.statusMap = caseless(mapping.statuses);
    this.typeMap = caseless(mapping.types);
    this.priorityMap = caseless(mapping.priorities);
    this.peopleMap = caseless(mapping.people);
    this.labelMap = caseless(mapping.labels);
    const names = columnRows.map((c) => c.name);
    const named = (n: string) => names.find((c) => lower(c) === n);
    this.stageColumns = {
      first: names[0],
      doing: named('in progress') ?? names[Math.min(1, names.length - 1)],
      last: named('done') ?? names[names.length - 1],
    };
  }

  private note<K extends keyof typeof this.seen>(kind: K, source: string, entry: ImportFound[K][number]) {
    const set = this.seen[kind];
    if (set.has(source) || set.size >= FOUND_MAX) return;
    set.add(source);
    (this.found[kind] as ImportFound[K][number][]).push(entry);
  }

  /**
   * An archived record (mapping.archived): counted for the preview, with the archived list it was
   * in. True when it is left out; else it goes to the done column (`doneColumn`).
   */
  archived(rec: SourceRecord): boolean {
    const a = this.found.archived;
    a.records++;
    if (rec.archivedList && !a.lists.includes(rec.archivedList) && a.lists.length < FOUND_MAX)
      a.lists.push(rec.archivedList);
    return a.choice === 'skip';
  }

  /** Where archived records go: the column named Done, else the last. */
  doneColumn(): string {
    return this.stageColumns.last;
  }

  /** The column (by name) a source status goes to, and whether that column is new. */
  column(status: string | null): string {
    const first = this.stageColumns.first;
    if (!status) return first;
    const allowCreate = this.mapping.createColumns !== false;
    const mapped = this.statusMap.get(lower(status));
    let name: string;
    if (mapped) name = mapped;
    else if (this.columns.has(lower(status))) name = status;
    else if (STATUS_STAGE[lower(status)]) name = this.stageColumns[STATUS_STAGE[lower(status)]];
    else name = cut(status.trim(), LIMITS.columnNameMax);
    let existing = this.columns.get(lower(name));
    if (!existing && !allowCreate) {
      name = first;
      existing = this.columns.get(lower(first));
    }
    if (!existing) this.columns.set(lower(name), { id: null, name });
    const col = this.columns.get(lower(name)) as { id: string | null; name: string };
    this.note('statuses', status, { source: status, column: col.name, create: col.id === null });
    return col.name;
  }

  type(source: string | null, hasParent: boolean): TicketType {
    let t: TicketType | undefined;
    if (source) {
      t =
        this.typeMap.get(lower(source)) ??
        TICKET_TYPES.find((x) => lower(x) === lower(source)) ??
        TYPE_WORDS[lower(source)];
    }
    const out = t ?? (hasParent && !source ? 'Subtask' : 'Task');
    if (source) this.note('types', source, { source, type: out });
    return out;
  }

  priority(source: string | null): Priority {
    if (!source) return 'Medium';
    const out =
      this.priorityMap.get(lower(source)) ??
      PRIORITIES.find((x) => lower(x) === lower(source)) ??
      PRIORITY_WORDS[lower(source)] ??
      'Medium';
    this.note('priorities', source, { source, priority: out });
    return out;
  }

  /**
   * The user a source person is: mapped (by any of their names), else the user whose username or
   * e-mail is one of their names, else the user whose display name (shared by nobody else) is.
   */
  person(source: SourcePerson | null): UserRow | null {
    if (!source) return null;
    const names = [source.name, ...source.aliases].map(lower);
    const k = names.join('\u0000');
    if (this.people.has(k)) return this.people.get(k) ?? null;
    let user: UserRow | null = null;
    const mapped = names.find((n) => this.peopleMap.has(n));
    if (mapped !== undefined) {
      const target = this.peopleMap.get(mapped);
      user = target ? (this.byUsername.get(lower(target)) ?? this.byEmail.get(lower(target)) ?? null) : null;
    } else {
      for (const n of names) user ??= this.byUsername.get(n) ?? this.byEmail.get(n) ?? null;
      for (const n of names) user ??= this.byName.get(n) ?? null;
    }
    this.people.set(k, user);
    this.note('people', source.name, { source: source.name, username: user?.username ?? null });
    return user;
  }

  /** The label name a source label goes to (created when missing), or null when mapped away. */
  label(source: string): string | null {
    const k = lower(source);
    const target = this.labelMap.has(k) ? this.labelMap.get(k) : cut(source.trim(), LIMITS.labelNameMax);
    if (!target) {
      this.note('labels', source, { source, label: null, create: false });
      return null;
    }
    if (!this.labels.has(lower(target))) this.labels.set(lower(target), { id: null, name: target });
    const l = this.labels.get(lower(target)) as { id: string | null; name: string };
    this.note('labels', source, { source, label: l.name, create: l.id === null });
    return l.name;
  }

  sprint(source: string | null): string | null {
    if (!source) return null;
    const name = cut(source.trim(), LIMITS.sprintNameMax);
    if (!this.sprints.has(lower(name))) this.sprints.set(lower(name), { id: null, name });
    return (this.sprints.get(lower(name)) as { name: string }).name;
  }
}
