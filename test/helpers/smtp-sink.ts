/**
 * A real SMTP server (the smtp-server package) for the e-mail tests, run as its own process:
 * `node --import tsx test/helpers/smtp-sink.ts <file>`. It prints `listening at http://127.0.0.1:<port>` and appends
 * every accepted message to <file> as one JSON line {messageId, outboxId, to, subject, raw}, before
 * answering 250. Recipients steer it: `tempfail…@` gets 451 for its first two messages, `bounce…@`
 * gets 550 at RCPT, `slow…@` is answered after 400 ms, `hold…@` after 1,500 ms. The first `gate…@`
 * message is held, its outbox id written to <file>.held, until a file <file>.release exists; later
 * ones are answered at once (a test knows then that this message is in flight, and where).
 */
import fs from 'node:fs';
import { SMTPServer } from 'smtp-server';

const file = process.argv[2];
if (!file) throw new Error('usage: smtp-sink.ts <file>');
const tempFails = new Map<string, number>();
let gated = false;

/** Answers once <file>.release exists. */
function whenReleased(then: () => void) {
  if (fs.existsSync(`${file}.release`)) return then();
  setTimeout(() => whenReleased(then), 20);
}

const server = new SMTPServer({
  authOptional: true,
  disabledCommands: ['STARTTLS'],
  logger: false,
  onAuth(_auth, _session, cb) {
    cb(null, { user: 'test' });
  },
  onRcptTo(address, _session, cb) {
    if (address.address.startsWith('bounce')) {
      const err = new Error('No such mailbox') as Error & { responseCode: number };
      err.responseCode = 550;
      return cb(err);
    }
    cb();
  },
  onData(stream, session, cb) {
    const chunks: Buffer[] = [];
    stream.on('data', (c: Buffer) => chunks.push(c));
    stream.on('end', () => {
      const to = session.envelope.rcptTo.map((r) => r.address);
      const first = to[0] ?? '';
      if (first.startsWith('tempfail')) {
        const n = (tempFails.get(first) ?? 0) + 1;
        tempFails.set(first, n);
        if (n <= 2) {
          const err = new Error('Try again later') as Error & { responseCode: number };
          err.responseCode = 451;
          return cb(err);
        }
      }
      const accept = () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        const header = (name: string) =>
          new RegExp(`^${name}:\\s*(.*)$`, 'im').exec(raw.split(/\r?\n\r?\n/)[0])?.[1]?.trim() ?? null;
        fs.appendFileSync(
          file,
          `${JSON.stringify({ messageId: header('Message-ID'), outboxId: header('X-Docket-Outbox-Id'), to, subject: header('Subject'), raw })}\n`,
        );
        cb();
      };
      if (first.startsWith('slow')) setTimeout(accept, 400);
      else if (first.startsWith('hold')) setTimeout(accept, 1_500);
      else if (first.startsWith('gate') && !gated) {
        gated = true;
        const raw = Buffer.concat(chunks).toString('utf8');
        const id = /^X-Docket-Outbox-Id:\s*(.*)$/im.exec(raw.split(/\r?\n\r?\n/)[0])?.[1]?.trim() ?? '';
        fs.writeFileSync(`${file}.held`, id);
        whenReleased(accept);
      } else accept();
    });
  },
});

server.listen(0, '127.0.0.1', () => {
  const address = server.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  process.stdout.write(`listening at http://127.0.0.1:${port}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
