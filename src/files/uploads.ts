import type { Logger } from '../domain/context.js';
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

/**
 * Removes files after the transaction that deleted their rows committed (an attachment, a ticket,
 * a project, a user, a wipe): the rows go first, so no record ever points at a missing file. A file
 * that cannot be removed is logged, never an error for the caller.
 */
export async function removeStoredFiles(
  s: { files: FileStore; log: Logger },
  kind: FileKind,
  names: readonly string[],
): Promise<void> {
  for (const name of names) {
    await s.files
      .remove(kind, name)
      .catch((err) => s.log.warn({ err, kind, name }, 'could not remove a file'));
  }
}
