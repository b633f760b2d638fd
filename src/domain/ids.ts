import { randomBytes } from 'node:crypto';
import { v7 } from 'uuid';

/** Record ids: time-ordered UUIDv7, lowercase. */
export const newId = (): string => v7();

/** An ISO 8601 UTC timestamp with milliseconds. */
export const nowIso = (): string => new Date().toISOString();

/** A random URL-safe token of `bytes` bytes of entropy. */
export const randomToken = (bytes = 32): string => randomBytes(bytes).toString('base64url');
