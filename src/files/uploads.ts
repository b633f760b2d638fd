import type { Logger, Tx } from '../domain/context.js';
import { type FileKind, type FileStore, generateStoredName } from './storage.js';
import { discardReceived, type ReceivedFile } from './validate.js';

/**
 * Moves a checked upload into the store under a fresh generated name, then lets `record` insert
 * its row. The file is in place before the row exists, and it is removed again when the insert
 * fails, so no record ever points at a missing or half-written file.
 */
export async function storeReceived<T>(
  store: FileStore,
  file: ReceivedFile,
  kind: FileKind,
  record: (storedName: string) => Promise<T>,
): Promise<T> {
  const name = generateStoredName(file.extension);
  try {
    await store.importFile(kind, name, file.tempPath);
  } catch (err) {
    await discardReceived(file);
    throw err;
  }
  try {
    return await record(name);
  } catch (err) {
    await store.remove(kind, name).catch(() => {});
    throw err;
  }
}

/** Stored names of the attachments of these tickets; read them before deleting the tickets. */
export async function attachmentFilesOfTickets(tx: Tx, ticketIds: readonly string[]): Promise<string[]> {
  if (ticketIds.length === 0) return [];
  const rows = await tx
    .selectFrom('attachments')
    .select('stored_name')
    .where('ticket_id', 'in', [...ticketIds])
    .execute();
  return rows.map((r) => r.stored_name);
}

/**
 * Removes attachment files after the transaction that deleted their rows committed (ticket,
 * project or user deletion). A file that cannot be removed is logged, never an error for the caller.
 */
export async function removeAttachmentFiles(
  s: { files: FileStore; log: Logger },
  names: readonly string[],
): Promise<void> {
  for (const name of names) {
    await s.files
      .remove('attachments', name)
      .catch((err) => s.log.warn({ err, name }, 'could not remove an attachment file'));
  }
}
