import type { FastifyReply, FastifyRequest } from 'fastify';
import { notFound } from '../domain/errors.js';
import type { FileKind, FileStore } from '../files/storage.js';

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
 * Sends a stored file, from whichever store holds it: the stored MIME type, nosniff, a sandboxing
 * CSP, `Content-Disposition` (inline for images and videos, attachment for everything else), ETag
 * and Last-Modified with conditional requests, and single byte ranges (video seeking). The caller
 * has checked the right to see it. When the store offers presigned URLs (DOCKET_S3_PRESIGN), the
 * answer is a redirect to one that the bucket serves with the same type, disposition and caching.
 */
export async function sendStoredFile(
  req: FastifyRequest,
  reply: FastifyReply,
  store: FileStore,
  file: { kind: FileKind; name: string } & SendFileOptions,
) {
  const st = await store.stat(file.kind, file.name);
  if (!st) throw notFound();
  const etag = `"${st.size.toString(16)}-${Math.floor(st.modified.getTime()).toString(16)}"`;
  const lastModified = st.modified.toUTCString();
  const inline = file.mimeType.startsWith('image/') || file.mimeType.startsWith('video/');
  const type = file.mimeType.startsWith('text/') ? `${file.mimeType}; charset=utf-8` : file.mimeType;
  const disposition = contentDisposition(inline ? 'inline' : 'attachment', file.filename);

  const url = await store.downloadUrl(file.kind, file.name, {
    contentType: type,
    contentDisposition: disposition,
    cacheControl: FILE_CACHE_CONTROL,
  });
  if (url) return reply.header('Cache-Control', 'private, no-store').redirect(url, 302);

  reply
    .header('Content-Type', type)
    .header('X-Content-Type-Options', 'nosniff')
    .header('Content-Security-Policy', FILE_CSP)
    .header('Cross-Origin-Resource-Policy', 'same-origin')
    .header('Content-Disposition', disposition)
    .header('Cache-Control', FILE_CACHE_CONTROL)
    .header('ETag', etag)
    .header('Last-Modified', lastModified)
    .header('Accept-Ranges', 'bytes');

  if (notModified(req, etag, st.modified)) return reply.status(304).send();

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
    return reply.send(store.read(file.kind, file.name, range));
  }
  reply.header('Content-Length', String(st.size));
  return reply.send(store.read(file.kind, file.name));
}
