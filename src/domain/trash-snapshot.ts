import type { Insertable } from 'kysely';
import type {
  AttachmentsTable,
  CommentsTable,
  Database,
  ImportSourcesTable,
  SprintTicketHistoryTable,
  TicketHistoryTable,
  TicketLinksTable,
  TicketsTable,
  UploadRefsTable,
} from '../db/types.js';
import type { Tx } from './context.js';
import { newId } from './ids.js';

/**
 * What the trash keeps of a deleted ticket (docs/decisions/048-trash-and-undo.md): its row and every
 * row that depends on it, as they were stored, so that a restore puts back the same ticket. Labels
 * carry their names, so that a restore can say which one it could not put back. Notifications are
 * not kept: they were about what happened before, and nobody needs them again.
 */
export interface TrashSnapshot {
  version: 1;
  ticket: TicketsTable;
  labels: { id: string; name: string }[];
  watchers: string[];
  links: TicketLinksTable[];
  comments: CommentsTable[];
  attachments: AttachmentsTable[];
  history: TicketHistoryTable[];
  sprints: SprintTicketHistoryTable[];
  imports: ImportSourcesTable[];
  /** Its subtasks when it was deleted (they were detached); a restore attaches those still free. */
  children: string[];
  /**
   * The uploaded files its description and comments showed (decision 058); absent in snapshots
   * made before migration 115, whose restore records them from the texts.
   */
  uploads?: UploadRefsTable[];
}

/**
 * Inserts rows 500 at a time: a ticket may have thousands of comments or history entries, and a
 * statement's bound values are limited (32,766 on SQLite).
 */
export async function insertChunked<T extends keyof Database>(
  tx: Tx,
  table: T,
  rows: Insertable<Database[T]>[],
): Promise<void> {
  for (let i = 0; i < rows.length; i += 500)
    await tx
      .insertInto(table)
      .values(rows.slice(i, i + 500) as never)
      .execute();
}

const groupBy = <T>(rows: T[], key: (r: T) => string) => {
  const out = new Map<string, T[]>();
  for (const r of rows) {
    const k = key(r);
    const list = out.get(k);
    if (list) list.push(r);
    else out.set(k, [r]);
  }
  return out;
};

/** The snapshots of tickets about to be deleted, read in the deleting transaction. */
export async function snapshotTickets(tx: Tx, tickets: TicketsTable[]): Promise<TrashSnapshot[]> {
  const ids = tickets.map((t) => t.id);
  const [labels, watchers, links, comments, attachments, history, sprints, imports, children, uploads] =
    await Promise.all([
      tx
        .selectFrom('ticket_labels')
        .innerJoin('labels', 'labels.id', 'ticket_labels.label_id')
        .select(['ticket_labels.ticket_id', 'labels.id', 'labels.name'])
        .where('ticket_labels.ticket_id', 'in', ids)
        .execute(),
      tx.selectFrom('ticket_watchers').selectAll().where('ticket_id', 'in', ids).execute(),
      tx
        .selectFrom('ticket_links')
        .selectAll()
        .where((eb) => eb.or([eb('source_ticket_id', 'in', ids), eb('target_ticket_id', 'in', ids)]))
        .execute(),
      tx.selectFrom('comments').selectAll().where('ticket_id', 'in', ids).orderBy('created_at').execute(),
      tx.selectFrom('attachments').selectAll().where('ticket_id', 'in', ids).orderBy('created_at').execute(),
      tx
        .selectFrom('ticket_history')
        .selectAll()
        .where('ticket_id', 'in', ids)
        .orderBy('changed_at')
        .execute(),
      tx.selectFrom('sprint_ticket_history').selectAll().where('ticket_id', 'in', ids).execute(),
      tx.selectFrom('import_sources').selectAll().where('ticket_id', 'in', ids).execute(),
      tx.selectFrom('tickets').select(['id', 'parent_id']).where('parent_id', 'in', ids).execute(),
      tx.selectFrom('upload_refs').selectAll().where('ticket_id', 'in', ids).execute(),
    ]);
  const byTicket = <T extends { ticket_id: string }>(rows: T[]) => groupBy(rows, (r) => r.ticket_id);
  const labelsOf = byTicket(labels);
  const watchersOf = byTicket(watchers);
  const commentsOf = byTicket(comments);
  const attachmentsOf = byTicket(attachments);
  const historyOf = byTicket(history);
  const sprintsOf = byTicket(sprints);
  const importsOf = byTicket(imports);
  const childrenOf = groupBy(children, (c) => c.parent_id ?? '');
  const uploadsOf = groupBy(uploads, (u) => u.ticket_id ?? '');
  return tickets.map((ticket) => ({
    version: 1 as const,
    ticket,
    labels: (labelsOf.get(ticket.id) ?? []).map((l) => ({ id: l.id, name: l.name })),
    watchers: (watchersOf.get(ticket.id) ?? []).map((w) => w.user_id),
    links: links.filter((l) => l.source_ticket_id === ticket.id || l.target_ticket_id === ticket.id),
    comments: commentsOf.get(ticket.id) ?? [],
    attachments: attachmentsOf.get(ticket.id) ?? [],
    history: historyOf.get(ticket.id) ?? [],
    sprints: sprintsOf.get(ticket.id) ?? [],
    imports: importsOf.get(ticket.id) ?? [],
    children: (childrenOf.get(ticket.id) ?? []).map((c) => c.id),
    uploads: uploadsOf.get(ticket.id) ?? [],
  }));
}

/**
 * Puts tickets about to be deleted into the trash, in the deleting transaction; returns the trash
 * ids in the order of `tickets`. Their attachment files stay in the store (`trashed_files`).
 */
export async function trashTickets(
  tx: Tx,
  tickets: TicketsTable[],
  by: string,
  now: string,
): Promise<string[]> {
  if (tickets.length === 0) return [];
  const snapshots = await snapshotTickets(tx, tickets);
  const rows = snapshots.map((s) => ({
    id: newId(),
    project_id: s.ticket.project_id,
    ticket_id: s.ticket.id,
    number: s.ticket.number,
    title: s.ticket.title,
    type: s.ticket.type,
    deleted_by: by,
    deleted_at: now,
    snapshot: JSON.stringify(s),
  }));
  await insertChunked(tx, 'trashed_tickets', rows);
  const files = snapshots.flatMap((s, i) =>
    s.attachments.map((a) => ({ stored_name: a.stored_name, trash_id: rows[i].id })),
  );
  await insertChunked(tx, 'trashed_files', files);
  return rows.map((r) => r.id);
}
