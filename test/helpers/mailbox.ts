/**
 * A real SMTP server process (test/helpers/smtp-sink.ts) and what it received, for tests that
 * follow an e-mail: start it, point DOCKET_SMTP_URL at it, read the messages, stop it.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startProcess } from './server.js';
import { eventually } from './wait.js';

export interface ReceivedMail {
  messageId: string | null;
  outboxId: string | null;
  to: string[];
  subject: string | null;
  raw: string;
}

/** The message with its header lines unfolded and its quoted-printable soft breaks removed. */
export const decodedMail = (raw: string) =>
  raw
    .replace(/\r?\n[ \t]+/g, ' ')
    .replace(/=\r?\n/g, '')
    .replace(/=3D/g, '=');

export interface Mailbox {
  /** DOCKET_SMTP_URL for Docket. */
  smtpUrl: string;
  received(): ReceivedMail[];
  /** Waits for the `count`th message to `address` and answers them all. */
  waitFor(address: string, count?: number): Promise<ReceivedMail[]>;
  stop(): Promise<void>;
}

export async function startMailbox(): Promise<Mailbox> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'docket-mailbox-'));
  const file = path.join(dir, 'received.jsonl');
  const sink = await startProcess({
    args: ['--import', 'tsx', 'test/helpers/smtp-sink.ts', file],
    ready: 'listening',
  });
  const received = (): ReceivedMail[] =>
    fs.existsSync(file)
      ? fs
          .readFileSync(file, 'utf8')
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l) as ReceivedMail)
      : [];
  const to = (address: string) => received().filter((m) => m.to.includes(address));
  return {
    smtpUrl: `smtp://user:secret@127.0.0.1:${new URL(sink.url).port}`,
    received,
    async waitFor(address, count = 1) {
      await eventually(() => to(address).length >= count, `${count} e-mail(s) to ${address}`, {
        timeoutMs: 20_000,
        everyMs: 50,
      });
      return to(address);
    },
    async stop() {
      await sink.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
