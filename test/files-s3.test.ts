import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config.js';
import { FILE_CSP } from '../src/server/send-file.js';
import { createTestApp, type TestApp } from './helpers/app.js';
import { multipart, snapshot } from './helpers/backup.js';
import { makeProject, makeTicket } from './helpers/board.js';
import { docket, type Instance, instance } from './helpers/cli.js';
import { type Client, PASSWORD, signIn, signUp } from './helpers/factories.js';
import { makeMp4, makePng, upload } from './helpers/files.js';
import { type S3Server, startS3Server } from './helpers/s3-server.js';

/**
 * What only the S3 store has: the bucket as the place of files, presigned downloads, moving files
 * between stores, and backups between a bucket and a data directory. (The file, attachment, avatar
 * and backup tests themselves run against a bucket too: the `s3` vitest project.)
 */
let s3: S3Server;
beforeAll(async () => {
  s3 = await startS3Server();
});
afterAll(() => s3?.stop());

const nameOf = (url: string) => url.split('/').pop() as string;

describe('S3 configuration', () => {
  it('names what is missing or wrong', () => {
    expect(() => loadConfig({ DOCKET_S3_ENDPOINT: 'http://127.0.0.1:9000' })).toThrow(
      /DOCKET_S3_BUCKET: required when DOCKET_S3_ENDPOINT is set/,
    );
    expect(() => loadConfig({ DOCKET_S3_BUCKET: 'docket', DOCKET_S3_ACCESS_KEY_ID: 'k' })).toThrow(
      /set both or neither/,
    );
    expect(() => loadConfig({ DOCKET_S3_BUCKET: 'Not_A_Bucket' })).toThrow(/DOCKET_S3_BUCKET/);
    expect(() => loadConfig({ DOCKET_S3_BUCKET: 'docket', DOCKET_S3_PRESIGN: 'yes' })).toThrow(ConfigError);
    expect(loadConfig({}).s3).toBeUndefined();
    expect(loadConfig({ DOCKET_S3_BUCKET: 'docket' }).s3).toEqual({
      endpoint: undefined,
      bucket: 'docket',
      region: 'us-east-1',
      accessKeyId: undefined,
      secretAccessKey: undefined,
      forcePathStyle: false,
      presign: false,
    });
  });
});

describe('files in a bucket', () => {
  let bucket: string;
  let t: TestApp;
  let owner: Client;
  beforeAll(async () => {
    bucket = await s3.createBucket();
    t = await createTestApp(s3.env(bucket));
    owner = await signUp(t.app);
  });
  afterAll(() => t?.close());

  it('streams an upload into the bucket, keeps nothing on disk, and serves ranges and conditional requests', async () => {
    const video = makeMp4(256 * 1024);
    const res = await upload(owner, '/api/upload', {
      filename: 'clip.mp4',
      contentType: 'video/mp4',
      data: video,
    });
    expect(res.statusCode, res.body).toBe(201);
    const name = nameOf(res.json().url);
    expect(await s3.keys(bucket)).toEqual([`files/${name}`]);
    expect((await s3.object(bucket, `files/${name}`))?.equals(video)).toBe(true);
    const uploads = path.join(t.config.dataDir, 'uploads');
    const local = fs.readdirSync(uploads, { recursive: true }) as string[];
    expect(local.filter((f) => fs.statSync(path.join(uploads, f)).isFile())).toEqual([]);

    const whole = await owner.get(res.json().url);
    expect(whole.statusCode).toBe(200);
    expect(whole.rawPayload.equals(video)).toBe(true);
    expect(whole.headers).toMatchObject({
      'content-type': 'video/mp4',
      'x-content-type-options': 'nosniff',
      'content-security-policy': FILE_CSP,
      'cache-control': 'private, max-age=86400',
      'accept-ranges': 'bytes',
    });
    const part = await owner.req({
      method: 'GET',
      url: res.json().url,
      headers: { range: 'bytes=1000-1999' },
    });
    expect(part.statusCode).toBe(206);
    expect(part.headers['content-range']).toBe(`bytes 1000-1999/${video.length}`);
    expect(part.rawPayload.equals(video.subarray(1000, 2000))).toBe(true);
    const again = await owner.req({
      method: 'GET',
      url: res.json().url,
      headers: { 'if-none-match': String(whole.headers.etag) },
    });
    expect(again.statusCode).toBe(304);

    // A record without its object is a 404, not a 500.
    await s3.empty(bucket);
    expect((await owner.get(res.json().url)).statusCode).toBe(404);
  });

  it('removes the object with the record, and a wipe empties the bucket of files', async () => {
    const res = await upload(owner, '/api/me/avatar', {
      filename: 'me.png',
      contentType: 'image/png',
      data: await makePng(),
    });
    expect(res.statusCode, res.body).toBe(200);
    expect((await s3.keys(bucket)).filter((k) => k.startsWith('avatars/'))).toEqual([
      `avatars/${nameOf(res.json().avatar)}`,
    ]);
    expect((await owner.del('/api/me/avatar')).statusCode).toBe(200);
    expect(await s3.keys(bucket)).toEqual([]);

    await upload(owner, '/api/upload', {
      filename: 'a.png',
      contentType: 'image/png',
      data: await makePng(),
    });
    expect(await s3.keys(bucket)).toHaveLength(1);
    const wipe = await owner.post('/api/admin/database/wipe', {
      confirmPassword: PASSWORD,
      confirmation: 'wipe all data',
    });
    expect(wipe.statusCode, wipe.body).toBe(200);
    expect(await s3.keys(bucket)).toEqual([]);
  });
});

describe('presigned downloads (DOCKET_S3_PRESIGN=true)', () => {
  let bucket: string;
  let t: TestApp;
  let owner: Client;
  let other: Client;
  beforeAll(async () => {
    bucket = await s3.createBucket();
    t = await createTestApp(s3.env(bucket, { DOCKET_S3_PRESIGN: 'true' }));
    owner = await signUp(t.app);
    other = await signUp(t.app);
  });
  afterAll(() => t?.close());

  it('checks the right to see the file, then redirects to a short-lived URL the bucket answers with the same headers', async () => {
    const png = await makePng();
    const project = await makeProject(owner);
    const ticket = await makeTicket(owner, project.id);
    const att = await upload(owner, `/api/projects/${project.id}/tickets/${ticket.id}/attachments`, {
      filename: 'shot (1).png',
      contentType: 'image/png',
      data: png,
    });
    expect(att.statusCode, att.body).toBe(201);
    const url = att.json().url;

    expect((await other.get(url)).statusCode).toBe(404);
    expect((await t.app.inject({ method: 'GET', url })).statusCode).toBe(401);

    const res = await owner.get(url);
    expect(res.statusCode).toBe(302);
    expect(res.headers['cache-control']).toBe('private, no-store');
    const location = String(res.headers.location);
    expect(location.startsWith(`${s3.endpoint}/${bucket}/attachments/${nameOf(url)}?`)).toBe(true);
    expect(new URL(location).searchParams.get('X-Amz-Expires')).toBe('300');

    const direct = await fetch(location);
    expect(direct.status).toBe(200);
    expect(Buffer.from(await direct.arrayBuffer()).equals(png)).toBe(true);
    expect(direct.headers.get('content-type')).toBe('image/png');
    expect(direct.headers.get('content-disposition')).toBe(
      `inline; filename="shot (1).png"; filename*=UTF-8''shot%20%281%29.png`,
    );
    expect(direct.headers.get('cache-control')).toBe('private, max-age=86400');
    // The URL is signed for exactly this object.
    expect((await fetch(location.replace(nameOf(url), `${nameOf(url)}x`))).status).toBe(403);
  });
});

describe('backups between a bucket and a data directory', () => {
  it('exports files from the bucket and imports them into a data directory, and back', async () => {
    const bucket = await s3.createBucket();
    const inBucket = await createTestApp(s3.env(bucket));
    const onDisk = await createTestApp();
    try {
      const admin = await signUp(inBucket.app);
      await upload(admin, '/api/upload', {
        filename: 'big.mp4',
        contentType: 'video/mp4',
        data: makeMp4(6 * 1024 * 1024),
      });
      await upload(admin, '/api/me/avatar', {
        filename: 'me.png',
        contentType: 'image/png',
        data: await makePng(),
      });
      const before = await snapshot(inBucket.app);
      expect(Object.keys(before.files.files)).toHaveLength(1);

      const backup = await admin.post('/api/admin/database/export', { confirmPassword: PASSWORD });
      expect(backup.statusCode).toBe(200);
      const diskAdmin = await signUp(onDisk.app);
      const imported = await diskAdmin.req({
        method: 'POST',
        url: '/api/admin/database/import',
        ...multipart({ confirmPassword: PASSWORD }, { content: backup.rawPayload }),
      });
      expect(imported.statusCode, imported.body).toBe(200);
      expect((await snapshot(onDisk.app)).files).toEqual(before.files);

      // And back into an empty bucket.
      await s3.empty(bucket);
      const restoredAdmin = await signIn(onDisk.app, admin.username);
      const fromDisk = await restoredAdmin.post('/api/admin/database/export', { confirmPassword: PASSWORD });
      expect(fromDisk.statusCode).toBe(200);
      const back = await admin.req({
        method: 'POST',
        url: '/api/admin/database/import',
        ...multipart({ confirmPassword: PASSWORD }, { content: fromDisk.rawPayload }),
      });
      expect(back.statusCode, back.body).toBe(200);
      expect((await snapshot(inBucket.app)).files).toEqual(before.files);
      expect(await s3.keys(bucket)).toHaveLength(2);
    } finally {
      await inBucket.close();
      await onDisk.close();
    }
  });
});

describe('docket files migrate', { timeout: 120_000 }, () => {
  let inst: Instance;
  let bucket: string;
  beforeAll(async () => {
    inst = await instance();
    bucket = await s3.createBucket();
  });
  afterAll(() => inst?.drop());

  it('moves every file into the bucket and back, with progress, and refuses wrong usage', async () => {
    const uploads = path.join(inst.dataDir, 'uploads');
    const files: Record<string, Buffer> = {
      'files/1700000000000-aa.png': await makePng(),
      'attachments/1700000000001-bb.mp4': makeMp4(7 * 1024 * 1024),
      'avatars/1700000000002-cc.webp': Buffer.from('webp bytes'),
    };
    for (const [p, data] of Object.entries(files)) {
      fs.mkdirSync(path.join(uploads, path.dirname(p)), { recursive: true });
      fs.writeFileSync(path.join(uploads, p), data);
    }
    const withBucket = { ...inst, env: { ...inst.env, ...s3.env(bucket) } };

    const noTarget = await docket(withBucket, ['files', 'migrate']);
    expect(noTarget.code).toBe(2);
    expect(noTarget.stderr).toContain('--to s3 or --to disk');
    const noBucket = await docket(inst, ['files', 'migrate', '--to', 's3']);
    expect(noBucket.code).toBe(2);
    expect(noBucket.stderr).toContain('DOCKET_S3_BUCKET');

    const toS3 = await docket(withBucket, ['files', 'migrate', '--to', 's3']);
    expect(toS3.code, toS3.stderr).toBe(0);
    expect(toS3.stdout).toContain('Moved 3 files');
    expect(toS3.stderr).toContain('Moving files to s3: 3/3');
    expect(await s3.keys(bucket)).toEqual(Object.keys(files).sort());
    for (const [p, data] of Object.entries(files))
      expect((await s3.object(bucket, p))?.equals(data)).toBe(true);
    for (const p of Object.keys(files)) expect(fs.existsSync(path.join(uploads, p))).toBe(false);

    // An interrupted run left a file in both places: it is not copied again, only removed at the source.
    fs.writeFileSync(path.join(uploads, 'files/1700000000000-aa.png'), files['files/1700000000000-aa.png']);
    const rerun = await docket(withBucket, ['files', 'migrate', '--to', 's3']);
    expect(rerun.code, rerun.stderr).toBe(0);
    expect(rerun.stdout).toContain('Moved 0 files (0 B) from disk to s3; 1 were there already.');

    const toDisk = await docket(withBucket, ['files', 'migrate', '--to', 'disk']);
    expect(toDisk.code, toDisk.stderr).toBe(0);
    expect(toDisk.stdout).toContain('Moved 3 files');
    expect(await s3.keys(bucket)).toEqual([]);
    for (const [p, data] of Object.entries(files))
      expect(fs.readFileSync(path.join(uploads, p)).equals(data)).toBe(true);
  });
});
