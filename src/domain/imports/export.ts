/**
 * The ticket export (docs/import.md): any ticket list the project list answers (the same filters and
 * `query=` search, src/domain/ticket-reads.ts) as rows of EXPORT_COLUMNS, for CSV and JSON. The
 * generic CSV importer reads the CSV back with every exported field.
 */
import { stringify } from 'csv-stringify/sync';
import { EXPORT_COLUMNS, type ExportRow } from '../../shared/imports.js';
import type { TicketListQuery } from '../../shared/tickets.js';
import { projectAccess } from '../access.js';
import { audit } from '../audit.js';
import type { Ctx } from '../context.js';
import { listTicketsOf } from '../ticket-reads.js';
import { joinLabels } from './csv.js';

const CHUNK = 500;

export async function exportTickets(
  ctx: Ctx,
  projectRef: string,
  q: TicketListQuery,
  format: 'csv' | 'json',
) {
  const db = ctx.db.kysely;
  const { project } = await projectAccess(ctx, db, projectRef);
  const { items } = await listTicketsOf(ctx, project, q);
  const [columns, sprints] = await Promise.all([
    db.selectFrom('columns').select(['id', 'name']).where('project_id', '=', project.id).execute(),
    db.selectFrom('sprints').select(['id', 'name']).where('project_id', '=', project.id).execute(),
  ]);
  const columnName = new Map(columns.map((c) => [c.id, c.name]));
  const sprintName = new Map(sprints.map((s) => [s.id, s.name]));
  const userIds = [
    ...new Set(items.flatMap((t) => [t.assigneeId, t.reporterId]).filter((x): x is string => !!x)),
  ];
  const parentIds = [...new Set(items.map((t) => t.parentId).filter((x): x is string => !!x))];
  const usernames = new Map<string, string>();
  const parentKeys = new Map<string, string>();
  for (let i = 0; i < userIds.length; i += CHUNK) {
    const rows = await db
      .selectFrom('users')
      .select(['id', 'username'])
      .where('id', 'in', userIds.slice(i, i + CHUNK))
      .execute();
    for (const r of rows) usernames.set(r.id, r.username);
  }
  for (let i = 0; i < parentIds.length; i += CHUNK) {
    const rows = await db
      .selectFrom('tickets')
      .select(['id', 'number'])
      .where('id', 'in', parentIds.slice(i, i + CHUNK))
      .execute();
    for (const r of rows) parentKeys.set(r.id, `${project.key}-${r.number}`);
  }
  const rows: ExportRow[] = items.map((t) => ({
    key: t.key,
    title: t.title,
    type: t.type,
    priority: t.priority,
    status: columnName.get(t.columnId) ?? '',
    assignee: t.assigneeId ? (usernames.get(t.assigneeId) ?? null) : null,
    reporter: t.reporterId ? (usernames.get(t.reporterId) ?? null) : null,
    labels: t.labels.map((l) => l.name),
    storyPoints: t.storyPoints,
    sprint: t.sprintId ? (sprintName.get(t.sprintId) ?? null) : null,
    startDate: t.startDate,
    dueDate: t.dueDate,
    created: t.createdAt,
    updated: t.updatedAt,
    parent: t.parentId ? (parentKeys.get(t.parentId) ?? null) : null,
    description: t.description,
    estimate: t.estimate,
    environment: t.environment,
    affectedVersion: t.affectedVersion,
    fixVersion: t.fixVersion,
  }));
  // Recorded before the download is sent: who took which tickets out, and how many (decision 058).
  await audit(db, ctx, {
    action: 'project.tickets_exported',
    target: { type: 'project', id: project.id },
    details: {
      project: project.key,
      format,
      count: rows.length,
      filters: Object.fromEntries(Object.entries(q).filter(([, v]) => v !== undefined)),
    },
  });
  return { project, rows };
}

/** The rows as CSV text: a header row, then one ticket a row (labels joined by commas, escaped). */
export function exportCsv(rows: ExportRow[]): string {
  return stringify(
    rows.map((r) => EXPORT_COLUMNS.map((c) => (c === 'labels' ? joinLabels(r.labels) : (r[c] ?? '')))),
    { header: true, columns: [...EXPORT_COLUMNS], bom: false },
  );
}
