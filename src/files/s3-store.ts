import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import {
  DeleteObjectCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  S3Client,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import type { S3Config } from '../config.js';
import {
  type ByteRange,
  type DownloadHeaders,
  FILE_KINDS,
  type FileKind,
  type FileStore,
  IncomingDir,
  isSafeStoredName,
} from './storage.js';

/** How long a presigned download URL works (decision 041). */
export const PRESIGN_SECONDS = 300;
/** Part size of multipart uploads: the most memory one upload holds at a time (times the queue). */
const PART_BYTES = 8 * 1024 * 1024;
const UPLOAD_QUEUE = 2;

/**
 * The client for the configured bucket. Checksums are sent only where S3 requires them: the
 * trailing checksums newer SDKs add by default are not understood by every S3-compatible server.
 */
export function s3Client(c: S3Config): S3Client {
  return new S3Client({
    endpoint: c.endpoint,
    region: c.region,
    forcePathStyle: c.forcePathStyle,
    credentials:
      c.accessKeyId && c.secretAccessKey
        ? { accessKeyId: c.accessKeyId, secretAccessKey: c.secretAccessKey }
        : undefined,
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
}

const isMissing = (err: unknown) => {
  const e = err as { name?: string; $metadata?: { httpStatusCode?: number } };
  return e.name === 'NotFound' || e.name === 'NoSuchKey' || e.$metadata?.httpStatusCode === 404;
};

/**
 * Files as objects `<kind>/<stored name>` in an S3-compatible bucket. Uploads are received into a
 * local temporary file first (its content is checked there), then streamed into the bucket in parts;
 * reads stream the object (or one range of it) without holding it in memory.
 */
export class S3FileStore implements FileStore {
  readonly name = 's3';
  private readonly incoming: IncomingDir;

  constructor(
    private readonly client: S3Client,
    private readonly config: S3Config,
    /** The local directory for uploads being received (`<data>/uploads`). */
    localRoot: string,
  ) {
    this.incoming = new IncomingDir(path.join(localRoot, '.incoming'));
  }

  private get bucket() {
    return this.config.bucket;
  }

  key(kind: FileKind, name: string): string {
    if (!FILE_KINDS.includes(kind) || !isSafeStoredName(name)) throw new Error(`Unsafe stored name: ${name}`);
    return `${kind}/${name}`;
  }

  createTempPath(): Promise<string> {
    return this.incoming.createTempPath();
  }

  async importFile(kind: FileKind, name: string, tempPath: string): Promise<void> {
    await this.write(kind, name, fs.createReadStream(tempPath));
    await fsp.rm(tempPath, { force: true });
  }

  /** One PUT for a small body, a multipart upload for a large one; an object appears only complete. */
  async write(kind: FileKind, name: string, data: Buffer | NodeJS.ReadableStream): Promise<void> {
    const upload = new Upload({
      client: this.client,
      params: { Bucket: this.bucket, Key: this.key(kind, name), Body: data as Buffer | Readable },
      partSize: PART_BYTES,
      queueSize: UPLOAD_QUEUE,
    });
    await upload.done();
  }

  read(kind: FileKind, name: string, range?: ByteRange): NodeJS.ReadableStream {
    const { client, bucket } = this;
    const key = this.key(kind, name);
    return Readable.from(
      (async function* () {
        const res = await client.send(
          new GetObjectCommand({
            Bucket: bucket,
            Key: key,
            Range: range ? `bytes=${range.start}-${range.end}` : undefined,
          }),
        );
        yield* res.Body as Readable;
      })(),
      { objectMode: false },
    );
  }

  async stat(kind: FileKind, name: string): Promise<{ size: number; modified: Date } | null> {
    try {
      const res = await this.client.send(
        new HeadObjectCommand({ Bucket: this.bucket, Key: this.key(kind, name) }),
      );
      return { size: res.ContentLength ?? 0, modified: res.LastModified ?? new Date(0) };
    } catch (err) {
      if (isMissing(err)) return null;
      throw err;
    }
  }

  async remove(kind: FileKind, name: string): Promise<void> {
    if (!isSafeStoredName(name)) return;
    await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: this.key(kind, name) }));
  }

  async list(kind: FileKind): Promise<string[]> {
    const prefix = `${kind}/`;
    const names: string[] = [];
    let token: string | undefined;
    do {
      const page = await this.client.send(
        new ListObjectsV2Command({ Bucket: this.bucket, Prefix: prefix, ContinuationToken: token }),
      );
      for (const o of page.Contents ?? []) {
        const name = o.Key?.slice(prefix.length) ?? '';
        if (isSafeStoredName(name)) names.push(name);
      }
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
    return names.sort();
  }

  /** Removes every file of every kind (1,000 keys per request); other keys in the bucket stay. */
  async clear(): Promise<void> {
    for (const kind of FILE_KINDS) {
      const keys = (await this.list(kind)).map((n) => ({ Key: `${kind}/${n}` }));
      for (let i = 0; i < keys.length; i += 1000) {
        const res = await this.client.send(
          new DeleteObjectsCommand({
            Bucket: this.bucket,
            Delete: { Objects: keys.slice(i, i + 1000), Quiet: true },
          }),
        );
        if (res.Errors?.length)
          throw new Error(`could not remove ${res.Errors.length} objects: ${res.Errors[0]?.Message}`);
      }
    }
  }

  close() {
    this.client.destroy();
  }

  async downloadUrl(kind: FileKind, name: string, headers: DownloadHeaders): Promise<string | null> {
    if (!this.config.presign) return null;
    return getSignedUrl(
      this.client,
      new GetObjectCommand({
        Bucket: this.bucket,
        Key: this.key(kind, name),
        ResponseContentType: headers.contentType,
        ResponseContentDisposition: headers.contentDisposition,
        ResponseCacheControl: headers.cacheControl,
      }),
      { expiresIn: PRESIGN_SECONDS },
    );
  }
}
