import { once } from 'node:events';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import type { Readable } from 'node:stream';
import { finished } from 'node:stream/promises';
import { fileTypeFromFile } from 'file-type';
import type { SystemSettings } from '../shared/accounts.js';
import { ERR } from '../shared/errors.js';
import { BLOCKED_TYPES, LIMITS } from '../shared/limits.js';
import type { FileStore } from './storage.js';

/**
 * A file refused by the upload rules: `reason` is the stable error text (src/shared/errors.ts) and
 * `facts` what the uploader is told (the allowed types, the limit). The domain turns it into a 400.
 */
export class FileRejected extends Error {
  constructor(
    readonly reason: string,
    readonly facts: Record<string, unknown> = {},
  ) {
    super(reason);
    this.name = 'FileRejected';
  }
}

/**
 * Upload validation (DECISIONS "Attachments and files"), in this order:
 *   1. no file                                   -> 400 `No file provided`
 *   2. declared type, extension and sniffed content must agree and be allowed
 *                                                -> 400 `File type not allowed` {allowed}
 *   3. size against the category limit           -> 400 `File too large` {maxSize, actualSize}
 * The upload streams to a temporary file while it is counted and checked, so a large video never
 * sits in memory; past the limit nothing more is written, and far past it the server stops reading.
 */

export type Category = 'image' | 'video' | 'document';
export const CATEGORIES: readonly Category[] = ['image', 'video', 'document'];

export interface UploadRules {
  /** Allowed MIME types per category. */
  allowed: Record<Category, readonly string[]>;
  /** Size limit per category, in bytes. */
  maxSize: Record<Category, number>;
}

/** One file part of a request, as the HTTP layer hands it over (a multipart part). */
export interface IncomingFile {
  filename: string;
  mimetype: string;
  file: Readable & { truncated?: boolean };
}

/**
 * Produces the request's file, or undefined when there is none. `maxFileBytes` is where the
 * parser stops reading a file at all (the hard cap); the rules' limits are enforced here.
 */
export type UploadSource = (opts: { maxFileBytes: number }) => Promise<IncomingFile | undefined>;

/** A checked upload waiting in a temporary file; import it into the store or discard it. */
export interface ReceivedFile {
  tempPath: string;
  /** The original file name without any directory part or control characters. */
  filename: string;
  /** The canonical MIME type (a member of the allowed list). */
  mimeType: string;
  /** Lower-case extension of the original name, used for the stored name. */
  extension: string;
  category: Category;
  size: number;
}

interface KnownType {
  extensions: readonly string[];
  /** What file-type must report for the content, or `text` for our own text checks. */
  content: readonly string[] | 'text';
}

/** The types the server knows how to verify by extension and content. */
export const KNOWN_TYPES: Readonly<Record<string, KnownType>> = {
  'image/jpeg': { extensions: ['jpg', 'jpeg'], content: ['image/jpeg'] },
  'image/png': { extensions: ['png'], content: ['image/png'] },
  'image/gif': { extensions: ['gif'], content: ['image/gif'] },
  'image/webp': { extensions: ['webp'], content: ['image/webp'] },
  'video/mp4': { extensions: ['mp4', 'm4v'], content: ['video/mp4', 'video/x-m4v'] },
  'video/webm': { extensions: ['webm'], content: ['video/webm'] },
  'video/ogg': {
    extensions: ['ogg', 'ogv'],
    content: ['video/ogg', 'audio/ogg', 'application/ogg', 'audio/opus'],
  },
  'video/quicktime': { extensions: ['mov', 'qt'], content: ['video/quicktime'] },
  'application/pdf': { extensions: ['pdf'], content: ['application/pdf'] },
  'text/plain': { extensions: ['txt'], content: 'text' },
  'text/csv': { extensions: ['csv'], content: 'text' },
  // Word 97-2003 and Excel 97-2003 are OLE compound files; file-type reports the container.
  'application/msword': { extensions: ['doc'], content: ['application/x-cfb', 'application/msword'] },
  'application/vnd.ms-excel': {
    extensions: ['xls'],
    content: ['application/x-cfb', 'application/vnd.ms-excel'],
  },
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document': {
    extensions: ['docx'],
    content: ['application/vnd.openxmlformats-officedocument.wordprocessingml.document'],
  },
  'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet': {
    extensions: ['xlsx'],
    content: ['application/vnd.openxmlformats-officedocument.spreadsheetml.sheet'],
  },
};

/** Other names clients declare for the same types. */
const DECLARED_ALIASES: Readonly<Record<string, string>> = {
  'image/jpg': 'image/jpeg',
  'image/pjpeg': 'image/jpeg',
  'image/x-png': 'image/png',
  'video/x-quicktime': 'video/quicktime',
  'video/x-m4v': 'video/mp4',
  'text/x-csv': 'text/csv',
  'application/csv': 'text/csv',
  'text/comma-separated-values': 'text/csv',
};

const BLOCKED = new Set<string>(BLOCKED_TYPES);
export const isBlockedType = (mime: string) => BLOCKED.has(mime);

/** The upload rules from the system settings; blocked types never count as allowed. */
export function uploadRules(s: SystemSettings): UploadRules {
  const clean = (list: readonly string[]) =>
    list.map((t) => t.toLowerCase()).filter((t) => !isBlockedType(t));
  return {
    allowed: {
      image: clean(s.allowedImageTypes),
      video: clean(s.allowedVideoTypes),
      document: clean(s.allowedDocumentTypes),
    },
    maxSize: { image: s.maxImageSize, video: s.maxVideoSize, document: s.maxDocumentSize },
  };
}

/** Avatars: JPEG, PNG, GIF or WebP up to 2 MB, whatever the settings say. */
export const AVATAR_RULES: UploadRules = {
  allowed: { image: ['image/jpeg', 'image/png', 'image/gif', 'image/webp'], video: [], document: [] },
  maxSize: { image: LIMITS.avatarMaxBytes, video: 0, document: 0 },
};

export const allowedList = (rules: UploadRules): string[] => [
  ...new Set([...rules.allowed.image, ...rules.allowed.video, ...rules.allowed.document]),
];

/**
 * Where the server stops reading an oversized file: twice the largest limit. Up to there the
 * reported `actualSize` is exact; beyond it, it is the number of bytes read before stopping.
 */
export const hardCapOf = (rules: UploadRules) => 2 * Math.max(...CATEGORIES.map((c) => rules.maxSize[c]));

/**
 * The original name without directories, control characters, bidirectional controls (which make
 * `invoice\u202Efdp.exe` read as `invoiceexe.pdf`) or surrounding blanks; at most 255 characters.
 */
export function sanitizeFilename(raw: string | undefined): string {
  const base = (raw ?? '').split(/[\\/]/).pop() ?? '';
  let name = base
    // biome-ignore lint/suspicious/noControlCharactersInRegex: removing control characters is the point
    .replace(/[\u0000-\u001f\u007f-\u009f]/g, '')
    .replace(/[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g, '')
    .trim();
  if (name === '.' || name === '..') name = '';
  if (name.length > 255) {
    const dot = name.lastIndexOf('.');
    const ext = dot > 0 && name.length - dot <= 16 ? name.slice(dot) : '';
    name = name.slice(0, 255 - ext.length) + ext;
  }
  return name;
}

export function extensionOf(filename: string): string {
  const dot = filename.lastIndexOf('.');
  return dot > 0 ? filename.slice(dot + 1).toLowerCase() : '';
}

/** The declared type in canonical form: lower case, no parameters, aliases resolved. */
export function canonicalType(declared: string | undefined, extension: string): string {
  const t = (declared ?? '').split(';')[0].trim().toLowerCase();
  // Browsers on Windows declare CSV files as Excel files when Excel is installed.
  if (t === 'application/vnd.ms-excel' && extension === 'csv') return 'text/csv';
  return DECLARED_ALIASES[t] ?? t;
}

export function categoryOf(mime: string, rules: UploadRules): Category | null {
  return CATEGORIES.find((c) => rules.allowed[c].includes(mime)) ?? null;
}

/**
 * Markup and scripts in a text file: HTML or SVG at the start (the WHATWG sniffing table) or a
 * script, HTML, SVG or frame element within the first kilobyte (older browsers looked that far),
 * and shebang scripts.
 */
const MARKUP_START =
  /^<(?:!doctype\s+html|html|head|body|script|iframe|svg|\?xml|!--|h1|div|font|table|a|style|title|b|br|p|img|object|embed|meta|link|form)(?:[\s>/]|$)/i;
const MARKUP_ANYWHERE =
  /<(?:script|svg|html|iframe|object|embed|frameset)(?:[\s>/]|$)|<!doctype\s+html|<\?xml-stylesheet/i;

export function looksLikeMarkupOrScript(head: string): boolean {
  const start = head.replace(/^\uFEFF/, '').trimStart();
  if (start.startsWith('#!')) return true;
  if (MARKUP_START.test(start)) return true;
  return MARKUP_ANYWHERE.test(head.slice(0, 1024));
}

/** Streaming UTF-8 and NUL check of a text upload, keeping the first kilobytes for the markup check. */
class TextCheck {
  private decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
  ok = true;
  head = '';

  push(chunk: Buffer) {
    if (!this.ok) return;
    if (chunk.includes(0)) {
      this.ok = false;
      return;
    }
    try {
      const s = this.decoder.decode(chunk, { stream: true });
      if (this.head.length < 4096) this.head += s.slice(0, 4096 - this.head.length);
    } catch {
      this.ok = false;
    }
  }

  /** A complete file must not end inside a character; a cut-off one may. */
  end(complete: boolean) {
    if (!this.ok || !complete) return;
    try {
      this.decoder.decode();
    } catch {
      this.ok = false;
    }
  }
}

const typeNotAllowed = (rules: UploadRules) =>
  new FileRejected(ERR.fileTypeNotAllowed, { allowed: allowedList(rules) });

/** Stops reading a part that is refused before its content was looked at. */
function abandon(stream: Readable) {
  stream.on('error', () => {});
  stream.destroy();
}

/** A part that ended early or is not valid multipart data: the client's fault, never a 500. */
const malformed = () =>
  new FileRejected(ERR.validation, {
    details: [{ path: 'file', message: 'The upload ended early or is not valid multipart data' }],
  });

/**
 * Receives the request's file into a temporary file of the store and checks it. On any refusal
 * the temporary file is gone before the error is thrown; on success the caller owns it (import it
 * with `importReceived`, or `discardReceived`).
 */
export async function receiveFile(
  store: FileStore,
  source: UploadSource,
  rules: UploadRules,
): Promise<ReceivedFile> {
  const hardCap = hardCapOf(rules);
  const part = await source({ maxFileBytes: hardCap + 1 });
  if (!part) throw new FileRejected(ERR.noFile);

  const filename = sanitizeFilename(part.filename);
  const extension = extensionOf(filename);
  const mimeType = canonicalType(part.mimetype, extension);
  const category = categoryOf(mimeType, rules);
  const known = KNOWN_TYPES[mimeType];
  // Declared type and extension first: no byte is stored for a type that cannot be allowed.
  const declaredOk =
    category !== null &&
    !isBlockedType(mimeType) &&
    filename !== '' &&
    (known ? known.extensions.includes(extension) : !mimeType.startsWith('text/') && extension !== '');
  if (!declaredOk || category === null) {
    abandon(part.file);
    throw typeNotAllowed(rules);
  }

  const limit = rules.maxSize[category];
  const readCap = Math.min(2 * limit, hardCap);
  const isText = known?.content === 'text';
  const text = isText ? new TextCheck() : null;
  const tempPath = await store.createTempPath();
  let size = 0;
  let cutOff = false;
  let writeFailed = false;
  try {
    const out = fs.createWriteStream(tempPath, { flags: 'wx' });
    out.on('error', () => {
      writeFailed = true;
    });
    const closed = finished(out);
    closed.catch(() => {}); // awaited below; this only keeps an early write error from going unhandled
    try {
      for await (const chunk of part.file as AsyncIterable<Buffer>) {
        const before = size;
        size += chunk.length;
        if (before < limit) {
          const piece = size <= limit ? chunk : chunk.subarray(0, limit - before);
          text?.push(piece);
          if (out.errored) throw out.errored;
          if (!out.write(piece)) await once(out, 'drain');
        }
        if (size > readCap) {
          // Leaving the loop destroys the part: the parser stops and the connection is closed after the answer.
          cutOff = true;
          break;
        }
      }
    } finally {
      out.end();
      await closed;
    }
    if (part.file.truncated) cutOff = true;
    if (size === 0) throw new FileRejected(ERR.noFile);

    const complete = size <= limit && !cutOff;
    text?.end(complete);
    const sniffed = await fileTypeFromFile(tempPath).catch(() => undefined);
    let contentOk: boolean;
    if (sniffed && isBlockedType(sniffed.mime)) contentOk = false;
    else if (text) contentOk = !sniffed && text.ok && !looksLikeMarkupOrScript(text.head);
    else if (known && known.content !== 'text') contentOk = !!sniffed && known.content.includes(sniffed.mime);
    else contentOk = !!sniffed && sniffed.mime === mimeType && sniffed.ext === extension;
    if (!contentOk) throw typeNotAllowed(rules);

    if (!complete) throw new FileRejected(ERR.fileTooLarge, { maxSize: limit, actualSize: size });
    return { tempPath, filename, mimeType, extension, category, size };
  } catch (err) {
    await fsp.rm(tempPath, { force: true });
    if (err instanceof FileRejected || writeFailed) throw err;
    throw malformed();
  }
}

export async function discardReceived(file: ReceivedFile): Promise<void> {
  await fsp.rm(file.tempPath, { force: true });
}

/** Options for registering the multipart parser: one file per request, a few small fields. */
export function multipartLimits(rules: UploadRules) {
  return {
    fileSize: Math.max(hardCapOf(rules), hardCapOf(AVATAR_RULES)) + 1,
    files: 1,
    fields: 10,
    fieldSize: 64 * 1024,
    parts: 20,
    headerPairs: 100,
  };
}
