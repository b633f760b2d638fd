import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import type { Config } from '../../src/config.js';
import type { Client } from './factories.js';
import { type S3Server, s3ServerAt } from './s3-server.js';

/** A file part to upload. */
export interface FilePart {
  filename: string;
  contentType: string;
  data: Buffer;
  /** Form field name; default `file`. */
  field?: string;
}

/** A multipart/form-data body with the given file parts and plain fields, built by hand. */
export function multipartBody(files: FilePart[], fields: Record<string, string> = {}) {
  const boundary = `----docket${randomBytes(12).toString('hex')}`;
  const chunks: Buffer[] = [];
  for (const [name, value] of Object.entries(fields)) {
    chunks.push(
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`),
    );
  }
  for (const f of files) {
    chunks.push(
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="${f.field ?? 'file'}"; filename="${f.filename}"\r\nContent-Type: ${f.contentType}\r\n\r\n`,
      ),
    );
    chunks.push(f.data, Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return {
    payload: Buffer.concat(chunks),
    headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
  };
}

/** Sends `files` (usually one) as multipart to `url` as the client. */
export function upload(
  c: Client,
  url: string,
  files: FilePart | FilePart[],
  method: 'POST' | 'PUT' = 'POST',
) {
  const { payload, headers } = multipartBody(Array.isArray(files) ? files : [files]);
  return c.req({ method, url, payload, headers });
}

// --- Real files, made here --------------------------------------------------------------------

const base = (width: number, height: number) =>
  sharp({ create: { width, height, channels: 3, background: { r: 200, g: 40, b: 90 } } });

export const makePng = (w = 64, h = 48) => base(w, h).png().toBuffer();
export const makeJpeg = (w = 64, h = 48) => base(w, h).jpeg().toBuffer();
export const makeGif = (w = 64, h = 48) => base(w, h).gif().toBuffer();
export const makeWebp = (w = 64, h = 48) => base(w, h).webp().toBuffer();

/** A PNG of at least `bytes` bytes (random pixels do not compress). */
export async function makeBigPng(bytes: number): Promise<Buffer> {
  const side = Math.ceil(Math.sqrt(bytes / 3)) + 8;
  const raw = randomBytes(side * side * 3);
  return sharp(raw, { raw: { width: side, height: side, channels: 3 } })
    .png({ compressionLevel: 0 })
    .toBuffer();
}

/** A JPEG with EXIF data (camera make, orientation) to check that avatars strip it. */
export const makeJpegWithExif = (w = 300, h = 200) =>
  base(w, h)
    .jpeg()
    .withMetadata({ orientation: 1, exif: { IFD0: { Make: 'DocketCam', Model: 'Secret-Model-9000' } } })
    .toBuffer();

/** A minimal valid one-page PDF. */
export function makePdf(): Buffer {
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] >>',
  ];
  let body = '%PDF-1.4\n';
  const offsets: number[] = [];
  objects.forEach((o, i) => {
    offsets.push(Buffer.byteLength(body));
    body += `${i + 1} 0 obj\n${o}\nendobj\n`;
  });
  const xref = Buffer.byteLength(body);
  body += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const off of offsets) body += `${String(off).padStart(10, '0')} 00000 n \n`;
  body += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(body, 'latin1');
}

function box(type: string, payload: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(8 + payload.length);
  head.write(type, 4, 'ascii');
  return Buffer.concat([head, payload]);
}

/** An MP4 header: an `ftyp` box (brand isom), then an `mdat` box of `payloadBytes` bytes. */
export function makeMp4(payloadBytes = 4096): Buffer {
  const ftyp = box(
    'ftyp',
    Buffer.concat([Buffer.from('isom'), Buffer.from([0, 0, 2, 0]), Buffer.from('isomiso2avc1mp41')]),
  );
  return Buffer.concat([ftyp, box('free', Buffer.alloc(8)), box('mdat', randomBytes(payloadBytes))]);
}

export const makeText = () => Buffer.from('Release notes\nÜnïcödé is fine: ✓\n');
export const makeCsv = () => Buffer.from('id,title,points\n1,"Fix login",3\n2,Ship it,5\n');
export const makeSvg = () =>
  Buffer.from(
    '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><script>alert(document.cookie)</script></svg>',
  );
export const makeHtml = () =>
  Buffer.from('<!DOCTYPE html><html><body><script>alert(document.cookie)</script></body></html>');
export const makeElf = () =>
  Buffer.concat([Buffer.from([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1, 0]), Buffer.alloc(120, 1)]);

// --- Where files end up -----------------------------------------------------------------------
// Looked at from outside Docket: the data directory, or the bucket through the test S3 server.

type Kind = 'avatars' | 'attachments' | 'files';

const servers = new Map<string, S3Server>();
function bucketOf(config: Config) {
  if (!config.s3?.endpoint) return null;
  const endpoint = config.s3.endpoint;
  if (!servers.has(endpoint)) servers.set(endpoint, s3ServerAt(endpoint));
  return { s3: servers.get(endpoint) as S3Server, bucket: config.s3.bucket };
}

/** Stored files of one kind, sorted. */
export async function storedFiles(config: Config, kind: Kind): Promise<string[]> {
  const b = bucketOf(config);
  if (b)
    return (await b.s3.keys(b.bucket))
      .filter((k) => k.startsWith(`${kind}/`))
      .map((k) => k.slice(kind.length + 1));
  const dir = path.join(config.dataDir, 'uploads', kind);
  return fs.existsSync(dir) ? fs.readdirSync(dir).sort() : [];
}

/** Every file in the upload area: the stored ones (`<kind>/<name>`) and the temporary ones on disk. */
export async function allUploadAreaFiles(config: Config): Promise<string[]> {
  const root = path.join(config.dataDir, 'uploads');
  const local = fs.existsSync(root)
    ? (fs.readdirSync(root, { recursive: true }) as string[]).filter((p) =>
        fs.statSync(path.join(root, p)).isFile(),
      )
    : [];
  const b = bucketOf(config);
  return [...local, ...(b ? await b.s3.keys(b.bucket) : [])].sort();
}

export async function readStored(config: Config, kind: Kind, name: string): Promise<Buffer> {
  const b = bucketOf(config);
  if (!b) return fs.readFileSync(path.join(config.dataDir, 'uploads', kind, name));
  const data = await b.s3.object(b.bucket, `${kind}/${name}`);
  if (!data) throw new Error(`no object ${kind}/${name} in the bucket`);
  return data;
}

export async function setSettings(admin: Client, patch: Record<string, unknown>) {
  const res = await admin.patch('/api/admin/settings', patch);
  if (res.statusCode !== 200) throw new Error(`settings: ${res.statusCode} ${res.body}`);
  return res.json();
}
