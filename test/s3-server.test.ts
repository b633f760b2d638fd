import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type S3Server, startS3Server } from './helpers/s3-server.js';

/** The S3 test server is a real one: signed requests, ranges, multipart uploads, presigned URLs. */
describe('S3 test server', () => {
  let s3: S3Server;
  beforeAll(async () => {
    s3 = await startS3Server();
  });
  afterAll(() => s3?.stop());

  it('stores, lists, ranges and deletes objects', async () => {
    const bucket = await s3.createBucket();
    await s3.client.send(new PutObjectCommand({ Bucket: bucket, Key: 'files/a.txt', Body: 'hello world' }));
    expect(await s3.keys(bucket)).toEqual(['files/a.txt']);
    const part = await s3.client.send(
      new GetObjectCommand({ Bucket: bucket, Key: 'files/a.txt', Range: 'bytes=6-10' }),
    );
    expect(await part.Body?.transformToString()).toBe('world');
    expect(part.ContentRange).toBe('bytes 6-10/11');
    await s3.empty(bucket);
    expect(await s3.keys(bucket)).toEqual([]);
    expect(await s3.object(bucket, 'files/a.txt')).toBeNull();
  });

  it('takes a streamed multipart upload of unknown length', async () => {
    const bucket = await s3.createBucket();
    const data = randomBytes(12 * 1024 * 1024 + 123);
    const body = Readable.from(
      (function* () {
        for (let i = 0; i < data.length; i += 64 * 1024) yield data.subarray(i, i + 64 * 1024);
      })(),
    );
    await new Upload({
      client: s3.client,
      params: { Bucket: bucket, Key: 'files/big.bin', Body: body },
    }).done();
    expect((await s3.object(bucket, 'files/big.bin'))?.equals(data)).toBe(true);
  });

  it('serves a presigned URL and refuses a wrong secret', async () => {
    const bucket = await s3.createBucket();
    await s3.client.send(new PutObjectCommand({ Bucket: bucket, Key: 'k', Body: 'presigned' }));
    const url = await getSignedUrl(s3.client, new GetObjectCommand({ Bucket: bucket, Key: 'k' }), {
      expiresIn: 60,
    });
    const res = await fetch(url);
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('presigned');
    expect(
      (await fetch(url.replace(/X-Amz-Signature=[0-9a-f]+/, `X-Amz-Signature=${'0'.repeat(64)}`))).status,
    ).toBe(403);

    const wrong = new S3Client({
      endpoint: s3.endpoint,
      region: s3.region,
      forcePathStyle: true,
      credentials: { accessKeyId: s3.accessKeyId, secretAccessKey: 'not-the-secret' },
    });
    await expect(wrong.send(new GetObjectCommand({ Bucket: bucket, Key: 'k' }))).rejects.toThrow();
    wrong.destroy();
  });
});
