import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './helpers/app.js';
import { type Client, PASSWORD, signUp } from './helpers/factories.js';
import {
  allUploadAreaFiles,
  makeBigPng,
  makeGif,
  makeHtml,
  makeJpeg,
  makeJpegWithExif,
  makePdf,
  makePng,
  makeSvg,
  makeWebp,
  readStored,
  storedFiles,
  upload,
} from './helpers/files.js';

let t: TestApp;
let admin: Client;

const AVATAR_TYPES = ['image/jpeg', 'image/png', 'image/gif', 'image/webp'];
const nameOf = (url: string) => url.split('/').pop() as string;

async function avatarColumn(userId: string) {
  const row = await t.app.services.db.kysely
    .selectFrom('users')
    .select('avatar')
    .where('id', '=', userId)
    .executeTakeFirstOrThrow();
  return row.avatar;
}

beforeAll(async () => {
  t = await createTestApp();
  admin = await signUp(t.app);
});
afterAll(async () => t.close());

describe('POST /api/me/avatar', () => {
  it.each([
    ['JPEG', 'me.jpg', 'image/jpeg', () => makeJpeg(640, 480)],
    ['PNG', 'me.png', 'image/png', () => makePng(300, 900)],
    ['GIF', 'me.gif', 'image/gif', () => makeGif(100, 100)],
    ['WebP', 'me.webp', 'image/webp', () => makeWebp(50, 80)],
  ])(
    'turns a %s into a 256x256 WebP and answers 200 {avatar}',
    async (_label, filename, contentType, make) => {
      const user = await signUp(t.app);
      const res = await upload(user, '/api/me/avatar', { filename, contentType, data: await make() });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).toEqual({
        avatar: expect.stringMatching(/^\/uploads\/avatars\/\d+-[0-9a-f]+\.webp$/),
      });
      const stored = await readStored(t.config, 'avatars', nameOf(res.json().avatar));
      const meta = await sharp(stored).metadata();
      expect(meta).toMatchObject({ format: 'webp', width: 256, height: 256 });
      expect((await user.get('/api/me')).json().avatar).toBe(res.json().avatar);
    },
  );

  it('centre-crops: a wide image keeps its middle', async () => {
    const user = await signUp(t.app);
    // 600x200: red | green | blue thirds. The square crop is the green middle.
    const third = (r: number, g: number, b: number) =>
      sharp({ create: { width: 200, height: 200, channels: 3, background: { r, g, b } } })
        .png()
        .toBuffer();
    const wide = await sharp({
      create: { width: 600, height: 200, channels: 3, background: { r: 0, g: 0, b: 0 } },
    })
      .composite([
        { input: await third(255, 0, 0), left: 0, top: 0 },
        { input: await third(0, 255, 0), left: 200, top: 0 },
        { input: await third(0, 0, 255), left: 400, top: 0 },
      ])
      .png()
      .toBuffer();
    const res = await upload(user, '/api/me/avatar', {
      filename: 'wide.png',
      contentType: 'image/png',
      data: wide,
    });
    expect(res.statusCode, res.body).toBe(200);
    const { data, info } = await sharp(await readStored(t.config, 'avatars', nameOf(res.json().avatar)))
      .raw()
      .toBuffer({ resolveWithObject: true });
    for (const x of [5, 128, 250]) {
      const i = (128 * info.width + x) * info.channels;
      expect(data[i + 1]).toBeGreaterThan(200);
      expect(data[i]).toBeLessThan(60);
      expect(data[i + 2]).toBeLessThan(60);
    }
  });

  it('strips metadata (EXIF) from the stored image', async () => {
    const user = await signUp(t.app);
    const source = await makeJpegWithExif();
    expect((await sharp(source).metadata()).exif).toBeDefined();
    const res = await upload(user, '/api/me/avatar', {
      filename: 'cam.jpg',
      contentType: 'image/jpeg',
      data: source,
    });
    const stored = await readStored(t.config, 'avatars', nameOf(res.json().avatar));
    const meta = await sharp(stored).metadata();
    expect(meta.exif).toBeUndefined();
    expect(meta.icc).toBeUndefined();
    expect(meta.xmp).toBeUndefined();
    expect(stored.includes(Buffer.from('Secret-Model-9000'))).toBe(false);
  });

  it('removes the previous file when the avatar changes, and emits user.updated', async () => {
    const user = await signUp(t.app);
    const first = (
      await upload(user, '/api/me/avatar', {
        filename: 'a.png',
        contentType: 'image/png',
        data: await makePng(),
      })
    ).json().avatar;
    const second = (
      await upload(user, '/api/me/avatar', {
        filename: 'b.png',
        contentType: 'image/png',
        data: await makePng(90, 90),
      })
    ).json().avatar;
    expect(second).not.toBe(first);
    const files = await storedFiles(t.config, 'avatars');
    expect(files).not.toContain(nameOf(first));
    expect(files).toContain(nameOf(second));
    const events = await t.app.services.db.kysely
      .selectFrom('events')
      .selectAll()
      .where('type', '=', 'user.updated')
      .where('user_id', '=', user.userId)
      .orderBy('id')
      .execute();
    expect(events.map((e) => JSON.parse(e.data).avatar)).toEqual([first, second]);
    expect(events[0].scope).toBe('user');
    expect(JSON.parse(events[1].data)).toEqual({
      id: user.userId,
      username: user.username,
      name: null,
      avatar: second,
    });
  });

  it('keeps exactly one file when the same user uploads several avatars at once', async () => {
    const user = await signUp(t.app);
    const data = await makePng();
    const results = await Promise.all(
      Array.from({ length: 5 }, () =>
        upload(user, '/api/me/avatar', { filename: 'a.png', contentType: 'image/png', data }),
      ),
    );
    expect(results.map((r) => r.statusCode)).toEqual([200, 200, 200, 200, 200]);
    const current = await avatarColumn(user.userId);
    const mine = new Set(results.map((r) => nameOf(r.json().avatar)));
    const left = (await storedFiles(t.config, 'avatars')).filter((f) => mine.has(f));
    expect(left).toEqual([current]);
  });

  it('serves the avatar to any signed-in user as an inline WebP; 401 without a session', async () => {
    const user = await signUp(t.app);
    const url = (
      await upload(user, '/api/me/avatar', {
        filename: 'a.png',
        contentType: 'image/png',
        data: await makePng(),
      })
    ).json().avatar;
    const stranger = await signUp(t.app);
    const res = await stranger.get(url);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('image/webp');
    expect(res.headers['content-disposition']).toMatch(/^inline;/);
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect((await t.app.inject({ method: 'GET', url })).statusCode).toBe(401);
  });

  it.each([
    ['a PDF', 'a.pdf', 'application/pdf', () => makePdf()],
    ['an SVG', 'a.svg', 'image/svg+xml', () => makeSvg()],
    ['an HTML file named .png', 'a.png', 'image/png', () => makeHtml()],
    ['a PNG named .gif', 'a.gif', 'image/gif', () => makePng()],
  ])(
    'refuses %s with 400 File type not allowed and the four image types',
    async (_label, filename, contentType, make) => {
      const user = await signUp(t.app);
      const before = await allUploadAreaFiles(t.config);
      const res = await upload(user, '/api/me/avatar', { filename, contentType, data: await make() });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual({ error: 'File type not allowed', allowed: AVATAR_TYPES });
      expect(await allUploadAreaFiles(t.config)).toEqual(before);
      expect(await avatarColumn(user.userId)).toBeNull();
    },
  );

  it('refuses an image whose header is right but whose content is broken', async () => {
    const user = await signUp(t.app);
    const png = await makePng();
    const broken = Buffer.concat([png.subarray(0, 40), Buffer.alloc(200, 7)]);
    const before = await allUploadAreaFiles(t.config);
    const res = await upload(user, '/api/me/avatar', {
      filename: 'a.png',
      contentType: 'image/png',
      data: broken,
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toBe('File type not allowed');
    expect(await allUploadAreaFiles(t.config)).toEqual(before);
  });

  it('refuses an image over 2 MB with 400 File too large, maxSize and actualSize, whatever the image limit', async () => {
    const user = await signUp(t.app);
    const big = await makeBigPng(2 * 1024 * 1024 + 50_000);
    const before = await allUploadAreaFiles(t.config);
    const res = await upload(user, '/api/me/avatar', {
      filename: 'big.png',
      contentType: 'image/png',
      data: big,
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ error: 'File too large', maxSize: 2 * 1024 * 1024, actualSize: big.length });
    expect(await allUploadAreaFiles(t.config)).toEqual(before);
    expect(await avatarColumn(user.userId)).toBeNull();
  });

  it('answers 400 No file provided without a file', async () => {
    const user = await signUp(t.app);
    const res = await user.post('/api/me/avatar', {});
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ error: 'No file provided' });
  });
});

describe('DELETE /api/me/avatar', () => {
  it('clears the avatar, removes the file and emits user.updated', async () => {
    const user = await signUp(t.app);
    const url = (
      await upload(user, '/api/me/avatar', {
        filename: 'a.png',
        contentType: 'image/png',
        data: await makePng(),
      })
    ).json().avatar;
    const res = await user.del('/api/me/avatar');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ success: true });
    expect((await user.get('/api/me')).json().avatar).toBeNull();
    expect(await storedFiles(t.config, 'avatars')).not.toContain(nameOf(url));
    expect((await user.get(url)).statusCode).toBe(404);
    const last = await t.app.services.db.kysely
      .selectFrom('events')
      .selectAll()
      .where('type', '=', 'user.updated')
      .where('user_id', '=', user.userId)
      .orderBy('id', 'desc')
      .executeTakeFirstOrThrow();
    expect(JSON.parse(last.data).avatar).toBeNull();
    // Without an avatar it still answers 200.
    expect((await user.del('/api/me/avatar')).statusCode).toBe(200);
  });
});

describe('deleting a user', () => {
  it('removes their avatar file', async () => {
    const user = await signUp(t.app);
    const url = (
      await upload(user, '/api/me/avatar', {
        filename: 'a.png',
        contentType: 'image/png',
        data: await makePng(),
      })
    ).json().avatar;
    expect(await storedFiles(t.config, 'avatars')).toContain(nameOf(url));
    const res = await user.del('/api/me/account', { password: PASSWORD, confirmation: 'delete my account' });
    expect(res.statusCode, res.body).toBe(200);
    expect(await storedFiles(t.config, 'avatars')).not.toContain(nameOf(url));
    expect((await admin.get(url)).statusCode).toBe(404);
  });
});
