import path from 'node:path';
import type { Config } from '../config.js';
import type { S3FileStore } from './s3-store.js';
import { DiskFileStore, type FileStore } from './storage.js';

/** The data directory's upload area: the disk store's files, and every store's uploads being received. */
export const uploadsDir = (config: Config) => path.join(config.dataDir, 'uploads');

/** The disk store under the data directory. */
export const diskStore = (config: Config) => new DiskFileStore(uploadsDir(config));

/**
 * The configured bucket's store; throws when no bucket is configured. The AWS SDK is loaded only
 * here, so that an instance without a bucket never loads it (start-up time, memory).
 */
export async function s3Store(config: Config): Promise<S3FileStore> {
  if (!config.s3) throw new Error('DOCKET_S3_BUCKET is not set');
  const { S3FileStore, s3Client } = await import('./s3-store.js');
  return new S3FileStore(s3Client(config.s3), config.s3, uploadsDir(config));
}

/** Where this instance keeps files: the bucket when `DOCKET_S3_BUCKET` is set, else the data directory. */
export const openFileStore = async (config: Config): Promise<FileStore> =>
  config.s3 ? s3Store(config) : diskStore(config);
