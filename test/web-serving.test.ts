import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './helpers/app.js';

/** A minimal built app: index.html and one hashed asset, as Vite writes them. */
function fakeBuild() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'docket-web-'));
  fs.mkdirSync(path.join(dir, 'assets'));
  fs.writeFileSync(
    path.join(dir, 'index.html'),
    '<!doctype html><html><head><script type="module" src="./assets/index-abc.js"></script></head><body></body></html>',
  );
  fs.writeFileSync(path.join(dir, 'assets', 'index-abc.js'), 'console.log(1);');
  fs.writeFileSync(path.join(dir, 'favicon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
  return dir;
}

describe('serving the web app', () => {
  const apps: TestApp[] = [];
  afterAll(async () => {
    for (const a of apps) await a.close();
  });

  it('serves the built assets to signed-out visitors, so the sign-in page can load', async () => {
    const t = await createTestApp({}, { webRoot: fakeBuild() });
    apps.push(t);
    const page = await t.app.inject({ method: 'GET', url: '/sign-in', headers: { accept: 'text/html' } });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('<base href="/">');
    const asset = await t.app.inject({ method: 'GET', url: '/assets/index-abc.js' });
    expect(asset.statusCode).toBe(200);
    expect(asset.headers['content-type']).toMatch(/javascript/);
    expect(asset.headers['cache-control']).toMatch(/immutable/);
  });

  it('still protects the API next to the public assets', async () => {
    const t = await createTestApp({}, { webRoot: fakeBuild() });
    apps.push(t);
    expect((await t.app.inject({ method: 'GET', url: '/api/me' })).statusCode).toBe(401);
  });

  it('serves the assets under a base path', async () => {
    const t = await createTestApp({ DOCKET_BASE_PATH: '/docket' }, { webRoot: fakeBuild() });
    apps.push(t);
    const asset = await t.app.inject({ method: 'GET', url: '/docket/assets/index-abc.js' });
    expect(asset.statusCode).toBe(200);
    const page = await t.app.inject({
      method: 'GET',
      url: '/docket/projects/ABC',
      headers: { accept: 'text/html' },
    });
    expect(page.body).toContain('<meta name="docket-base" content="/docket">');
  });
});
