// A real S3-compatible server (s3rver) in its own process, for the tests: listens on an ephemeral
// loopback port, keeps its objects in the directory named by its first argument, prints
// `listening at <url>` once it answers, stops on SIGTERM, and exits by itself when the process
// that started it is gone (so a crashed test run leaves no server behind).

// s3rver signs a bucket-level request (`/bucket/?list-type=2`, `/bucket/?delete`, `PUT /bucket/`) as
// if it had no trailing slash, while the AWS SDK (v3, path style) sends and signs the slash: every
// such request then fails with SignatureDoesNotMatch. The signature check is kept (a wrong key still
// fails); it only sees the path as sent.
const authPath = require.resolve('@20minutes/s3rver/lib/middleware/authentication.js');
const authentication = require(authPath);
require.cache[authPath].exports = () => {
  const check = authentication();
  return (ctx, next) => {
    const bucket = ctx.params?.bucket;
    if (!bucket || !ctx.path.endsWith('/') || ctx.path.slice(1, -1) !== bucket) return check(ctx, next);
    ctx.params.bucket = `${bucket}/`;
    const restore = () => {
      ctx.params.bucket = bucket;
    };
    return check(ctx, () => {
      restore();
      return next();
    }).finally(restore);
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
  if (process.ppid !== parent) stop();
}, 1000).unref();
