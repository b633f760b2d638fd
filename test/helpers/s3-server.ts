/**
 * A real S3-compatible object store for the tests: s3rver (npm `@20minutes/s3rver`) in its own
 * process on an ephemeral loopback port, with its objects in a fresh temporary directory. Requests
 * are signed and checked (access key and secret `S3RVER`), so a wrong key fails as it would on S3.
 *
 *   const s3 = await startS3Server();
 *   const bucket = await s3.createBucket();
 *   const t = await createTestApp(s3.env(bucket));
 *   ...
 *   await s3.stop();
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  CreateBucketCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  ListObjectsV2Command,
  S3Client,
} from '@aws-sdk/client-s3';
import { startProcess } from './server.js';

export interface S3Server {
  /** http://127.0.0.1:<port> */
  endpoint: string;
  region: string;
  accessKeyId: string;
  secretAccessKey: string;
  /** A client for this server, to look at a bucket from outside Docket. */
  client: S3Client;
  /** Creates a fresh bucket (a random name unless given) and returns its name. */
  createBucket(name?: string): Promise<string>;
  /** Docket's configuration for a bucket on this server (DOCKET_S3_*). */
  env(bucket: string, extra?: Record<string, string>): Record<string, string>;
  /** Every key in a bucket, sorted. */
  keys(bucket: string): Promise<string[]>;
  /** One object's bytes, or null when it does not exist. */
  object(bucket: string, key: string): Promise<Buffer | null>;
  /** Removes every object of a bucket. */
  empty(bucket: string): Promise<void>;
  /** Stops the server and removes its directory. */
  stop(): Promise<void>;
}

const ACCESS_KEY = 'S3RVER';
const SECRET_KEY = 'S3RVER';
const REGION = 'us-east-1';

export async function startS3Server(): Promise<S3Server> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'docket-s3-'));
  const proc = await startProcess({
    args: [path.join(import.meta.dirname, 's3-server-main.cjs'), dir],
    ready: 'listening',
  }).catch((err) => {
    fs.rmSync(dir, { recursive: true, force: true });
    throw err;
  });
  return s3ServerAt(proc.url, async () => {
    await proc.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });
}

/** The test S3 server at `endpoint`, started elsewhere (the s3 test project's global setup). */
export function s3ServerAt(endpoint: string, stopServer: () => Promise<void> = async () => {}): S3Server {
  const client = new S3Client({
    endpoint,
    region: REGION,
    forcePathStyle: true,
    credentials: { accessKeyId: ACCESS_KEY, secretAccessKey: SECRET_KEY },
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });

  const keys = async (bucket: string) => {
    const out: string[] = [];
    let token: string | undefined;
    do {
      const page = await client.send(new ListObjectsV2Command({ Bucket: bucket, ContinuationToken: token }));
      for (const o of page.Contents ?? []) if (o.Key) out.push(o.Key);
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
    return out.sort();
  };

  return {
    endpoint,
    region: REGION,
    accessKeyId: ACCESS_KEY,
    secretAccessKey: SECRET_KEY,
    client,
    async createBucket(name = `docket-${randomBytes(6).toString('hex')}`) {
      await client.send(new CreateBucketCommand({ Bucket: name }));
      return name;
    },
    env: (bucket, extra = {}) => ({
      DOCKET_S3_ENDPOINT: endpoint,
      DOCKET_S3_BUCKET: bucket,
      DOCKET_S3_REGION: REGION,
      DOCKET_S3_ACCESS_KEY_ID: ACCESS_KEY,
      DOCKET_S3_SECRET_ACCESS_KEY: SECRET_KEY,
      DOCKET_S3_FORCE_PATH_STYLE: 'true',
      ...extra,
    }),
    keys,
    async object(bucket, key) {
      try {
        const res = await client.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
        return Buffer.from(
          await (res.Body as { transformToByteArray(): Promise<Uint8Array> }).transformToByteArray(),
        );
      } catch (err) {
        if ((err as { name?: string }).name === 'NoSuchKey') return null;
        throw err;
      }
    },
    async empty(bucket) {
      const all = await keys(bucket);
      for (let i = 0; i < all.length; i += 1000) {
        await client.send(
          new DeleteObjectsCommand({
            Bucket: bucket,
            Delete: { Objects: all.slice(i, i + 1000).map((Key) => ({ Key })) },
          }),
        );
      }
    },
    async stop() {
      client.destroy();
      await stopServer();
    },
  };
}
