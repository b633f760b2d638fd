import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { brotliCompressSync, brotliDecompressSync, gunzipSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COMPRESSION_THRESHOLD_BYTES } from '../src/server/plugins/compression.js';
import { createTestApp, type TestApp } from './helpers/app.js';
import { makeProject, makeTicket, type ProjectOut } from './helpers/board.js';
import { type Client, signUp } from './helpers/factories.js';
import { upload } from './helpers/files.js';

/** A built app with one hashed asset and its build-time .br and .gz copies (scripts/build.js). */
const ASSET = Buffer.from(`export const words = ${JSON.stringify('compressible '.repeat(400))};\n`);
function fakeBuild() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'docket-web-'));
  fs.mkdirSync(path.join(dir, 'assets'));
  fs.writeFileSync(path.join(dir, 'index.html'), '<!doctype html><html><head></head><body></body></html>');
  fs.writeFileSync(path.join(dir, 'assets', 'index-abc.js'), ASSET);
  fs.writeFileSync(path.join(dir, 'assets', 'index-abc.js.br'), brotliCompressSync(ASSET));
  fs.writeFileSync(path.join(dir, 'assets', 'index-abc.js.gz'), gzipSync(ASSET));
  return dir;
}

let t: TestApp;
let owner: Client;
let project: ProjectOut;
let webRoot: string;

beforeAll(async () => {
  webRoot = fakeBuild();
  t = await createTestApp({}, { webRoot });
  owner = await signUp(t.app);
  project = await makeProject(owner);
  for (let i = 0; i < 30; i++)
    await makeTicket(owner, project.id, { title: `A ticket with a title long enough to matter ${i}` });
});
afterAll(async () => {
  await t?.close();
  fs.rmSync(webRoot, { recursive: true, force: true });
});

describe('compressed answers', () => {
  it('sends the build-time brotli or gzip copy of an asset by Accept-Encoding, cached as immutable', async () => {
    const br = await t.app.inject({
      method: 'GET',
      url: '/assets/index-abc.js',
      headers: { 'accept-encoding': 'gzip, deflate, br' },
    });
    expect(br.statusCode).toBe(200);
    expect(br.headers['content-encoding']).toBe('br');
    expect(br.headers['content-type']).toMatch(/javascript/);
    expect(br.headers.vary).toMatch(/accept-encoding/i);
    expect(br.headers['cache-control']).toMatch(/immutable/);
    expect(brotliDecompressSync(br.rawPayload).equals(ASSET)).toBe(true);

    const gz = await t.app.inject({
      method: 'GET',
      url: '/assets/index-abc.js',
      headers: { 'accept-encoding': 'gzip' },
    });
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(gz.rawPayload).equals(ASSET)).toBe(true);

    const plain = await t.app.inject({ method: 'GET', url: '/assets/index-abc.js' });
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.rawPayload.equals(ASSET)).toBe(true);
  });

  it('compresses a large JSON answer by the client’s preference, leaves small ones and unasked ones alone', async () => {
    const list = `/api/projects/${project.id}/tickets`;
    const plain = await owner.get(list);
    expect(plain.statusCode).toBe(200);
    expect(plain.rawPayload.length).toBeGreaterThan(COMPRESSION_THRESHOLD_BYTES);
    expect(plain.headers['content-encoding']).toBeUndefined();

    const br = await owner.req({
      method: 'GET',
      url: list,
      headers: { 'accept-encoding': 'br;q=1, gzip;q=0.5' },
    });
    expect(br.headers['content-encoding']).toBe('br');
    expect(br.headers.vary).toMatch(/accept-encoding/i);
    expect(JSON.parse(brotliDecompressSync(br.rawPayload).toString())).toEqual(plain.json());
    expect(br.rawPayload.length).toBeLessThan(plain.rawPayload.length / 3);

    const gz = await owner.req({ method: 'GET', url: list, headers: { 'accept-encoding': 'gzip' } });
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(JSON.parse(gunzipSync(gz.rawPayload).toString())).toEqual(plain.json());

    const small = await owner.req({
      method: 'GET',
      url: '/api/me',
      headers: { 'accept-encoding': 'gzip, br' },
    });
    expect(small.statusCode).toBe(200);
    expect(small.rawPayload.length).toBeLessThan(COMPRESSION_THRESHOLD_BYTES);
    expect(small.headers['content-encoding']).toBeUndefined();
  });

  it('sends stored files as stored, even a compressible text file to a client that accepts gzip', async () => {
    const ticket = await makeTicket(owner, project.id);
    const text = Buffer.from('line of notes\n'.repeat(500));
    const res = await upload(owner, `/api/projects/${project.id}/tickets/${ticket.id}/attachments`, {
      filename: 'notes.txt',
      contentType: 'text/plain',
      data: text,
    });
    expect(res.statusCode, res.body).toBe(201);
    const file = await owner.req({
      method: 'GET',
      url: res.json().url,
      headers: { 'accept-encoding': 'gzip, br' },
    });
    expect(file.statusCode).toBe(200);
    expect(file.headers['content-encoding']).toBeUndefined();
    expect(file.headers['content-length']).toBe(String(text.length));
    expect(file.rawPayload.equals(text)).toBe(true);
  });

  it('does not inflate a gzip request body: it is refused like any body the API cannot read', async () => {
    const res = await owner.req({
      method: 'POST',
      url: `/api/projects/${project.id}/tickets`,
      headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
      payload: gzipSync(JSON.stringify({ title: 'Zipped' })),
    });
    expect(res.statusCode).toBeGreaterThanOrEqual(400);
    expect(res.statusCode).toBeLessThan(500);
    const list = (await owner.get(`/api/projects/${project.id}/tickets`)).json();
    expect(list.some((x: { title: string }) => x.title === 'Zipped')).toBe(false);
  });
});
