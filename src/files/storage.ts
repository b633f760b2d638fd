import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';

export type FileKind = 'avatars' | 'attachments' | 'files';
export const FILE_KINDS: readonly FileKind[] = ['avatars', 'attachments', 'files'];

/** Bytes `start` to `end` of a file, both included (an HTTP byte range). */
export interface ByteRange {
  start: number;
  end: number;
}

/** The headers a presigned download is answered with (the bucket sends them, not Docket). */
export interface DownloadHeaders {
  contentType: string;
  contentDisposition: string;
  cacheControl: string;
}

/**
 * Where uploaded files live: the data directory (`DiskFileStore`, the default) or an S3-compatible
 * bucket (`S3FileStore` in s3-store.ts); `openFileStore` (open-store.ts) picks one from the
 * configuration. The use cases see only this interface.
 */
export interface FileStore {
  /** Which store this is (`docket files migrate`, logs). */
  readonly name: 'disk' | 's3';
  /** Writes atomically: a crash or an error never leaves a half file under `name`. Streams, never buffers. */
  write(kind: FileKind, name: string, data: Buffer | NodeJS.ReadableStream): Promise<void>;
  /** The file's bytes (or one range of them), streamed; a missing file errors the stream. */
  read(kind: FileKind, name: string, range?: ByteRange): NodeJS.ReadableStream;
  /** Size and time of last change, or null when there is no such file. */
  stat(kind: FileKind, name: string): Promise<{ size: number; modified: Date } | null>;
  remove(kind: FileKind, name: string): Promise<void>;
  list(kind: FileKind): Promise<string[]>;
  /** Removes everything (wipe and restore). */
  clear(): Promise<void>;
  /**
   * A fresh path for a local temporary file (an upload being received, its content checked). For
   * the disk store it lives on the store's file system, so that `importFile` is one atomic rename.
   */
  createTempPath(): Promise<string>;
  /** Moves a complete temporary file in under `name` (disk: fsync, then an atomic rename; S3: upload, then remove). */
  importFile(kind: FileKind, name: string, tempPath: string): Promise<void>;
  /** A short-lived URL that serves the file directly with these headers, when the store offers one and is set to. */
  downloadUrl(kind: FileKind, name: string, headers: DownloadHeaders): Promise<string | null>;
  /** Lets go of connections (the app closes). */
  close(): void;
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

/**
 * The local directory where uploads are received (`<uploads>/.incoming`), whatever the store. The
 * first use sweeps temporary files a crash left behind.
 */
export class IncomingDir {
  private swept = false;

  constructor(readonly dir: string) {}

  async createTempPath(): Promise<string> {
    await fsp.mkdir(this.dir, { recursive: true });
    if (!this.swept) {
      this.swept = true;
      await this.sweepStaleTemp().catch(() => {});
    }
    return path.join(this.dir, `${Date.now()}-${randomBytes(8).toString('hex')}.part`);
  }

  private async sweepStaleTemp() {
    const cutoff = Date.now() - STALE_TEMP_MS;
    for (const entry of await fsp.readdir(this.dir)) {
      const full = path.join(this.dir, entry);
      const s = await fsp.stat(full).catch(() => null);
      if (s?.isFile() && s.mtimeMs < cutoff) await fsp.rm(full, { force: true });
    }
  }
}

export class DiskFileStore implements FileStore {
  readonly name = 'disk';
  private readonly incoming: IncomingDir;

  constructor(private readonly root: string) {
    this.incoming = new IncomingDir(path.join(root, '.incoming'));
  }

  createTempPath(): Promise<string> {
    return this.incoming.createTempPath();
  }

  async downloadUrl(): Promise<null> {
    return null;
  }

  close() {}

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

  /** The file's absolute path. */
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

  read(kind: FileKind, name: string, range?: ByteRange): NodeJS.ReadableStream {
    return fs.createReadStream(this.pathOf(kind, name), range ?? {});
  }

  async stat(kind: FileKind, name: string): Promise<{ size: number; modified: Date } | null> {
    try {
      const s = await fsp.stat(this.pathOf(kind, name));
      return s.isFile() ? { size: s.size, modified: s.mtime } : null;
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
