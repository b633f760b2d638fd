/**
 * The import (docs/import.md): reads a source file record by record (importers in csv.ts and
 * json.ts), maps each record's statuses, types, priorities, people and labels to the project's
 * (the mapping, else defaults), and writes tickets in batches, one transaction per batch. A dry run
 * takes the same way and writes nothing. Source ids are remembered in `import_sources`, so a second
 * run skips what the first one made; parents and links are set at the end, when every ticket they
 * name exists.
 */
import type { ColumnsTable, TicketsTable } from '../../db/types.js';
import type { Priority, TicketType } from '../../shared/enums.js';
import {
  type ImportFormat,
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
import { connect } from './link.js';
import { cut, lower, Mapper, nearestPoints, type UserRow } from './mapper.js';
import { IMPORT_CHUNK as CHUNK, IMPORT_BATCH, type Reader, type SourceRecord } from './source.js';

const READERS: Record<ImportFormat, { read: Reader; source: string; label: string }> = {
  'jira-csv': { read: readJiraCsv, source: 'jira', label: 'Jira' },
  'github-json': { read: readGithubJson, source: 'github', label: 'GitHub' },
  'linear-csv': { read: readLinearCsv, source: 'linear', label: 'Linear' },
  'trello-json': { read: readTrelloJson, source: 'trello', label: 'Trello' },
  csv: { read: readGenericCsv, source: 'csv', label: 'CSV' },
};

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

  /**
   * A dry run's source ids and keys (it writes nothing to look them up in). A real run keeps none:
   * each batch's rows in import_sources are committed, and the references are resolved from there
   * once the file is read (`connect`), so memory does not grow with the file.
   */
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
    // Attachments stay in the source (fetching them would need the source's credentials): a link each.
    for (const a of rec.attachments.slice(0, 50))
      notes.push(
        `Attachment in ${reader.label}: [${a.name.replace(/[[\]\\]/g, '\\$&')}](<${a.url.replace(/[<>\s]/g, encodeURIComponent)}>)`,
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
      if (had) skipped++;
      else fresh.push(r);
    }
    const planned = fresh.map(plan);
    await createNames(planned);
    const ids = run.dryRun ? fresh.map((r) => r.sourceId) : planned.length ? await writeBatch(planned) : [];
    fresh.forEach((r, i) => {
      if (run.dryRun) {
        refs.set(r.sourceId, ids[i]);
        if (r.key) refs.set(r.key, ids[i]);
      }
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
