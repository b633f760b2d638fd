// A real S3-compatible server (s3rver) in its own process, for the tests: listens on an ephemeral
// loopback port, keeps its objects in the directory named by its first argument, prints
// `listening at <url>` once it answers, stops on SIGTERM, and exits by itself when the process
// that started it is gone (so a crashed test run leaves no server behind).

// Two places where s3rver computes a SigV4 signature unlike S3 and the AWS SDK, so that correctly
// signed requests fail with SignatureDoesNotMatch; the check itself is kept (a wrong key still fails):
// - a bucket-level path (`/bucket/?list-type=2`, `/bucket/?delete`) is signed without its trailing slash;
// - query values are encoded with encodeURIComponent, which leaves !'()* as they are, where SigV4
//   encodes them (a presigned URL with `response-content-disposition=...filename*=UTF-8''...`).
const authPath = require.resolve('@20minutes/s3rver/lib/middleware/authentication.js');
const authentication = require(authPath);
const plainEncode = globalThis.encodeURIComponent;
const rfc3986 = (v) =>
  plainEncode(v).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
require.cache[authPath].exports = () => {
  const check = authentication();
  return (ctx, next) => {
    const bucket = ctx.params?.bucket;
    const slashed = bucket && ctx.path.endsWith('/') && ctx.path.slice(1, -1) === bucket;
    if (slashed) ctx.params.bucket = `${bucket}/`;
    // The check runs synchronously up to next(): nothing else runs while the encoder is swapped.
    const restore = () => {
      globalThis.encodeURIComponent = plainEncode;
      if (slashed) ctx.params.bucket = bucket;
    };
    globalThis.encodeURIComponent = rfc3986;
    try {
      return check(ctx, () => {
        restore();
        return next();
      });
    } finally {
      restore();
    }
  };
};
const S3rver = require('@20minutes/s3rver');

const directory = process.argv[2];
if (!directory) {
  console.error('usage: s3-server-main.cjs <directory>');
  process.exit(2);
}
const server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory, vhostBuckets: false });
server.run().then(
  (address) => process.stdout.write(`listening at http://127.0.0.1:${address.port}\n`),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
const stop = () => server.close().finally(() => process.exit(0));
process.on('SIGTERM', stop);
const parent = process.ppid;
setInterval(() => {
  if (process.ppid === parent) return;
  // Orphaned: nobody will remove the objects' directory, so it goes with the server.
  require('node:fs').rmSync(directory, { recursive: true, force: true });
  stop();
}, 1000).unref();
