import type { Tx } from './context.js';

/**
 * Deletes projects and everything in them (the foreign keys cascade) and returns the stored names
 * of their attachment files (those in the trash too), which the caller removes from the file store after the commit.
 */
export async function removeProjects(tx: Tx, projectIds: string[]): Promise<string[]> {
  if (projectIds.length === 0) return [];
  const files = await tx
    .selectFrom('attachments')
    .innerJoin('tickets', 'tickets.id', 'attachments.ticket_id')
    .select('attachments.stored_name')
    .where('tickets.project_id', 'in', projectIds)
    .execute();
  // And the files its trash keeps (decision 048); the trash rows go with the project.
  const trashed = await tx
    .selectFrom('trashed_files')
    .innerJoin('trashed_tickets', 'trashed_tickets.id', 'trashed_files.trash_id')
    .select('trashed_files.stored_name')
    .where('trashed_tickets.project_id', 'in', projectIds)
    .execute();
  // Tickets first: they reference columns and sprints of the same project.
  await tx.deleteFrom('tickets').where('project_id', 'in', projectIds).execute();
  await tx.deleteFrom('projects').where('id', 'in', projectIds).execute();
  return [...files, ...trashed].map((f) => f.stored_name);
}
