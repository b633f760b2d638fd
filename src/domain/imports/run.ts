/**
 * The import (docs/import.md, docs/decisions/055-strict-imports.md), in named steps:
 *
 * 1. `expectFormat`: the file's first bytes must look like the chosen format (sniff.ts).
 * 2. `checkFile`: the whole file is read strictly (csv.ts, json.ts); anything malformed refuses the
 *    file before a row is written. A dry run is this pass with the mapping applied (`planBatch`)
 *    and the references resolved (`connect`): what would be created, and every problem.
 * 3. `writeFile`: a real run reads the file again and writes it in one transaction — the board's
 *    columns locked, then batch by batch (`planBatch`, `createNames`, `insertTickets`), then parents
 *    and links (`connect`) and the `project.imported` event — so a file is imported whole or not at
 *    all. Source ids are remembered in `import_sources`: a second run skips what the first made.
 */
import type {
  ImportFileProblem,
  ImportFormat,
  ImportMapping,
  ImportProblem,
  ImportResult,
} from '../../shared/imports.js';
import { MAX_IMPORT_PROBLEMS } from '../../shared/imports.js';
import { projectAccess } from '../access.js';
import { lockBoard, tryLockColumn } from '../board-ranks.js';
import type { Ctx, Tx } from '../context.js';
import { transactWrite } from '../races.js';
import { readGenericCsv, readJiraCsv, readLinearCsv } from './csv.js';
import { readGithubJson, readTrelloJson } from './json.js';
import { connect, type PendingRefs } from './link.js';
import { Mapper } from './mapper.js';
import { type Planned, planRecord } from './plan.js';
import { ImportRefusal, refusalError } from './refusal.js';
import { expectFormat, sniffFile } from './sniff.js';
import { IMPORT_BATCH, type ReadContext, type Reader, type SourceRecord } from './source.js';
import { createNames, insertTickets, remembered, type Writer } from './write.js';

interface Source {
  read: Reader;
  /** The name its source ids are remembered under. */
  source: string;
  /** Its name in descriptions ("Imported from Jira: …"). */
  label: string;
}

const SOURCES: Record<ImportFormat, Source> = {
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
  /** Checking the whole file first, then (a real run) writing it, then parents and links. */
  phase: 'checking' | 'reading' | 'linking' | 'done';
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

/** Where an import stands: the project, the source, what it counted and what went wrong. */
interface Job {
  ctx: Ctx;
  run: ImportRun;
  project: Writer['project'];
  actorId: string;
  src: Source;
  counts: ImportResult['counts'];
  skipped: number;
  problems: ImportProblem[];
  dropped: number;
  malformed: ImportFileProblem[];
  malformedMore: number;
}

export async function importTickets(ctx: Ctx, projectRef: string, run: ImportRun): Promise<ImportResult> {
  const { project, actor } = await projectAccess(ctx, ctx.db.kysely, projectRef, 'admin');
  const job = (): Job => ({
    ctx,
    run,
    project,
    actorId: actor.userId,
    src: SOURCES[run.format],
    counts: { tickets: 0, comments: 0, labels: 0, columns: 0, links: 0 },
    skipped: 0,
    problems: [],
    dropped: 0,
    malformed: [],
    malformedMore: 0,
  });
  try {
    expectFormat(run.format, await sniffFile(run.file));
    const checked = await checkFile(job());
    const result = run.dryRun ? checked : await writeFile(job);
    progress(job(), 'done', 0);
    return result as ImportResult;
  } catch (err) {
    if (err instanceof ImportRefusal) throw refusalError(err);
    throw err;
  }
}

function progress(job: Job, phase: ImportProgress['phase'], records: number, bytes = job.run.fileSize) {
  job.run.onProgress?.({ bytes, totalBytes: job.run.fileSize, records, phase });
}

function problem(job: Job, p: ImportProblem) {
  if (job.problems.length < MAX_IMPORT_PROBLEMS) job.problems.push(p);
  else job.dropped++;
}

/**
 * One pass over the file: its records in batches, each source id once (a repeat is a problem).
 * Malformed input is collected in `job.malformed` (the reader goes on where it can, to find more).
 */
async function* recordBatches(job: Job, phase: ImportProgress['phase']): AsyncGenerator<SourceRecord[]> {
  let bytes = 0;
  let records = 0;
  const rc: ReadContext = {
    file: job.run.file,
    mapping: job.run.mapping ?? {},
    problem: (p) => problem(job, p),
    malformed: (p) => {
      // Enough to show; the rest only counted (a file whose every row is wrong may have millions).
      if (job.malformed.length < MAX_IMPORT_PROBLEMS) job.malformed.push(p);
      else job.malformedMore++;
    },
    onBytes: (n) => {
      bytes = n;
    },
  };
  const seen = new Set<string>();
  let batch: SourceRecord[] = [];
  for await (const rec of job.src.read(rc)) {
    if (++records % 100 === 0) progress(job, phase, records, bytes);
    if (seen.has(rec.sourceId)) {
      problem(job, {
        row: rec.row,
        ...(rec.line ? { line: rec.line } : {}),
        message: `The id ${rec.sourceId} appears again: only its first row is imported`,
      });
      continue;
    }
    seen.add(rec.sourceId);
    batch.push(rec);
    if (batch.length >= IMPORT_BATCH) {
      yield batch;
      batch = [];
    }
  }
  if (batch.length) yield batch;
  progress(job, phase, records, bytes);
}

/** Refuses the file when the pass found it malformed. */
function refuseMalformed(job: Job) {
  if (!job.malformed.length) return;
  const more = job.malformedMore ? [{ message: `${job.malformedMore} more problems are not listed` }] : [];
  throw new ImportRefusal('malformed', [...job.malformed, ...more]);
}

/**
 * The project's columns, labels and sprints and the instance's people, as the mapping sees them.
 * In a real run (`lockWith`), the columns are locked first, in id order (then the board), as every
 * writer takes them: new tickets are appended to them until the transaction ends.
 */
async function mapperFor(job: Job, db: Tx, lockWith?: Tx): Promise<Mapper> {
  const projectId = job.project.id;
  const [columnRows, labelRows, sprintRows, users, memberRows] = await Promise.all([
    db
      .selectFrom('columns')
      .select(['id', 'name', 'rank'])
      .where('project_id', '=', projectId)
      .orderBy('rank')
      .execute(),
    db.selectFrom('labels').select(['id', 'name']).where('project_id', '=', projectId).execute(),
    db.selectFrom('sprints').select(['id', 'name']).where('project_id', '=', projectId).execute(),
    db.selectFrom('users').select(['id', 'username', 'email', 'name']).where('is_active', '=', 1).execute(),
    db.selectFrom('project_members').select('user_id').where('project_id', '=', projectId).execute(),
  ]);
  let columns = columnRows;
  if (lockWith) {
    const locked = new Set<string>();
    for (const c of [...columnRows].sort((a, b) => (a.id < b.id ? -1 : 1)))
      if (await tryLockColumn(job.ctx, lockWith, c.id)) locked.add(c.id);
    await lockBoard(job.ctx, lockWith, projectId);
    columns = columnRows.filter((c) => locked.has(c.id));
  }
  const members = new Set(memberRows.map((m) => m.user_id));
  return new Mapper(job.run.mapping ?? {}, columns, labelRows, sprintRows, users, members);
}

/**
 * The records of a batch not imported before, in Docket's terms (archived ones left out when the
 * mapping says so); the others are counted in `skipped`.
 */
async function planBatch(job: Job, db: Tx, mapper: Mapper, records: SourceRecord[]): Promise<Planned[]> {
  const known = await remembered(
    db,
    job.project.id,
    job.src.source,
    records.map((r) => r.sourceId),
  );
  const planned: Planned[] = [];
  for (const r of records) {
    if (known.has(r.sourceId)) job.skipped++;
    else {
      const p = planRecord(mapper, job.src.label, r, (x) => problem(job, x));
      if (p) planned.push(p);
    }
  }
  return planned;
}

/** What a ticket names of others, kept for `connect`. */
const refsOf = (p: Planned, ticketId: string): PendingRefs | null =>
  p.rec.parent || p.rec.links.length
    ? { row: p.rec.row, line: p.rec.line, ticketId, parent: p.rec.parent, links: p.rec.links }
    : null;

/**
 * The first pass: the whole file read strictly, nothing written. A real run only reads (the write
 * pass maps); a dry run maps every record and resolves references, and answers what would be done.
 */
async function checkFile(job: Job): Promise<ImportResult | null> {
  if (!job.run.dryRun) {
    for await (const _ of recordBatches(job, 'checking'));
    refuseMalformed(job);
    return null;
  }
  const db = job.ctx.db.kysely;
  const mapper = await mapperFor(job, db);
  const w: Writer = { ...job, tx: null, emit: () => {}, mapper, source: job.src.source };
  // A dry run writes nothing to look references up in: the ids and keys of its records.
  const refs = new Map<string, string>();
  const pending: PendingRefs[] = [];
  for await (const records of recordBatches(job, 'checking')) {
    if (job.malformed.length) continue;
    const planned = await planBatch(job, db, mapper, records);
    await createNames(w, planned);
    for (const p of planned) {
      refs.set(p.rec.sourceId, p.rec.sourceId);
      if (p.rec.key) refs.set(p.rec.key, p.rec.sourceId);
      const r = refsOf(p, p.rec.sourceId);
      if (r) pending.push(r);
      job.counts.comments += p.comments.length;
    }
    job.counts.tickets += planned.length;
  }
  refuseMalformed(job);
  progress(job, 'linking', 0);
  await connect(w, refs, pending, (x) => problem(job, x));
  return resultOf(job, mapper);
}

/**
 * The second pass of a real run: the file read again and written in one transaction. A file that
 * turns out malformed now (it changed since the first pass) is refused and nothing is kept.
 */
async function writeFile(fresh: () => Job): Promise<ImportResult> {
  let job = fresh();
  return transactWrite(job.ctx, async (tx, emit) => {
    // transactWrite runs this again after a deadlock: each attempt starts from nothing.
    job = fresh();
    const mapper = await mapperFor(job, tx, tx);
    const w: Writer = { ...job, tx, emit, mapper, source: job.src.source };
    const pending: PendingRefs[] = [];
    for await (const records of recordBatches(job, 'reading')) {
      if (job.malformed.length) continue;
      const planned = await planBatch(job, tx, mapper, records);
      if (!planned.length) continue;
      await createNames(w, planned);
      const ids = await insertTickets(w, tx, planned);
      planned.forEach((p, i) => {
        const r = refsOf(p, ids[i]);
        if (r) pending.push(r);
        job.counts.comments += p.comments.length;
      });
      job.counts.tickets += planned.length;
    }
    refuseMalformed(job);
    progress(job, 'linking', 0);
    await connect(w, new Map(), pending, (x) => problem(job, x));
    if (job.counts.tickets > 0 || job.counts.columns > 0)
      emit({
        scope: 'project',
        type: 'project.imported',
        projectId: job.project.id,
        data: { id: job.project.id, ...job.counts },
      });
    return resultOf(job, mapper);
  });
}

function resultOf(job: Job, mapper: Mapper): ImportResult {
  const problems = [...job.problems];
  if (job.dropped > 0) problems.push({ row: 0, message: `${job.dropped} more problems are not listed` });
  return { dryRun: job.run.dryRun, counts: job.counts, skipped: job.skipped, problems, found: mapper.found };
}
