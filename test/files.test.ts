import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_SETTINGS } from '../src/shared/limits.js';
import { createTestApp, type TestApp } from './helpers/app.js';
import { type Client, clientFor, signUp } from './helpers/factories.js';
import {
  allUploadAreaFiles,
  type FilePart,
  makeBigPng,
  makeCsv,
  makeElf,
  makeGif,
  makeHtml,
  makeJpeg,
  makeMp4,
  makePdf,
  makePng,
  makeSvg,
  makeText,
  makeWebp,
  multipartBody,
  readStored,
  setSettings,
  storedFiles,
  upload,
} from './helpers/files.js';

let t: TestApp;
let admin: Client;
let user: Client;

const ALL_ALLOWED = [
  ...DEFAULT_SETTINGS.allowedImageTypes,
  ...DEFAULT_SETTINGS.allowedVideoTypes,
  ...DEFAULT_SETTINGS.allowedDocumentTypes,
];

async function uploadsCount() {
  const row = await t.app.services.db.kysely
    .selectFrom('uploads')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Runs `fn` and checks that it left no stored file, no temporary file and no record behind. */
async function leavesNothing(fn: () => Promise<void>) {
  const files = await allUploadAreaFiles(t.config);
  const records = await uploadsCount();
  await fn();
  expect(await allUploadAreaFiles(t.config)).toEqual(files);
  expect(await uploadsCount()).toBe(records);
}

beforeAll(async () => {
  t = await createTestApp();
  admin = await signUp(t.app);
  user = await signUp(t.app);
});
afterAll(async () => t.close());

describe('GET /api/upload', () => {
  it('answers the upload configuration from the system settings', async () => {
    const res = await user.get('/api/upload');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      maxImageSize: 5_242_880,
      maxVideoSize: 52_428_800,
      maxDocumentSize: 10_485_760,
      allowedTypes: {
        image: DEFAULT_SETTINGS.allowedImageTypes,
        video: DEFAULT_SETTINGS.allowedVideoTypes,
        document: DEFAULT_SETTINGS.allowedDocumentTypes,
      },
    });
  });

  it('follows changed settings', async () => {
    await setSettings(admin, { maxImageSize: 1234, allowedVideoTypes: ['video/mp4'] });
    try {
      const res = await user.get('/api/upload');
      expect(res.json()).toMatchObject({ maxImageSize: 1234, allowedTypes: { video: ['video/mp4'] } });
    } finally {
      await setSettings(admin, {
        maxImageSize: DEFAULT_SETTINGS.maxImageSize,
        allowedVideoTypes: DEFAULT_SETTINGS.allowedVideoTypes,
      });
    }
  });

  it('needs a signed-in user', async () => {
    expect((await t.app.inject({ method: 'GET', url: '/api/upload' })).statusCode).toBe(401);
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/upload',
      ...multipartBody([{ filename: 'a.txt', contentType: 'text/plain', data: makeText() }]),
    });
    expect(res.statusCode).toBe(401);
    expect(await allUploadAreaFiles(t.config)).toEqual([]);
  });
});

describe('POST /api/upload accepts allowed files', () => {
  const cases: [string, () => Promise<Buffer> | Buffer, string, string][] = [
    ['PNG', () => makePng(), 'shot.png', 'image/png'],
    ['JPEG', () => makeJpeg(), 'photo.jpeg', 'image/jpeg'],
    ['JPEG with .jpg', () => makeJpeg(), 'photo.JPG', 'image/jpeg'],
    ['GIF', () => makeGif(), 'anim.gif', 'image/gif'],
    ['WebP', () => makeWebp(), 'pic.webp', 'image/webp'],
    ['PDF', () => makePdf(), 'spec.pdf', 'application/pdf'],
    ['MP4', () => makeMp4(), 'demo.mp4', 'video/mp4'],
    ['text', () => makeText(), 'notes.txt', 'text/plain'],
    ['CSV', () => makeCsv(), 'export.csv', 'text/csv'],
  ];
  it.each(cases)(
    'stores a %s file and answers 201 with url, filename, mimeType and size',
    async (_label, make, filename, contentType) => {
      const data = await make();
      const res = await upload(user, '/api/upload', { filename, contentType, data });
      expect(res.statusCode, res.body).toBe(201);
      const body = res.json();
      const ext = filename.split('.').pop()?.toLowerCase();
      expect(body).toEqual({
        url: expect.stringMatching(new RegExp(`^/uploads/files/\\d+-[0-9a-f]+\\.${ext}$`)),
        filename,
        mimeType: contentType,
        size: data.length,
      });
      const stored = body.url.split('/').pop();
      expect((await readStored(t.config, 'files', stored)).equals(data)).toBe(true);
      const row = await t.app.services.db.kysely
        .selectFrom('uploads')
        .selectAll()
        .where('stored_name', '=', stored)
        .executeTakeFirstOrThrow();
      expect(row).toMatchObject({ filename, mime_type: contentType, uploader_id: user.userId });
      expect(Number(row.size)).toBe(data.length);
    },
  );

  it('accepts the declared type in another spelling (image/jpg) and a CSV declared as Excel by Windows browsers', async () => {
    const jpg = await upload(user, '/api/upload', {
      filename: 'a.jpg',
      contentType: 'image/jpg',
      data: await makeJpeg(),
    });
    expect(jpg.statusCode, jpg.body).toBe(201);
    expect(jpg.json().mimeType).toBe('image/jpeg');
    const csv = await upload(user, '/api/upload', {
      filename: 'a.csv',
      contentType: 'application/vnd.ms-excel',
      data: makeCsv(),
    });
    expect(csv.statusCode, csv.body).toBe(201);
    expect(csv.json().mimeType).toBe('text/csv');
  });

  it('never lets a file name choose where the file goes: the path is dropped and the stored name is generated', async () => {
    const data = await makePng();
    const before = (await allUploadAreaFiles(t.config)).length;
    const res = await upload(user, '/api/upload', {
      filename: '../../etc/passwd.png',
      contentType: 'image/png',
      data,
    });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().filename).toBe('passwd.png');
    expect(res.json().url).toMatch(/^\/uploads\/files\/\d+-[0-9a-f]+\.png$/);
    const windows = await upload(user, '/api/upload', {
      filename: '..\\..\\windows\\evil.png',
      contentType: 'image/png',
      data,
    });
    expect(windows.statusCode, windows.body).toBe(201);
    expect(windows.json().filename).toBe('evil.png');
    const files = await allUploadAreaFiles(t.config);
    expect(files.length).toBe(before + 2);
    expect(
      files.every((f) =>
        /^files\/\d+-[0-9a-f]+\.png$|^(files|attachments|avatars)\/\d+-[0-9a-f]+\.\w+$/.test(f),
      ),
    ).toBe(true);
  });

  it('gives two uploads of the same name different stored names', async () => {
    const data = makeText();
    const a = await upload(user, '/api/upload', { filename: 'same.txt', contentType: 'text/plain', data });
    const b = await upload(user, '/api/upload', { filename: 'same.txt', contentType: 'text/plain', data });
    expect(a.json().url).not.toBe(b.json().url);
  });

  it('accepts a file exactly at the category limit', async () => {
    const data = await makeBigPng(20_000);
    await setSettings(admin, { maxImageSize: data.length });
    try {
      const res = await upload(user, '/api/upload', { filename: 'edge.png', contentType: 'image/png', data });
      expect(res.statusCode, res.body).toBe(201);
    } finally {
      await setSettings(admin, { maxImageSize: DEFAULT_SETTINGS.maxImageSize });
    }
  });
});

describe('POST /api/upload refuses, in the order of the rules, and leaves nothing behind', () => {
  it('answers 400 No file provided without a multipart body, without a file part, or with an empty file', async () => {
    await leavesNothing(async () => {
      const json = await user.post('/api/upload', { file: 'not a file' });
      expect(json.statusCode).toBe(400);
      expect(json.json()).toEqual({ error: 'No file provided' });
      const none = await user.req({ method: 'POST', url: '/api/upload' });
      expect(none.json()).toEqual({ error: 'No file provided' });
      const fieldsOnly = await user.req({
        method: 'POST',
        url: '/api/upload',
        ...multipartBody([], { title: 'x' }),
      });
      expect(fieldsOnly.statusCode).toBe(400);
      expect(fieldsOnly.json()).toEqual({ error: 'No file provided' });
      const empty = await upload(user, '/api/upload', {
        filename: 'empty.txt',
        contentType: 'text/plain',
        data: Buffer.alloc(0),
      });
      expect(empty.statusCode).toBe(400);
      expect(empty.json()).toEqual({ error: 'No file provided' });
    });
  });

  const refused: [string, () => Promise<FilePart> | FilePart][] = [
    [
      'an SVG declared as SVG',
      () => ({ filename: 'logo.svg', contentType: 'image/svg+xml', data: makeSvg() }),
    ],
    ['an SVG named .png', () => ({ filename: 'logo.png', contentType: 'image/png', data: makeSvg() })],
    ['an SVG named .txt', () => ({ filename: 'logo.txt', contentType: 'text/plain', data: makeSvg() })],
    [
      'an SVG with an XML prolog named .txt',
      () => ({
        filename: 'logo.txt',
        contentType: 'text/plain',
        data: Buffer.from(`<?xml version="1.0"?>\n${makeSvg()}`),
      }),
    ],
    [
      'an HTML file declared as HTML',
      () => ({ filename: 'page.html', contentType: 'text/html', data: makeHtml() }),
    ],
    ['an HTML file named .png', () => ({ filename: 'page.png', contentType: 'image/png', data: makeHtml() })],
    [
      'an HTML file named .txt',
      () => ({ filename: 'page.txt', contentType: 'text/plain', data: makeHtml() }),
    ],
    [
      'an HTML file named .csv',
      () => ({
        filename: 'page.csv',
        contentType: 'text/csv',
        data: Buffer.from('\uFEFF  <html><body>hi</body></html>'),
      }),
    ],
    [
      'a text file hiding a script element',
      () => ({
        filename: 'a.txt',
        contentType: 'text/plain',
        data: Buffer.from('hello\n<script>alert(1)</script>\n'),
      }),
    ],
    [
      'a JavaScript file',
      () => ({ filename: 'app.js', contentType: 'text/javascript', data: Buffer.from('alert(1)') }),
    ],
    [
      'JavaScript declared as text',
      () => ({ filename: 'app.js', contentType: 'text/plain', data: Buffer.from('alert(1)') }),
    ],
    [
      'a shell script named .txt',
      () => ({ filename: 'run.txt', contentType: 'text/plain', data: Buffer.from('#!/bin/sh\nrm -rf /\n') }),
    ],
    [
      'an executable named .txt',
      () => ({ filename: 'tool.txt', contentType: 'text/plain', data: makeElf() }),
    ],
    [
      'an executable named .pdf',
      () => ({ filename: 'tool.pdf', contentType: 'application/pdf', data: makeElf() }),
    ],
    [
      'a Windows executable',
      () => ({
        filename: 'setup.exe',
        contentType: 'application/x-msdownload',
        data: Buffer.concat([Buffer.from('MZ'), Buffer.alloc(200)]),
      }),
    ],
    [
      'a text file with NUL bytes',
      () => ({ filename: 'nul.txt', contentType: 'text/plain', data: Buffer.from('abc\u0000def') }),
    ],
    [
      'a text file that is not UTF-8',
      () => ({
        filename: 'latin1.txt',
        contentType: 'text/plain',
        data: Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a]),
      }),
    ],
    [
      'a text file ending inside a character',
      () => ({ filename: 'cut.txt', contentType: 'text/plain', data: Buffer.from([0x61, 0xe2, 0x82]) }),
    ],
    [
      'a PNG declared as JPEG',
      async () => ({ filename: 'a.jpg', contentType: 'image/jpeg', data: await makePng() }),
    ],
    [
      'a PNG named .jpg but declared PNG',
      async () => ({ filename: 'a.jpg', contentType: 'image/png', data: await makePng() }),
    ],
    [
      'a JPEG named .png',
      async () => ({ filename: 'a.png', contentType: 'image/png', data: await makeJpeg() }),
    ],
    [
      'a PNG without an extension',
      async () => ({ filename: 'picture', contentType: 'image/png', data: await makePng() }),
    ],
    [
      'a PNG declared as application/octet-stream',
      async () => ({ filename: 'a.png', contentType: 'application/octet-stream', data: await makePng() }),
    ],
    ['text named .pdf', () => ({ filename: 'a.pdf', contentType: 'application/pdf', data: makeText() })],
    ['a PDF named .txt', () => ({ filename: 'a.txt', contentType: 'text/plain', data: makePdf() })],
    [
      'random bytes named .mp4',
      () => ({
        filename: 'v.mp4',
        contentType: 'video/mp4',
        data: Buffer.from('not really a video at all, sorry'),
      }),
    ],
    [
      'a type outside the allowed lists',
      () => ({ filename: 'a.zip', contentType: 'application/zip', data: Buffer.from('PK\u0003\u0004rest') }),
    ],
  ];
  it.each(refused)('refuses %s with 400 File type not allowed and the allowed list', async (_label, make) => {
    const part = await make();
    await leavesNothing(async () => {
      const res = await upload(user, '/api/upload', part);
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json()).toEqual({ error: 'File type not allowed', allowed: ALL_ALLOWED });
    });
  });

  it('refuses a type an administrator removed from the allowed list', async () => {
    await setSettings(admin, { allowedImageTypes: ['image/png'] });
    try {
      await leavesNothing(async () => {
        const res = await upload(user, '/api/upload', {
          filename: 'a.gif',
          contentType: 'image/gif',
          data: await makeGif(),
        });
        expect(res.statusCode).toBe(400);
        expect(res.json().error).toBe('File type not allowed');
        expect(res.json().allowed).toContain('image/png');
        expect(res.json().allowed).not.toContain('image/gif');
      });
    } finally {
      await setSettings(admin, { allowedImageTypes: DEFAULT_SETTINGS.allowedImageTypes });
    }
  });

  it('never allows SVG or HTML, even when the settings row lists them', async () => {
    const db = t.app.services.db.kysely;
    const row = await db.selectFrom('system_settings').selectAll().executeTakeFirstOrThrow();
    await db
      .updateTable('system_settings')
      .set({
        allowed_image_types: JSON.stringify([...DEFAULT_SETTINGS.allowedImageTypes, 'image/svg+xml']),
        allowed_document_types: JSON.stringify([...DEFAULT_SETTINGS.allowedDocumentTypes, 'text/html']),
      })
      .execute();
    try {
      const config = (await user.get('/api/upload')).json();
      expect(config.allowedTypes.image).not.toContain('image/svg+xml');
      expect(config.allowedTypes.document).not.toContain('text/html');
      await leavesNothing(async () => {
        const svg = await upload(user, '/api/upload', {
          filename: 'a.svg',
          contentType: 'image/svg+xml',
          data: makeSvg(),
        });
        expect(svg.statusCode).toBe(400);
        expect(svg.json()).toEqual({ error: 'File type not allowed', allowed: ALL_ALLOWED });
        const html = await upload(user, '/api/upload', {
          filename: 'a.html',
          contentType: 'text/html',
          data: makeHtml(),
        });
        expect(html.statusCode).toBe(400);
        expect(html.json().error).toBe('File type not allowed');
      });
    } finally {
      await db
        .updateTable('system_settings')
        .set({
          allowed_image_types: row.allowed_image_types,
          allowed_document_types: row.allowed_document_types,
        })
        .execute();
    }
  });

  it('refuses a file over its category limit with 400 File too large, maxSize and the exact actualSize', async () => {
    const data = await makeBigPng(30_000);
    await setSettings(admin, { maxImageSize: 20_000 });
    try {
      await leavesNothing(async () => {
        const res = await upload(user, '/api/upload', {
          filename: 'big.png',
          contentType: 'image/png',
          data,
        });
        expect(res.statusCode).toBe(400);
        expect(res.json()).toEqual({ error: 'File too large', maxSize: 20_000, actualSize: data.length });
      });
      // The limit is the image one: a document of the same size passes.
      const doc = await upload(user, '/api/upload', {
        filename: 'big.txt',
        contentType: 'text/plain',
        data: Buffer.alloc(30_000, 'a'),
      });
      expect(doc.statusCode, doc.body).toBe(201);
    } finally {
      await setSettings(admin, { maxImageSize: DEFAULT_SETTINGS.maxImageSize });
    }
  });

  it('stops reading a file far over the limit and reports the bytes read so far', async () => {
    await setSettings(admin, { maxDocumentSize: 10_000, maxImageSize: 10_000, maxVideoSize: 10_000 });
    try {
      const data = Buffer.alloc(5_000_000, 'a');
      await leavesNothing(async () => {
        const res = await upload(user, '/api/upload', {
          filename: 'huge.txt',
          contentType: 'text/plain',
          data,
        });
        expect(res.statusCode).toBe(400);
        const body = res.json();
        expect(body).toMatchObject({ error: 'File too large', maxSize: 10_000 });
        expect(body.actualSize).toBeGreaterThan(20_000);
        expect(body.actualSize).toBeLessThan(data.length);
      });
    } finally {
      await setSettings(admin, {
        maxDocumentSize: DEFAULT_SETTINGS.maxDocumentSize,
        maxImageSize: DEFAULT_SETTINGS.maxImageSize,
        maxVideoSize: DEFAULT_SETTINGS.maxVideoSize,
      });
    }
  });

  it('checks the type before the size: an oversized HTML file named .png is a type error', async () => {
    await setSettings(admin, { maxImageSize: 100 });
    try {
      await leavesNothing(async () => {
        const data = Buffer.from(`<html><body>${'x'.repeat(5000)}</body></html>`);
        const res = await upload(user, '/api/upload', {
          filename: 'page.png',
          contentType: 'image/png',
          data,
        });
        expect(res.statusCode).toBe(400);
        expect(res.json().error).toBe('File type not allowed');
      });
    } finally {
      await setSettings(admin, { maxImageSize: DEFAULT_SETTINGS.maxImageSize });
    }
  });

  it('answers 400, not 500, for a multipart body that ends in the middle of the file', async () => {
    const { payload, headers } = multipartBody([
      { filename: 'a.txt', contentType: 'text/plain', data: Buffer.alloc(50_000, 'a') },
    ]);
    await leavesNothing(async () => {
      const res = await user.req({
        method: 'POST',
        url: '/api/upload',
        payload: payload.subarray(0, 20_000),
        headers,
      });
      expect(res.statusCode).toBe(400);
    });
  });
});

describe('GET /uploads/files/[name]', () => {
  let pngUrl: string;
  let pdfUrl: string;
  let mp4Url: string;
  let txtUrl: string;
  const video = makeMp4(100_000);
  beforeAll(async () => {
    pngUrl = (
      await upload(user, '/api/upload', {
        filename: 'shot.png',
        contentType: 'image/png',
        data: await makePng(),
      })
    ).json().url;
    pdfUrl = (
      await upload(user, '/api/upload', {
        filename: 'Bericht März (final).pdf',
        contentType: 'application/pdf',
        data: makePdf(),
      })
    ).json().url;
    mp4Url = (
      await upload(user, '/api/upload', { filename: 'demo.mp4', contentType: 'video/mp4', data: video })
    ).json().url;
    txtUrl = (
      await upload(user, '/api/upload', {
        filename: 'notes.txt',
        contentType: 'text/plain',
        data: makeText(),
      })
    ).json().url;
  });

  it('serves only signed-in users (401 otherwise) who may read it, with the stored bytes', async () => {
    expect((await t.app.inject({ method: 'GET', url: pngUrl })).statusCode).toBe(401);
    const res = await user.get(pngUrl);
    expect(res.statusCode).toBe(200);
    expect(res.rawPayload.equals(await makePng())).toBe(true);
    // Shown nowhere yet: its uploader's alone (test/upload-access.test.ts, decision 058).
    const other = await signUp(t.app);
    expect((await other.get(pngUrl)).statusCode).toBe(404);
  });

  it('serves images inline with their stored type and the protective headers', async () => {
    const res = await user.get(pngUrl);
    expect(res.headers['content-type']).toBe('image/png');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['content-security-policy']).toBe(
      "default-src 'none'; sandbox; frame-ancestors 'none'",
    );
    expect(res.headers['content-disposition']).toBe(`inline; filename="shot.png"; filename*=UTF-8''shot.png`);
    expect(res.headers['cache-control']).toMatch(/^private/);
    expect(res.headers.etag).toBeTruthy();
    expect(res.headers['last-modified']).toBeTruthy();
  });

  it('serves documents as downloads under their original name, RFC 5987 encoded', async () => {
    const res = await user.get(pdfUrl);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/pdf');
    expect(res.headers['content-disposition']).toBe(
      `attachment; filename="Bericht M_rz (final).pdf"; filename*=UTF-8''Bericht%20M%C3%A4rz%20%28final%29.pdf`,
    );
    const txt = await user.get(txtUrl);
    expect(txt.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(txt.headers['content-disposition']).toMatch(/^attachment;/);
  });

  it('answers HEAD with the headers and no body', async () => {
    const res = await user.req({ method: 'HEAD', url: mp4Url });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-length']).toBe(String(video.length));
    expect(res.headers['content-type']).toBe('video/mp4');
    expect(res.body).toBe('');
  });

  it('answers 304 to a matching If-None-Match or If-Modified-Since', async () => {
    const first = await user.get(pngUrl);
    const again = await user.req({
      method: 'GET',
      url: pngUrl,
      headers: { 'if-none-match': String(first.headers.etag) },
    });
    expect(again.statusCode).toBe(304);
    expect(again.body).toBe('');
    const since = await user.req({
      method: 'GET',
      url: pngUrl,
      headers: { 'if-modified-since': String(first.headers['last-modified']) },
    });
    expect(since.statusCode).toBe(304);
    const changed = await user.req({ method: 'GET', url: pngUrl, headers: { 'if-none-match': '"other"' } });
    expect(changed.statusCode).toBe(200);
  });

  it('serves byte ranges of a video with 206, and 416 past the end', async () => {
    const head = await user.get(mp4Url);
    expect(head.headers['accept-ranges']).toBe('bytes');
    expect(head.headers['content-disposition']).toMatch(/^inline;/);
    expect(head.headers['content-type']).toBe('video/mp4');
    const part = await user.req({ method: 'GET', url: mp4Url, headers: { range: 'bytes=100-1099' } });
    expect(part.statusCode).toBe(206);
    expect(part.headers['content-range']).toBe(`bytes 100-1099/${video.length}`);
    expect(part.headers['content-length']).toBe('1000');
    expect(part.rawPayload.equals(video.subarray(100, 1100))).toBe(true);
    const open = await user.req({ method: 'GET', url: mp4Url, headers: { range: 'bytes=-500' } });
    expect(open.statusCode).toBe(206);
    expect(open.rawPayload.equals(video.subarray(video.length - 500))).toBe(true);
    const tooFar = await user.req({
      method: 'GET',
      url: mp4Url,
      headers: { range: `bytes=${video.length}-` },
    });
    expect(tooFar.statusCode).toBe(416);
    expect(tooFar.headers['content-range']).toBe(`bytes */${video.length}`);
    const stale = await user.req({
      method: 'GET',
      url: mp4Url,
      headers: { range: 'bytes=0-9', 'if-range': '"stale"' },
    });
    expect(stale.statusCode).toBe(200);
    expect(stale.rawPayload.length).toBe(video.length);
  });

  it('answers 404 for unknown names, traversal attempts and unknown kinds', async () => {
    for (const url of [
      '/uploads/files/1700000000000-0123456789abcdef.png',
      '/uploads/files/..%2F..%2Fdocket.db',
      '/uploads/files/.incoming',
      '/uploads/secrets/1700000000000-0123456789abcdef.png',
      '/uploads/files/..',
    ]) {
      const res = await user.get(url);
      expect(res.statusCode, url).toBe(404);
    }
  });

  it('works under a base path', async () => {
    const based = await createTestApp({ DOCKET_BASE_PATH: '/docket' });
    try {
      const reg = await based.app.inject({
        method: 'POST',
        url: '/docket/api/auth/register',
        payload: { username: 'basepathuser', password: 'Correct-horse-42' },
      });
      expect(reg.statusCode).toBe(201);
      const login = await based.app.inject({
        method: 'POST',
        url: '/docket/api/auth/callback/credentials',
        payload: { username: 'basepathuser', password: 'Correct-horse-42' },
      });
      const c = clientFor(based.app, {
        cookie: `docket_session=${login.cookies.find((x) => x.name === 'docket_session')?.value}`,
      });
      const res = await c.req({
        method: 'POST',
        url: '/docket/api/upload',
        ...multipartBody([{ filename: 'a.txt', contentType: 'text/plain', data: makeText() }]),
      });
      expect(res.statusCode, res.body).toBe(201);
      const url = res.json().url;
      expect(url).toMatch(/^\/uploads\/files\//);
      expect((await c.get(`/docket${url}`)).statusCode).toBe(200);
    } finally {
      await based.close();
    }
  });
});

describe('over real HTTP', () => {
  it('cuts off an upload far over the limit, answers 400 and keeps serving', async () => {
    const real = await createTestApp();
    try {
      const owner = await signUp(real.app);
      await setSettings(owner, { maxDocumentSize: 100_000 });
      await real.app.listen({ port: 0, host: '127.0.0.1' });
      const port = (real.app.server.address() as AddressInfo).port;
      const { headers } = multipartBody([]);
      const boundary = headers['content-type'].split('boundary=')[1];
      const head = Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="huge.txt"\r\nContent-Type: text/plain\r\n\r\n`,
      );
      const total = 64 * 1024 * 1024;
      const answer = await new Promise<{ status: number; body: string; connection?: string }>(
        (resolve, reject) => {
          const req = http.request(
            {
              host: '127.0.0.1',
              port,
              method: 'POST',
              path: '/api/upload',
              headers: { ...headers, cookie: owner.cookie, 'content-length': head.length + total },
            },
            (res) => {
              let body = '';
              res.on('data', (c) => {
                body += c;
              });
              res.on('end', () =>
                resolve({ status: res.statusCode ?? 0, body, connection: res.headers.connection }),
              );
            },
          );
          req.on('error', reject);
          req.write(head);
          const chunk = Buffer.alloc(64 * 1024, 'a');
          let sent = 0;
          const pump = () => {
            while (sent < total) {
              sent += chunk.length;
              if (!req.write(chunk)) {
                req.once('drain', pump);
                return;
              }
            }
            req.end();
          };
          req.on('error', () => {});
          pump();
        },
      );
      expect(answer.status).toBe(400);
      expect(JSON.parse(answer.body)).toMatchObject({ error: 'File too large', maxSize: 100_000 });
      expect(answer.connection).toBe('close');
      expect(await allUploadAreaFiles(real.config)).toEqual([]);
      const health = await fetch(`http://127.0.0.1:${port}/api/upload`, {
        headers: { cookie: owner.cookie },
      });
      expect(health.status).toBe(200);
    } finally {
      await real.close();
    }
  });

  it('receives a 12 MB video in a real request and stores it byte for byte', async () => {
    const real = await createTestApp();
    try {
      const owner = await signUp(real.app);
      await real.app.listen({ port: 0, host: '127.0.0.1' });
      const port = (real.app.server.address() as AddressInfo).port;
      const video = makeMp4(12 * 1024 * 1024);
      const form = new FormData();
      form.append('file', new Blob([new Uint8Array(video)], { type: 'video/mp4' }), 'big.mp4');
      const res = await fetch(`http://127.0.0.1:${port}/api/upload`, {
        method: 'POST',
        body: form,
        headers: { cookie: owner.cookie },
      });
      expect(res.status).toBe(201);
      const body = await res.json();
      expect(body.size).toBe(video.length);
      expect((await readStored(real.config, 'files', body.url.split('/').pop())).equals(video)).toBe(true);
      expect(await storedFiles(real.config, 'files')).toHaveLength(1);
    } finally {
      await real.close();
    }
  });
});
