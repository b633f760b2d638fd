/**
 * The tool server's only way into Docket: the HTTP API, with the caller's API key as a Bearer token.
 * The stdio bin uses the network; `/api/mcp` uses the same client over `app.inject`, so permissions,
 * validation and events are those of every other front door.
 */

export type FetchLike = (url: string, init: RequestInit) => Promise<Response>;

export interface ClientOptions {
  /** Docket's URL including any base path, such as http://localhost:3000 or https://example.com/docket. */
  baseUrl: string;
  apiKey: string;
  fetch?: FetchLike;
  /** How long to wait for an answer; default 30 s. */
  timeoutMs?: number;
  /** Docket's address as the assistant's user reaches it, for links in results; default baseUrl. */
  publicUrl?: string;
}

/** A failure a tool reports to the assistant as its result text (`isError: true`). */
export class ToolError extends Error {}

/** Names of the records a request is about, for the texts `Project not found: XYZ` and alike. */
export interface Subject {
  project?: string;
  ticket?: string;
}

export interface RequestOptions {
  query?: Record<string, string | number | undefined>;
  body?: unknown;
  subject?: Subject;
}

export interface ApiResult<T> {
  data: T;
  /** X-Total-Count of a list, when the API sent it. */
  total: number | null;
}

/** HTTP field names as the tool server's parameters call them, for validation messages. */
const FIELD_NAMES: Record<string, string> = {
  assigneeId: 'assignee',
  sprintId: 'sprint',
  parentId: 'parent',
  labelIds: 'labels',
  columnId: 'column',
  order: 'position',
  moveTicketsTo: 'moveTicketsTo',
  userId: 'userName',
  username: 'userName',
  newEndDate: 'endDate',
  q: 'search',
  key: 'projectKey',
};

const fieldName = (path: string) => {
  const [head, ...rest] = path.replace(/^query\./, '').split('.');
  return [FIELD_NAMES[head] ?? head, ...rest].join('.');
};

interface ErrorBody {
  error?: unknown;
  details?: { path?: string; message?: string }[];
}

/** An API error in words: its text, and for validation errors which field is wrong and why. */
export function describeApiError(status: number, body: ErrorBody | null, subject: Subject = {}): string {
  const text = typeof body?.error === 'string' ? body.error : `Request failed with status ${status}`;
  if (status === 401) return 'Invalid API key';
  if (status === 404 && text === 'Project not found' && subject.project) {
    return `Project not found: ${subject.project.toUpperCase()}`;
  }
  if (status === 404 && text === 'Ticket not found' && subject.ticket) {
    return `Ticket not found: ${subject.ticket.toUpperCase()}`;
  }
  const details = Array.isArray(body?.details) ? body.details : [];
  if (details.length === 0) return text;
  const parts = details.map((d) => {
    const where = d.path ? fieldName(d.path) : '';
    return where ? `${where}: ${d.message ?? 'Invalid'}` : (d.message ?? 'Invalid');
  });
  return `${text}: ${parts.join('; ')}`;
}

export class DocketClient {
  readonly baseUrl: string;
  readonly publicUrl: string;
  private readonly apiKey: string;
  private readonly fetchImpl: FetchLike;
  private readonly timeoutMs: number;

  /**
   * What fuzzy names of the running tool call resolved to (`label "front" → frontend`), for the last
   * line of its reply: each call gets a client of its own (`forCall`).
   */
  readonly resolved: string[] = [];
  private readonly opts: ClientOptions;

  constructor(opts: ClientOptions) {
    this.opts = opts;
    this.baseUrl = opts.baseUrl.replace(/\/+$/, '');
    this.publicUrl = (opts.publicUrl ?? opts.baseUrl).replace(/\/+$/, '');
    this.apiKey = opts.apiKey;
    this.fetchImpl = opts.fetch ?? ((url, init) => fetch(url, init));
    this.timeoutMs = opts.timeoutMs ?? 30_000;
  }

  /** The same client with its own list of resolved names, for one tool call. */
  forCall(): DocketClient {
    return new DocketClient(this.opts);
  }

  async request<T>(method: string, path: string, opts: RequestOptions = {}): Promise<ApiResult<T>> {
    const url = new URL(this.baseUrl + path);
    for (const [k, v] of Object.entries(opts.query ?? {})) {
      if (v !== undefined) url.searchParams.set(k, String(v));
    }
    const headers: Record<string, string> = {
      accept: 'application/json',
      authorization: `Bearer ${this.apiKey}`,
    };
    let body: string | undefined;
    if (opts.body !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(opts.body);
    }
    const signal = AbortSignal.timeout(this.timeoutMs);
    const timedOut = () =>
      new ToolError(`Docket at ${this.baseUrl} did not answer within ${this.timeoutMs / 1000} s`);
    let res: Response;
    try {
      res = await this.fetchImpl(url.toString(), { method, headers, body, signal });
    } catch {
      if (signal.aborted) throw timedOut();
      throw new ToolError(`Failed to connect to Docket at ${this.baseUrl}`);
    }
    let raw: string;
    try {
      raw = await res.text();
    } catch {
      if (signal.aborted) throw timedOut();
      throw new ToolError(`Failed to connect to Docket at ${this.baseUrl}`);
    }
    let parsed: unknown = null;
    try {
      parsed = raw ? JSON.parse(raw) : null;
    } catch {
      parsed = undefined;
    }
    if (parsed === undefined) {
      // Not JSON: the URL points at something that is not Docket's API (a proxy page, another site).
      throw new ToolError(
        `Unexpected answer from ${this.baseUrl} (status ${res.status}); is DOCKET_URL Docket's URL, including any base path?`,
      );
    }
    if (res.status === 404 && (parsed as ErrorBody | null)?.error === 'Not found') {
      // No such route: most often a base path missing from DOCKET_URL.
      throw new ToolError(
        `Docket's API was not found at ${this.baseUrl}: check DOCKET_URL (include any base path)`,
      );
    }
    if (!res.ok) {
      const message = describeApiError(res.status, parsed as ErrorBody | null, opts.subject);
      throw new ToolError(res.status >= 500 ? `Docket failed: ${message}` : message);
    }
    const totalHeader = res.headers.get('x-total-count');
    return { data: parsed as T, total: totalHeader === null ? null : Number(totalHeader) };
  }

  /** An absolute link to a path of the API's answers (`/uploads/…`), as the user reaches Docket. */
  publicLink(path: string): string {
    return /^https?:/i.test(path) ? path : this.publicUrl + path;
  }

  async get<T>(path: string, opts?: RequestOptions): Promise<T> {
    return (await this.request<T>('GET', path, opts)).data;
  }
  async post<T>(path: string, body?: unknown, opts?: RequestOptions): Promise<T> {
    return (await this.request<T>('POST', path, { ...opts, body: body ?? {} })).data;
  }
  async patch<T>(path: string, body: unknown, opts?: RequestOptions): Promise<T> {
    return (await this.request<T>('PATCH', path, { ...opts, body })).data;
  }
  async del<T>(path: string, body?: unknown, opts?: RequestOptions): Promise<T> {
    return (await this.request<T>('DELETE', path, { ...opts, body })).data;
  }
}

/** Path segment for a project key or a ticket key. */
export const seg = (s: string) => encodeURIComponent(s.trim());
