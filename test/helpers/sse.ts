import http from 'node:http';

/** One SSE message as sent: `id:` and `data:` fields (a message may carry only an id). */
export interface SseMessage {
  id?: string;
  data?: string;
  /** `retry:` (milliseconds to wait before reconnecting), as sent. */
  retry?: string;
  /** The parsed envelope when data is JSON. */
  json?: { type: string; data: any; tabId: string | null; timestamp: string };
}

/**
 * A real server-sent-events client over HTTP: it parses the stream itself (fields, comments,
 * message boundaries) and records everything, so tests can wait for messages and for the end.
 */
export class SseClient {
  readonly messages: SseMessage[] = [];
  readonly comments: string[] = [];
  ended = false;
  private buf = '';
  private waiters: (() => void)[] = [];
  private req!: http.ClientRequest;
  status = 0;
  headers: http.IncomingHttpHeaders = {};
  body = '';

  static open(url: string, headers: Record<string, string> = {}): Promise<SseClient> {
    const c = new SseClient();
    return new Promise((resolve, reject) => {
      c.req = http.get(url, { headers: { accept: 'text/event-stream', ...headers }, agent: false }, (res) => {
        c.status = res.statusCode ?? 0;
        c.headers = res.headers;
        res.setEncoding('utf8');
        const sse = String(res.headers['content-type'] ?? '').startsWith('text/event-stream');
        res.on('data', (chunk: string) => {
          if (sse) c.feed(chunk);
          else c.body += chunk;
          c.notify();
        });
        const end = () => {
          c.ended = true;
          c.notify();
        };
        res.on('end', end);
        res.on('close', end);
        res.on('error', end);
        resolve(c);
      });
      c.req.on('error', (err) => {
        if (c.status === 0) reject(err);
        c.ended = true;
        c.notify();
      });
    });
  }

  private feed(chunk: string) {
    this.buf += chunk.replace(/\r\n?/g, '\n');
    for (let i = this.buf.indexOf('\n\n'); i >= 0; i = this.buf.indexOf('\n\n')) {
      const block = this.buf.slice(0, i);
      this.buf = this.buf.slice(i + 2);
      const msg: SseMessage = {};
      let fields = 0;
      for (const line of block.split('\n')) {
        if (line.startsWith(':')) {
          this.comments.push(line.slice(1).trim());
          continue;
        }
        const colon = line.indexOf(':');
        const name = colon < 0 ? line : line.slice(0, colon);
        const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
        if (name === 'id') msg.id = value;
        else if (name === 'data') msg.data = msg.data === undefined ? value : `${msg.data}\n${value}`;
        else if (name === 'retry') msg.retry = value;
        else continue;
        fields++;
      }
      if (fields === 0) continue;
      if (msg.data !== undefined) {
        try {
          msg.json = JSON.parse(msg.data);
        } catch {
          // left unparsed
        }
      }
      this.messages.push(msg);
    }
  }

  private notify() {
    const w = this.waiters;
    this.waiters = [];
    for (const f of w) f();
  }

  /** Messages with data (the events), in arrival order. */
  get events(): SseMessage[] {
    return this.messages.filter((m) => m.data !== undefined);
  }

  /** Resolves when `check` holds, re-checked on every chunk; rejects after `ms`. */
  async until<T>(check: () => T | undefined | false, ms = 5000, what = 'condition'): Promise<T> {
    const deadline = Date.now() + ms;
    for (;;) {
      const v = check();
      if (v) return v;
      const left = deadline - Date.now();
      if (left <= 0) {
        throw new Error(
          `timed out waiting for ${what}; got ${JSON.stringify(this.messages)} comments=${this.comments.length} ended=${this.ended}`,
        );
      }
      await new Promise<void>((r) => {
        const t = setTimeout(r, left);
        this.waiters.push(() => {
          clearTimeout(t);
          r();
        });
      });
    }
  }

  /** The first event of this type (waiting for it). */
  waitForType(type: string, ms?: number): Promise<SseMessage> {
    return this.until(() => this.events.find((m) => m.json?.type === type), ms, `event ${type}`);
  }

  waitForEnd(ms?: number): Promise<true> {
    return this.until(() => this.ended, ms, 'the end of the stream');
  }

  close() {
    this.req.destroy();
  }
}
