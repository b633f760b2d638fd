import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';

export type FileKind = 'avatars' | 'attachments' | 'files';
export const FILE_KINDS: readonly FileKind[] = ['avatars', 'attachments', 'files'];

/**
 * Where uploaded files live. The disk implementation is the only one today; the interface is small
 * so that an S3-compatible store can be added without touching the use cases.
 */
export interface FileStore {
  /** Writes atomically (temporary file, then rename); a crash never leaves a half file under `name`. */
  write(kind: FileKind, name: string, data: Buffer | NodeJS.ReadableStream): Promise<void>;
  read(kind: FileKind, name: string): NodeJS.ReadableStream;
  stat(kind: FileKind, name: string): Promise<{ size: number } | null>;
  remove(kind: FileKind, name: string): Promise<void>;
  list(kind: FileKind): Promise<string[]>;
  /** Removes everything (wipe and restore). */
  clear(): Promise<void>;
  /** Absolute path, for streaming with ranges. */
  pathOf(kind: FileKind, name: string): string;
  /**
   * A fresh path for a local temporary file (an upload being received). It lives on the same file
   * system as the store, so that `importFile` can move it in with one atomic rename.
   */
  createTempPath(): Promise<string>;
  /** Moves a complete temporary file in under `name` (disk: fsync, then an atomic rename). */
  importFile(kind: FileKind, name: string, tempPath: string): Promise<void>;
}

/** `<timestamp>-<random>.<extension>`: server-generated, never colliding, never traversing. */
export function generateStoredName(extension: string): string {
  const ext = extension
    .replace(/[^a-z0-9]/gi, '')
    .toLowerCase()
    .slice(0, 10);
  return `${Date.now()}-${randomBytes(8).toString('hex')}${ext ? `.${ext}` : ''}`;
}

const SAFE_NAME = /^[0-9]+-[0-9a-f]+(\.[a-z0-9]+)?$/;
export const isSafeStoredName = (name: string) => SAFE_NAME.test(name);

/** Temporary files older than this are left-overs of a crash and are swept. */
const STALE_TEMP_MS = 24 * 60 * 60 * 1000;

export class DiskFileStore implements FileStore {
  private swept = false;

  constructor(private readonly root: string) {}

  private get incoming() {
    return path.join(this.root, '.incoming');
  }

  async createTempPath(): Promise<string> {
    await fsp.mkdir(this.incoming, { recursive: true });
    if (!this.swept) {
      this.swept = true;
      await this.sweepStaleTemp().catch(() => {});
    }
    return path.join(this.incoming, `${Date.now()}-${randomBytes(8).toString('hex')}.part`);
  }

  private async sweepStaleTemp() {
    const cutoff = Date.now() - STALE_TEMP_MS;
    for (const entry of await fsp.readdir(this.incoming)) {
      const full = path.join(this.incoming, entry);
      const s = await fsp.stat(full).catch(() => null);
      if (s?.isFile() && s.mtimeMs < cutoff) await fsp.rm(full, { force: true });
    }
  }

  async importFile(kind: FileKind, name: string, tempPath: string): Promise<void> {
    const final = this.pathOf(kind, name);
    await fsp.mkdir(path.dirname(final), { recursive: true });
    const fh = await fsp.open(tempPath, 'r+');
    try {
      await fh.sync();
    } finally {
      await fh.close();
    }
    try {
      await fsp.rename(tempPath, final);
    } catch (err) {
      if ((err as { code?: string }).code !== 'EXDEV') throw err;
      // A data directory spread over file systems: copy next to the target, then rename there.
      await this.write(kind, name, fs.createReadStream(tempPath));
      await fsp.rm(tempPath, { force: true });
    }
  }

  pathOf(kind: FileKind, name: string): string {
    if (!FILE_KINDS.includes(kind) || !isSafeStoredName(name)) throw new Error(`Unsafe stored name: ${name}`);
    return path.join(this.root, kind, name);
  }

  async write(kind: FileKind, name: string, data: Buffer | NodeJS.ReadableStream): Promise<void> {
    const final = this.pathOf(kind, name);
    await fsp.mkdir(path.dirname(final), { recursive: true });
    const tmp = path.join(this.root, kind, `.tmp-${randomBytes(8).toString('hex')}`);
    try {
      if (Buffer.isBuffer(data)) {
        const fh = await fsp.open(tmp, 'w');
        try {
          await fh.writeFile(data);
          await fh.sync();
        } finally {
          await fh.close();
        }
      } else {
        await pipeline(data, fs.createWriteStream(tmp));
        const fh = await fsp.open(tmp, 'r+');
        try {
          await fh.sync();
        } finally {
          await fh.close();
        }
      }
      await fsp.rename(tmp, final);
    } catch (err) {
      await fsp.rm(tmp, { force: true });
      throw err;
    }
  }

  read(kind: FileKind, name: string): NodeJS.ReadableStream {
    return fs.createReadStream(this.pathOf(kind, name));
  }

  async stat(kind: FileKind, name: string): Promise<{ size: number } | null> {
    try {
      const s = await fsp.stat(this.pathOf(kind, name));
      return { size: s.size };
    } catch {
      return null;
    }
  }

  async remove(kind: FileKind, name: string): Promise<void> {
    if (!isSafeStoredName(name)) return;
    await fsp.rm(this.pathOf(kind, name), { force: true });
  }

  async list(kind: FileKind): Promise<string[]> {
    try {
      return (await fsp.readdir(path.join(this.root, kind))).filter(isSafeStoredName).sort();
    } catch {
      return [];
    }
  }

  async clear(): Promise<void> {
    for (const kind of FILE_KINDS) await fsp.rm(path.join(this.root, kind), { recursive: true, force: true });
  }
}
