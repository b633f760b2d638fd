import compress from '@fastify/compress';
import type { FastifyInstance } from 'fastify';

/** Answers smaller than about one TCP packet gain nothing from compression: they take one round trip anyway. */
export const COMPRESSION_THRESHOLD_BYTES = 1400;

/**
 * JSON and HTML answers over the threshold are compressed with brotli or gzip, whichever the client
 * prefers (`Accept-Encoding`), streamed through zlib as they are written. Never compressed: event
 * streams (a compressor holds events back until its buffer fills; they are hijacked anyway), byte
 * ranges, stored files (route option `compress: false`), and the built assets, which were compressed
 * at build time (scripts/build.js) and are sent as they are. Brotli runs at quality 4: a 1,000-ticket
 * list compresses about as small as at 11 in a tenth of the time (docs/decisions/045).
 */
export async function registerCompression(app: FastifyInstance) {
  await app.register(compress, {
    global: true,
    threshold: COMPRESSION_THRESHOLD_BYTES,
    encodings: ['br', 'gzip'],
    customTypes: /^(?:application\/(?:[\w.+-]+\+)?json|text\/html)(?:;|$)/,
    // Request bodies stay as they are: a compressed upload would bypass the body size limit.
    globalDecompression: false,
  });
}
