import fs from 'node:fs';
import fsp from 'node:fs/promises';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { notFound } from '../domain/errors.js';

/** What a stored file is served with: no script runs in it, nothing sniffs it, nothing frames it. */
export const FILE_CSP = "default-src 'none'; sandbox; frame-ancestors 'none'";
/** Stored names never change content; a day of private caching, then revalidation by ETag. */
export const FILE_CACHE_CONTROL = 'private, max-age=86400';

/** `inline` or `attachment` with the name as plain ASCII and, for any other character, RFC 5987. */
export function contentDisposition(type: 'inline' | 'attachment', filename: string): string {
  const fallback = filename.replace(/[^\x20-\x7e]/g, '_').replace(/["\\]/g, '_') || 'file';
  const encoded = encodeURIComponent(filename).replace(
    /['()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
  return `${type}; filename="${fallback}"; filename*=UTF-8''${encoded}`;
}

type Range = { start: number; end: number };

/**
 * One `bytes=` range (RFC 9110 section 14). Returns null when the header is to be ignored (malformed,
 * or several ranges: the whole file is sent), 'unsatisfiable' for a range past the end.
 */
export function parseRange(header: string, size: number): Range | 'unsatisfiable' | null {
  const m = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!m || (m[1] === '' && m[2] === '')) return null;
  if (m[1] === '') {
    const suffix = Number(m[2]);
    if (suffix === 0) return 'unsatisfiable';
    return { start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(m[1]);
  const last = m[2] === '' ? size - 1 : Number(m[2]);
  if (start >= size) return 'unsatisfiable';
  if (last < start) return null;
  return { start, end: Math.min(last, size - 1) };
}

const stripWeak = (tag: string) => tag.trim().replace(/^W\//, '');

function notModified(req: FastifyRequest, etag: string, mtime: Date): boolean {
  const inm = req.headers['if-none-match'];
  if (typeof inm === 'string') return inm.trim() === '*' || inm.split(',').some((t) => stripWeak(t) === etag);
  const ims = req.headers['if-modified-since'];
  if (typeof ims === 'string') {
    const since = Date.parse(ims);
    return !Number.isNaN(since) && Math.floor(mtime.getTime() / 1000) <= Math.floor(since / 1000);
  }
  return false;
}

/** If-Range: the range applies only while the file is still the one the client has part of. */
function rangeStillValid(req: FastifyRequest, etag: string, lastModified: string): boolean {
  const ifRange = req.headers['if-range'];
  if (typeof ifRange !== 'string') return true;
  return ifRange.trim() === etag || ifRange.trim() === lastModified;
}

export interface SendFileOptions {
  mimeType: string;
  filename: string;
}

/**
 * Sends a stored file: the stored MIME type, nosniff, a sandboxing CSP, `Content-Disposition`
 * (inline for images and videos, attachment for everything else), ETag and Last-Modified with
 * conditional requests, and single byte ranges (video seeking).
 */
export async function sendStoredFile(
  req: FastifyRequest,
  reply: FastifyReply,
  fullPath: string,
  opts: SendFileOptions,
) {
  const st = await fsp.stat(fullPath).catch(() => null);
  if (!st?.isFile()) throw notFound();
  const etag = `"${st.size.toString(16)}-${Math.floor(st.mtimeMs).toString(16)}"`;
  const lastModified = st.mtime.toUTCString();
  const inline = opts.mimeType.startsWith('image/') || opts.mimeType.startsWith('video/');
  const type = opts.mimeType.startsWith('text/') ? `${opts.mimeType}; charset=utf-8` : opts.mimeType;

  reply
    .header('Content-Type', type)
    .header('X-Content-Type-Options', 'nosniff')
    .header('Content-Security-Policy', FILE_CSP)
    .header('Cross-Origin-Resource-Policy', 'same-origin')
    .header('Content-Disposition', contentDisposition(inline ? 'inline' : 'attachment', opts.filename))
    .header('Cache-Control', FILE_CACHE_CONTROL)
    .header('ETag', etag)
    .header('Last-Modified', lastModified)
    .header('Accept-Ranges', 'bytes');

  if (notModified(req, etag, st.mtime)) return reply.status(304).send();

  const rangeHeader = req.headers.range;
  const range =
    typeof rangeHeader === 'string' && rangeStillValid(req, etag, lastModified)
      ? parseRange(rangeHeader, st.size)
      : null;
  if (range === 'unsatisfiable') {
    return reply
      .status(416)
      .header('Content-Range', `bytes */${st.size}`)
      .type('application/json')
      .send({ error: 'Range not satisfiable' });
  }
  if (range) {
    reply
      .status(206)
      .header('Content-Range', `bytes ${range.start}-${range.end}/${st.size}`)
      .header('Content-Length', String(range.end - range.start + 1));
    return reply.send(fs.createReadStream(fullPath, { start: range.start, end: range.end }));
  }
  reply.header('Content-Length', String(st.size));
  return reply.send(fs.createReadStream(fullPath));
}
