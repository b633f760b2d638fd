import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';

export const PASSWORD = 'Correct-horse-42';

let seq = 0;
export const unique = (prefix = 'u') => `${prefix}${Date.now().toString(36)}${(seq++).toString(36)}`;

export interface Client {
  userId: string;
  username: string;
  cookie: string;
  isSystemAdmin: boolean;
  /** Sends a request as this user (the session cookie is added). */
  req(opts: InjectOptions): Promise<LightMyRequestResponse>;
  get(url: string): Promise<LightMyRequestResponse>;
  post(url: string, payload?: unknown): Promise<LightMyRequestResponse>;
  patch(url: string, payload?: unknown): Promise<LightMyRequestResponse>;
  del(url: string, payload?: unknown): Promise<LightMyRequestResponse>;
}

export function cookieFrom(res: LightMyRequestResponse, name = 'docket_session'): string {
  const c = res.cookies.find((x) => x.name === name);
  if (!c) throw new Error(`no ${name} cookie in response ${res.statusCode} ${res.body}`);
  return `${name}=${c.value}`;
}

export function clientFor(app: FastifyInstance, auth: { cookie?: string; apiKey?: string }) {
  const headers: Record<string, string> = {};
  if (auth.cookie) headers.cookie = auth.cookie;
  if (auth.apiKey) headers.authorization = `Bearer ${auth.apiKey}`;
  const req = (opts: InjectOptions) =>
    app.inject({ ...opts, headers: { ...headers, ...(opts.headers ?? {}) } });
  return {
    req,
    get: (url: string) => req({ method: 'GET', url }),
    post: (url: string, payload?: unknown) => req({ method: 'POST', url, payload: payload as never }),
    patch: (url: string, payload?: unknown) => req({ method: 'PATCH', url, payload: payload as never }),
    del: (url: string, payload?: unknown) => req({ method: 'DELETE', url, payload: payload as never }),
  };
}

/** Registers a user and signs in; the first user of an instance is a system administrator. */
export async function signUp(
  app: FastifyInstance,
  fields: { username?: string; email?: string; name?: string; password?: string } = {},
): Promise<Client> {
  const username = fields.username ?? unique();
  const password = fields.password ?? PASSWORD;
  const reg = await app.inject({
    method: 'POST',
    url: '/api/auth/register',
    payload: { username, password, email: fields.email, name: fields.name },
  });
  if (reg.statusCode !== 201) throw new Error(`register failed: ${reg.statusCode} ${reg.body}`);
  return signIn(app, username, password);
}

export async function signIn(app: FastifyInstance, username: string, password = PASSWORD): Promise<Client> {
  const res = await app.inject({
    method: 'POST',
    url: '/api/auth/callback/credentials',
    payload: { username, password },
  });
  if (res.statusCode !== 200) throw new Error(`login failed: ${res.statusCode} ${res.body}`);
  const body = res.json();
  const cookie = cookieFrom(res);
  return {
    userId: body.user.id,
    username,
    cookie,
    isSystemAdmin: body.user.isSystemAdmin,
    ...clientFor(app, { cookie }),
  };
}
