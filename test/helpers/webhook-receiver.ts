/**
 * A real HTTP receiver for webhook tests (node:http on 127.0.0.1, an ephemeral port): it records
 * every request (headers and raw body) and answers as the test tells it.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  path: string;
  headers: http.IncomingHttpHeaders;
  /** The raw body, exactly as sent (the signature covers these bytes). */
  body: string;
  json: any;
  at: number;
}

/** What to answer: a status (and headers), after an optional delay. */
export type Answer = { status: number; delayMs?: number; headers?: Record<string, string> };

export interface Receiver {
  url: string;
  received: Received[];
  /** Decides each answer (default 200 at once); `n` counts this delivery id's earlier requests. */
  answer: (r: Received, n: number) => Answer;
  close(): Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
  const received: Received[] = [];
  const seen = new Map<string, number>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      let json: unknown = null;
      try {
        json = JSON.parse(body);
      } catch {}
      const r: Received = { path: req.url ?? '', headers: req.headers, body, json, at: Date.now() };
      received.push(r);
      const id = String(req.headers['x-docket-delivery'] ?? '');
      const n = seen.get(id) ?? 0;
      seen.set(id, n + 1);
      const a = receiver.answer(r, n);
      const send = () => {
        if (res.destroyed) return;
        res.writeHead(a.status, { 'content-type': 'text/plain', ...(a.headers ?? {}) });
        res.end('ok');
      };
      if (a.delayMs) setTimeout(send, a.delayMs);
      else send();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  const receiver: Receiver = {
    url: `http://127.0.0.1:${port}`,
    received,
    answer: () => ({ status: 200 }),
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
  return receiver;
}
