import { FILE_KINDS, type FileKind, type FileStore } from './storage.js';

export interface MoveProgress {
  done: number;
  total: number;
  bytes: number;
}

export interface MoveResult {
  /** Files copied to the target (and then removed from the source). */
  moved: number;
  /** Files the target already had whole (a run that was interrupted): only removed from the source. */
  alreadyThere: number;
  bytes: number;
}

/**
 * Moves every stored file from one store to the other (`docket files migrate`), one file at a time:
 * streamed into the target, its size checked there, then removed from the source. A file is always
 * whole in at least one store, so an interrupted run loses nothing and a second run goes on where it
 * stopped. Run it while no instance writes files (decision 041).
 */
export async function moveFiles(
  from: FileStore,
  to: FileStore,
  onProgress: (p: MoveProgress) => void = () => {},
): Promise<MoveResult> {
  const work: { kind: FileKind; name: string }[] = [];
  for (const kind of FILE_KINDS) for (const name of await from.list(kind)) work.push({ kind, name });
  const result: MoveResult = { moved: 0, alreadyThere: 0, bytes: 0 };
  onProgress({ done: 0, total: work.length, bytes: 0 });
  for (const [i, { kind, name }] of work.entries()) {
    const source = await from.stat(kind, name);
    if (!source) continue; // removed meanwhile
    const existing = await to.stat(kind, name);
    if (existing?.size === source.size) {
      result.alreadyThere++;
    } else {
      await to.write(kind, name, from.read(kind, name));
      const copied = await to.stat(kind, name);
      if (copied?.size !== source.size)
        throw new Error(`${kind}/${name}: ${copied?.size ?? 'no'} bytes arrived of ${source.size}`);
      result.moved++;
      result.bytes += source.size;
    }
    await from.remove(kind, name);
    onProgress({ done: i + 1, total: work.length, bytes: result.bytes });
  }
  return result;
}
