/**
 * The import (docs/import.md): reads a source file record by record (importers in csv.ts and
 * json.ts), maps each record's statuses, types, priorities, people and labels to the project's
 * (the mapping, else defaults), and writes tickets in batches, one transaction per batch. A dry run
 * takes the same way and writes nothing. Source ids are remembered in `import_sources`, so a second
 * run skips what the first one made; parents and links are set at the end, when every ticket they
 * name exists.
 */
import type { ColumnsTable, ProjectsTable, TicketsTable } from '../../db/types.js';
import { PRIORITIES, type Priority, TICKET_TYPES, type TicketType } from '../../shared/enums.js';
import {
  type ImportFormat,
  type ImportFound,
  type ImportMapping,
  type ImportProblem,
  type ImportResult,
  MAX_IMPORT_PROBLEMS,
} from '../../shared/imports.js';
import { LIMITS, PALETTE } from '../../shared/limits.js';
import { projectAccess } from '../access.js';
import { lockBoard, lockColumn, ranksAtEnd } from '../board-ranks.js';
import type { Ctx } from '../context.js';
import { newId, nowIso } from '../ids.js';
import { transactWrite } from '../races.js';
import { recordSprintChanges } from '../sprint-membership.js';
import { noteSprintName } from '../sprint-names.js';
import { readGenericCsv, readJiraCsv, readLinearCsv } from './csv.js';
import { readGithubJson, readTrelloJson } from './json.js';
import type { Reader, SourceRecord } from './source.js';

const READERS: Record<ImportFormat, { read: Reader; source: string; label: string }> = {
  'jira-csv': { read: readJiraCsv, source: 'jira', label: 'Jira' },
  'github-json': { read: readGithubJson, source: 'github', label: 'GitHub' },
  'linear-csv': { read: readLinearCsv, source: 'linear', label: 'Linear' },
  'trello-json': { read: readTrelloJson, source: 'trello', label: 'Trello' },
  csv: { read: readGenericCsv, source: 'csv', label: 'CSV' },
};

/** Records written per transaction. */
export const IMPORT_BATCH = 1000;
/** Rows per insert statement (25 ticket columns stay under every dialect's parameter limit). */
const CHUNK = 400;
/** How many distinct source values `found` lists per kind. */
const FOUND_MAX = 200;

export interface ImportProgress {
  /** Bytes of the file read, and its size. */
  bytes: number;
  totalBytes: number;
  /** Records read so far. */
  records: number;
  phase: 'reading' | 'linking' | 'done';
}

export interface ImportRun {
  format: ImportFormat;
  /** The uploaded file, on disk. */
  file: string;
  fileSize: number;
  mapping?: ImportMapping;
  dryRun: boolean;
  onProgress?(p: ImportProgress): void;
}

const lower = (s: string) => s.trim().toLowerCase();
const cut = (s: string, max: number) => (s.length > max ? s.slice(0, max) : s);
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
function nearestPoints(n: number | null): number | null {
  if (n === null) return null;
  let best: number = LIMITS.storyPoints[0];
  for (const p of LIMITS.storyPoints) if (Math.abs(p - n) <= Math.abs(best - n)) best = p;
  return best;
}

type UserRow = { id: string; username: string; email: string | null; name: string | null };

/** The project's names and the instance's people, and what the mapping (or its defaults) makes of a source value. */
class Mapper {
  readonly columns = new Map<string, { id: string | null; name: string }>();
  readonly labels = new Map<string, { id: string | null; name: string }>();
  readonly sprints = new Map<string, { id: string | null; name: string }>();
  private readonly people = new Map<string, UserRow | null>();
  private readonly byUsername = new Map<string, UserRow>();
  private readonly byEmail = new Map<string, UserRow>();
  private readonly byName = new Map<string, UserRow | null>();
  readonly found: ImportFound = { statuses: [], types: [], priorities: [], people: [], labels: [] };
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

  private note<K extends keyof ImportFound>(kind: K, source: string, entry: ImportFound[K][number]) {
    const set = this.seen[kind];
    if (set.has(source) || set.size >= FOUND_MAX) return;
    set.add(source);
    (this.found[kind] as ImportFound[K][number][]).push(entry);
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

  /** The user a source person is: mapped, else the user with that username, e-mail or (unshared) display name. */
  person(source: string | null): UserRow | null {
    if (!source) return null;
    const k = lower(source);
    if (this.people.has(k)) return this.people.get(k) ?? null;
    let user: UserRow | null = null;
    if (this.peopleMap.has(k)) {
      const target = this.peopleMap.get(k);
      user = target ? (this.byUsername.get(lower(target)) ?? this.byEmail.get(lower(target)) ?? null) : null;
    } else {
      user = this.byUsername.get(k) ?? this.byEmail.get(k) ?? this.byName.get(k) ?? null;
    }
    this.people.set(k, user);
    this.note('people', source, { source, username: user?.username ?? null });
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

/** A record turned into Docket's terms, before it has ids. */
interface Planned {
  rec: SourceRecord;
  column: string;
  type: TicketType;
  priority: Priority;
  assignee: UserRow | null;
  reporter: UserRow | null;
  labels: string[];
  sprint: string | null;
  description: string | null;
  comments: { author: UserRow | null; createdAt: string; content: string }[];
}

/** Links between tickets are stored once: `blocks` and `duplicates` one way, `relates_to` between sorted ids. */
function canonicalLink(from: string, type: SourceRecord['links'][number]['type'], to: string) {
  if (type === 'is_blocked_by') return { s: to, t: from, type: 'blocks' as const };
  if (type === 'is_duplicated_by') return { s: to, t: from, type: 'duplicates' as const };
  if (type === 'relates_to') return from < to ? { s: from, t: to, type } : { s: to, t: from, type };
  return { s: from, t: to, type };
}

export async function importTickets(ctx: Ctx, projectRef: string, run: ImportRun): Promise<ImportResult> {
  const db = ctx.db.kysely;
  const { project, actor } = await projectAccess(ctx, db, projectRef, 'admin');
  const reader = READERS[run.format];
  const mapping = run.mapping ?? {};
  const problems: ImportProblem[] = [];
  let dropped = 0;
  const problem = (p: ImportProblem) => {
    if (problems.length < MAX_IMPORT_PROBLEMS) problems.push(p);
    else dropped++;
  };

  const [columnRows, labelRows, sprintRows, users, memberRows] = await Promise.all([
    db
      .selectFrom('columns')
      .select(['id', 'name', 'rank'])
      .where('project_id', '=', project.id)
      .orderBy('rank')
      .execute(),
    db.selectFrom('labels').select(['id', 'name']).where('project_id', '=', project.id).execute(),
    db.selectFrom('sprints').select(['id', 'name']).where('project_id', '=', project.id).execute(),
    db.selectFrom('users').select(['id', 'username', 'email', 'name']).where('is_active', '=', 1).execute(),
    db.selectFrom('project_members').select('user_id').where('project_id', '=', project.id).execute(),
  ]);
  const mapper = new Mapper(
    mapping,
    columnRows,
    labelRows,
    sprintRows,
    users,
    new Set(memberRows.map((m) => m.user_id)),
  );
  const counts = { tickets: 0, comments: 0, labels: 0, columns: 0, links: 0 };
  let skipped = 0;
  let records = 0;
  let bytes = 0;
  const progress = (phase: ImportProgress['phase']) =>
    run.onProgress?.({ bytes, totalBytes: run.fileSize, records, phase });

  /** Source id and key -> ticket id (a dry run: the source id) for every record of this run. */
  const refs = new Map<string, string>();
  const seenIds = new Set<string>();
  /** New tickets that name a parent or other tickets. */
  const pending: { row: number; ticketId: string; parent: string | null; links: SourceRecord['links'] }[] =
    [];

  const plan = (rec: SourceRecord): Planned => {
    const assignee = mapper.person(rec.assignee);
    const reporter = mapper.person(rec.reporter);
    const assignable = assignee && mapper.members.has(assignee.id) ? assignee : null;
    const notes: string[] = [];
    const origin = [rec.key, rec.url].filter(Boolean).join(' — ');
    if (origin) notes.push(`Imported from ${reader.label}: ${origin}`);
    if (rec.reporter && !reporter) notes.push(`Reporter in ${reader.label}: ${rec.reporter}`);
    if (rec.assignee && !assignable)
      notes.push(
        `Assignee in ${reader.label}: ${rec.assignee}${assignee ? ' (not a member of this project)' : ''}`,
      );
    const footer = notes.length ? `\n\n---\n${notes.join('\n')}` : '';
    let description = rec.description ?? '';
    const room = LIMITS.ticketDescriptionMax - (footer.length + (description ? 0 : -5));
    if (description.length > room) {
      problem({
        row: rec.row,
        message: `Description shortened to ${LIMITS.ticketDescriptionMax} characters`,
      });
      description = description.slice(0, Math.max(0, room));
    }
    const full = description ? `${description}${footer}` : footer.replace(/^\n\n/, '');
    const labels = [
      ...new Set(rec.labels.map((l) => mapper.label(l)).filter((l): l is string => l !== null)),
    ];
    const createdAt = rec.createdAt ?? nowIso();
    return {
      rec,
      column: mapper.column(rec.status),
      type: mapper.type(rec.type, rec.parent !== null),
      priority: mapper.priority(rec.priority),
      assignee: assignable,
      reporter,
      labels,
      sprint: mapper.sprint(rec.sprint),
      description: full === '' ? null : full,
      comments: rec.comments
        .filter((c) => c.body.trim() !== '')
        .map((c) => {
          const author = mapper.person(c.author);
          const by = c.author && !author ? `*${reader.label} comment by ${c.author}*\n\n` : '';
          return {
            author,
            createdAt: c.createdAt ?? createdAt,
            content: cut(`${by}${c.body}`, LIMITS.commentMax),
          };
        }),
    };
  };

  /** The ids of this batch's records imported before (remembered source ids). */
  const remembered = async (ids: string[]) => {
    const out = new Map<string, string>();
    for (let i = 0; i < ids.length; i += CHUNK) {
      const rows = await db
        .selectFrom('import_sources')
        .select(['source_id', 'ticket_id'])
        .where('project_id', '=', project.id)
        .where('source', '=', reader.source)
        .where('source_id', 'in', ids.slice(i, i + CHUNK))
        .execute();
      for (const r of rows) out.set(r.source_id, r.ticket_id);
    }
    return out;
  };

  /** Creates the columns, labels and sprints the batch names that do not exist yet. */
  const createNames = async (batch: Planned[]) => {
    const newColumns = [...new Set(batch.map((p) => p.column))].filter(
      (n) => !mapper.columns.get(lower(n))?.id,
    );
    const newLabels = [...new Set(batch.flatMap((p) => p.labels))].filter(
      (n) => !mapper.labels.get(lower(n))?.id,
    );
    const newSprints = [...new Set(batch.map((p) => p.sprint).filter((s): s is string => !!s))].filter(
      (n) => !mapper.sprints.get(lower(n))?.id,
    );
    if (run.dryRun) {
      for (const n of newColumns) mapper.columns.set(lower(n), { id: 'new', name: n });
      for (const n of newLabels) mapper.labels.set(lower(n), { id: 'new', name: n });
      for (const n of newSprints) mapper.sprints.set(lower(n), { id: 'new', name: n });
      counts.columns += newColumns.length;
      counts.labels += newLabels.length;
      return;
    }
    if (!newColumns.length && !newLabels.length && !newSprints.length) return;
    await transactWrite(ctx, async (tx, emit) => {
      const now = nowIso();
      if (newColumns.length) {
        await lockBoard(ctx, tx, project.id);
        const ranks = await ranksAtEnd(
          tx,
          { table: 'columns', scope: 'project_id', id: project.id },
          newColumns.length,
        );
        const rows: ColumnsTable[] = newColumns.map((name, i) => ({
          id: newId(),
          project_id: project.id,
          name,
          rank: ranks[i],
          created_at: now,
        }));
        await tx.insertInto('columns').values(rows).execute();
        const total = await tx
          .selectFrom('columns')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('project_id', '=', project.id)
          .executeTakeFirstOrThrow();
        rows.forEach((r, i) => {
          mapper.columns.set(lower(r.name), { id: r.id, name: r.name });
          emit({
            scope: 'project',
            type: 'column.created',
            projectId: project.id,
            data: { id: r.id, name: r.name, order: Number(total.n) - rows.length + i },
          });
        });
      }
      if (newLabels.length) {
        const have = mapper.labels.size;
        const rows = newLabels.map((name, i) => ({
          id: newId(),
          project_id: project.id,
          name,
          color: PALETTE[(have + i) % PALETTE.length],
          created_at: now,
        }));
        for (let i = 0; i < rows.length; i += CHUNK)
          await tx
            .insertInto('labels')
            .values(rows.slice(i, i + CHUNK))
            .execute();
        for (const r of rows) {
          mapper.labels.set(lower(r.name), { id: r.id, name: r.name });
          emit({
            scope: 'project',
            type: 'label.created',
            projectId: project.id,
            data: { id: r.id, name: r.name, color: r.color },
          });
        }
      }
      for (const name of newSprints) {
        const id = newId();
        await tx
          .insertInto('sprints')
          .values({
            id,
            project_id: project.id,
            name,
            goal: null,
            start_date: null,
            end_date: null,
            status: 'planning',
            budget: null,
            started_at: null,
            completed_at: null,
            created_at: now,
            updated_at: now,
          })
          .execute();
        await noteSprintName(tx, project.id, name);
        mapper.sprints.set(lower(name), { id, name });
      }
    });
    counts.columns += newColumns.length;
    counts.labels += newLabels.length;
  };

  /** Writes one batch of planned tickets in one transaction. */
  const writeBatch = async (batch: Planned[]) => {
    const rows = await transactWrite(ctx, async (tx) => {
      const byColumn = new Map<string, Planned[]>();
      for (const p of batch) {
        const id = mapper.columns.get(lower(p.column))?.id as string;
        byColumn.set(id, [...(byColumn.get(id) ?? []), p]);
      }
      // Locks: columns (in id order), then the project's counter, as every writer takes them.
      const ranks = new Map<Planned, { columnId: string; rank: string }>();
      for (const columnId of [...byColumn.keys()].sort()) {
        await lockColumn(ctx, tx, columnId);
        const list = byColumn.get(columnId) as Planned[];
        const keys = await ranksAtEnd(
          tx,
          { table: 'tickets', scope: 'column_id', id: columnId },
          list.length,
        );
        list.forEach((p, i) => {
          ranks.set(p, { columnId, rank: keys[i] });
        });
      }
      const counter = await tx
        .updateTable('projects')
        .set((eb) => ({ ticket_counter: eb('ticket_counter', '+', batch.length) }))
        .where('id', '=', project.id)
        .returning('ticket_counter')
        .executeTakeFirstOrThrow();
      const firstNumber = Number(counter.ticket_counter) - batch.length + 1;
      const now = nowIso();
      const tickets: TicketsTable[] = batch.map((p, i) => {
        const place = ranks.get(p) as { columnId: string; rank: string };
        const created = p.rec.createdAt ?? now;
        return {
          id: newId(),
          project_id: project.id,
          number: firstNumber + i,
          title: cut(p.rec.title, LIMITS.ticketTitleMax),
          description: p.description,
          type: p.type,
          priority: p.priority,
          column_id: place.columnId,
          rank: place.rank,
          assignee_id: p.assignee?.id ?? null,
          reporter_id: p.reporter?.id ?? actor.userId,
          sprint_id: p.sprint ? (mapper.sprints.get(lower(p.sprint))?.id ?? null) : null,
          parent_id: null,
          story_points: nearestPoints(p.rec.storyPoints),
          estimate: p.rec.estimate ? cut(p.rec.estimate, LIMITS.ticketShortFieldMax) : null,
          start_date: p.rec.startDate,
          due_date: p.rec.dueDate,
          environment: p.rec.environment ? cut(p.rec.environment, LIMITS.ticketShortFieldMax) : null,
          affected_version: p.rec.affectedVersion
            ? cut(p.rec.affectedVersion, LIMITS.ticketShortFieldMax)
            : null,
          fix_version: p.rec.fixVersion ? cut(p.rec.fixVersion, LIMITS.ticketShortFieldMax) : null,
          is_carried_over: 0,
          carried_from_sprint_id: null,
          carried_over_count: 0,
          created_at: created,
          updated_at: p.rec.updatedAt ?? created,
        };
      });
      const insert = async <
        T extends 'tickets' | 'ticket_labels' | 'ticket_watchers' | 'comments' | 'import_sources',
      >(
        table: T,
        values: Record<string, unknown>[],
      ) => {
        const t0 = Date.now();
        for (let i = 0; i < values.length; i += CHUNK)
          await tx
            .insertInto(table)
            .values(values.slice(i, i + CHUNK) as never)
            .execute();
        if (process.env.IMPORT_PROFILE) console.log(table, values.length, Date.now() - t0);
      };
      await insert('tickets', tickets as never);
      await insert(
        'ticket_labels',
        batch.flatMap((p, i) =>
          p.labels.map((l) => ({
            ticket_id: tickets[i].id,
            label_id: mapper.labels.get(lower(l))?.id as string,
          })),
        ),
      );
      await insert(
        'ticket_watchers',
        tickets.map((t) => ({ ticket_id: t.id, user_id: t.reporter_id as string })),
      );
      await insert(
        'comments',
        batch.flatMap((p, i) =>
          p.comments.map((c) => ({
            id: newId(),
            ticket_id: tickets[i].id,
            author_id: c.author?.id ?? null,
            content: c.content,
            created_at: c.createdAt,
            updated_at: c.createdAt,
          })),
        ),
      );
      await insert(
        'import_sources',
        batch.map((p, i) => ({
          project_id: project.id,
          source: reader.source,
          source_id: p.rec.sourceId,
          ticket_id: tickets[i].id,
          source_key: p.rec.key,
          source_url: p.rec.url,
          created_at: now,
        })),
      );
      const inSprint = tickets.filter((t) => t.sprint_id);
      if (inSprint.length)
        await recordSprintChanges(
          tx,
          inSprint.map((t) => ({ ticket: t, from: null, to: t.sprint_id })),
          now,
        );
      return tickets;
    });
    return rows.map((t) => t.id);
  };

  const flush = async (records: SourceRecord[]) => {
    if (!records.length) return;
    const known = await remembered(records.map((r) => r.sourceId));
    const fresh: SourceRecord[] = [];
    for (const r of records) {
      const had = known.get(r.sourceId);
      if (had) {
        skipped++;
        refs.set(r.sourceId, had);
        if (r.key) refs.set(r.key, had);
      } else fresh.push(r);
    }
    const planned = fresh.map(plan);
    await createNames(planned);
    const ids = run.dryRun ? fresh.map((r) => r.sourceId) : planned.length ? await writeBatch(planned) : [];
    fresh.forEach((r, i) => {
      refs.set(r.sourceId, ids[i]);
      if (r.key) refs.set(r.key, ids[i]);
      if (r.parent || r.links.length)
        pending.push({ row: r.row, ticketId: ids[i], parent: r.parent, links: r.links });
      counts.comments += planned[i].comments.length;
    });
    counts.tickets += fresh.length;
  };

  let batch: SourceRecord[] = [];
  const readCtx = {
    file: run.file,
    mapping,
    problem,
    onBytes(n: number) {
      bytes = n;
    },
  };
  let lastReport = 0;
  for await (const rec of reader.read(readCtx)) {
    records++;
    if (seenIds.has(rec.sourceId)) {
      problem({
        row: rec.row,
        message: `The id ${rec.sourceId} appears again: only its first row is imported`,
      });
      continue;
    }
    seenIds.add(rec.sourceId);
    batch.push(rec);
    if (batch.length >= IMPORT_BATCH) {
      await flush(batch);
      batch = [];
    }
    if (records - lastReport >= 100) {
      lastReport = records;
      progress('reading');
    }
  }
  await flush(batch);
  seenIds.clear();
  progress('linking');
  await connect(ctx, project, reader.source, run.dryRun, refs, pending, problem, counts);
  if (dropped > 0) problems.push({ row: 0, message: `${dropped} more problems are not listed` });
  if (!run.dryRun && (counts.tickets > 0 || counts.columns > 0))
    await transactWrite(ctx, async (_tx, emit) => {
      emit({
        scope: 'project',
        type: 'project.imported',
        projectId: project.id,
        data: { id: project.id, ...counts },
      });
    });
  progress('done');
  return { dryRun: run.dryRun, counts, skipped, problems, found: mapper.found };
}

/**
 * Sets parents and writes links once every ticket of the run exists. A reference that is not in
 * this file is looked up among the project's earlier imports from the same source (by id, then key);
 * one that is nowhere, or that would make a ticket its own ancestor, is a problem.
 */
async function connect(
  ctx: Ctx,
  project: ProjectsTable,
  source: string,
  dryRun: boolean,
  refs: Map<string, string>,
  pending: { row: number; ticketId: string; parent: string | null; links: SourceRecord['links'] }[],
  problem: (p: ImportProblem) => void,
  counts: ImportResult['counts'],
) {
  const db = ctx.db.kysely;
  const missing = new Set<string>();
  for (const p of pending) {
    if (p.parent && !refs.has(p.parent)) missing.add(p.parent);
    for (const l of p.links) if (!refs.has(l.ref)) missing.add(l.ref);
  }
  const wanted = [...missing];
  for (let i = 0; i < wanted.length; i += CHUNK) {
    const part = wanted.slice(i, i + CHUNK);
    const rows = await db
      .selectFrom('import_sources')
      .select(['source_id', 'source_key', 'ticket_id'])
      .where('project_id', '=', project.id)
      .where('source', '=', source)
      .where((eb) => eb.or([eb('source_id', 'in', part), eb('source_key', 'in', part)]))
      .execute();
    for (const r of rows) {
      refs.set(r.source_id, r.ticket_id);
      if (r.source_key && !refs.has(r.source_key)) refs.set(r.source_key, r.ticket_id);
    }
  }
  // Parents: a new ticket may be the parent of another; refuse any assignment that closes a loop.
  const parentOf = new Map<string, string>();
  for (const p of pending) {
    if (!p.parent) continue;
    const parentId = refs.get(p.parent);
    if (!parentId) {
      problem({
        row: p.row,
        message: `The parent ${p.parent} is not in this import: imported without a parent`,
      });
      continue;
    }
    let up: string | undefined = parentId;
    let loop = false;
    for (let steps = 0; up && steps < 10_000; steps++) {
      if (up === p.ticketId) {
        loop = true;
        break;
      }
      up = parentOf.get(up);
    }
    if (loop) {
      problem({
        row: p.row,
        message: `The parent ${p.parent} would make the ticket its own ancestor: left out`,
      });
      continue;
    }
    parentOf.set(p.ticketId, parentId);
  }
  const links = new Map<string, { s: string; t: string; type: 'blocks' | 'duplicates' | 'relates_to' }>();
  for (const p of pending)
    for (const l of p.links) {
      const other = refs.get(l.ref);
      if (!other) {
        problem({ row: p.row, message: `The linked ticket ${l.ref} is not in this import: link left out` });
        continue;
      }
      if (other === p.ticketId) continue;
      const c = canonicalLink(p.ticketId, l.type, other);
      links.set(`${c.s}\u0000${c.t}\u0000${c.type}`, c);
    }
  if (dryRun) {
    counts.links = links.size;
    return;
  }
  const byParent = new Map<string, string[]>();
  for (const [child, parent] of parentOf) byParent.set(parent, [...(byParent.get(parent) ?? []), child]);
  const parents = [...byParent.entries()];
  const linkRows = [...links.values()];
  const now = nowIso();
  for (let i = 0; i < Math.max(parents.length, linkRows.length); i += IMPORT_BATCH) {
    await transactWrite(ctx, async (tx) => {
      for (const [parent, children] of parents.slice(i, i + IMPORT_BATCH))
        for (let k = 0; k < children.length; k += CHUNK)
          await tx
            .updateTable('tickets')
            .set({ parent_id: parent })
            .where('id', 'in', children.slice(k, k + CHUNK))
            .execute();
      const part = linkRows.slice(i, i + IMPORT_BATCH);
      for (let k = 0; k < part.length; k += CHUNK) {
        const res = await tx
          .insertInto('ticket_links')
          .values(
            part.slice(k, k + CHUNK).map((l) => ({
              id: newId(),
              source_ticket_id: l.s,
              target_ticket_id: l.t,
              link_type: l.type,
              created_by: ctx.actor?.userId ?? null,
              created_at: now,
            })),
          )
          .onConflict((oc) => oc.columns(['source_ticket_id', 'target_ticket_id', 'link_type']).doNothing())
          .executeTakeFirst();
        counts.links += Number(res.numInsertedOrUpdatedRows ?? 0);
      }
    });
  }
}
