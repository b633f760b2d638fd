/**
 * The one way the app talks to the API: the base path from the server-injected meta tag, JSON in and
 * out, the tab id on every write (so the tab can skip its own events), and errors in the API's words.
 */

const meta = typeof document !== 'undefined' ? document.querySelector('meta[name="docket-base"]') : null;
/** The deployment's base path, such as '' or '/docket'. */
export const BASE_PATH = (meta?.getAttribute('content') ?? '').replace(/\/$/, '');

/** A per-tab id, sent as X-Tab-Id on every write and compared with the tabId of incoming events. */
export const TAB_ID =
  typeof crypto !== 'undefined' && 'randomUUID' in crypto
    ? crypto.randomUUID()
    : `tab-${Date.now()}-${Math.random().toString(36).slice(2)}`;

/** An absolute URL path on this site under the base path (for API paths and /uploads/... values). */
export const url = (path: string) => (path.startsWith('/') ? `${BASE_PATH}${path}` : path);

export interface ErrorDetail {
  path: string;
  message: string;
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly body: Record<string, unknown> = {},
  ) {
    super(message);
  }
  get details(): ErrorDetail[] {
    return Array.isArray(this.body.details) ? (this.body.details as ErrorDetail[]) : [];
  }
}

/** A readable message: the API's error text, with validation details when there are any. */
export function errorText(err: unknown): string {
  if (err instanceof ApiError) {
    const details = err.details.map((d) => (d.path ? `${d.path}: ${d.message}` : d.message));
    return details.length ? `${err.message}: ${details.join('; ')}` : err.message;
  }
  if (err instanceof Error) return err.message;
  return 'Something went wrong';
}

type Listener = () => void;
const unauthorizedListeners = new Set<Listener>();
/** Called when any request answers 401: the session is gone. */
/** Tells the app that the session is gone (an event stream was refused and the session reads empty). */
export function reportSignedOut() {
  for (const fn of unauthorizedListeners) fn();
}

export function onUnauthorized(fn: Listener) {
  unauthorizedListeners.add(fn);
  return () => {
    unauthorizedListeners.delete(fn);
  };
}

export interface RequestOptions {
  method?: string;
  body?: unknown;
  signal?: AbortSignal;
  /** Do not report a 401 as an ended session (sign-in itself). */
  quiet401?: boolean;
}

export interface ApiResponse<T> {
  data: T;
  total: number | null;
}

export async function requestWithMeta<T>(path: string, opts: RequestOptions = {}): Promise<ApiResponse<T>> {
  const method = opts.method ?? 'GET';
  const headers: Record<string, string> = { Accept: 'application/json' };
  if (method !== 'GET') headers['X-Tab-Id'] = TAB_ID;
  let body: BodyInit | undefined;
  if (opts.body instanceof FormData) body = opts.body;
  else if (opts.body !== undefined) {
    headers['Content-Type'] = 'application/json';
    body = JSON.stringify(opts.body);
  }
  let res: Response;
  try {
    res = await fetch(url(path), { method, headers, body, credentials: 'same-origin', signal: opts.signal });
  } catch (err) {
    if ((err as Error).name === 'AbortError') throw err;
    throw new ApiError(0, 'Cannot reach the server. Check your connection and try again.');
  }
  const text = await res.text();
  let parsed: unknown = null;
  if (text) {
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = null;
    }
  }
  if (!res.ok) {
    const obj = (parsed && typeof parsed === 'object' ? parsed : {}) as Record<string, unknown>;
    const message = typeof obj.error === 'string' ? obj.error : `Request failed (${res.status})`;
    if (res.status === 401 && !opts.quiet401) for (const fn of unauthorizedListeners) fn();
    throw new ApiError(res.status, message, obj);
  }
  const total = res.headers.get('X-Total-Count');
  return { data: parsed as T, total: total === null ? null : Number(total) };
}

export async function api<T>(path: string, opts: RequestOptions = {}): Promise<T> {
  return (await requestWithMeta<T>(path, opts)).data;
}

/** Reads every page of a list (limit 1000 per page), following X-Total-Count. */
export async function listAll<T>(path: string, signal?: AbortSignal): Promise<T[]> {
  const pageSize = 1000;
  const sep = path.includes('?') ? '&' : '?';
  const out: T[] = [];
  for (let offset = 0; ; offset += pageSize) {
    const { data, total } = await requestWithMeta<T[]>(`${path}${sep}limit=${pageSize}&offset=${offset}`, {
      signal,
    });
    out.push(...data);
    if (total === null || data.length < pageSize || out.length >= total) return out;
  }
}

export const enc = encodeURIComponent;
