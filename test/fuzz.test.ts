import fs from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './helpers/app.js';
import { makeProject, makeTicket } from './helpers/board.js';
import { type Client, signUp } from './helpers/factories.js';
import { makePng, multipartBody } from './helpers/files.js';

/**
 * Property-based fuzzing of every route of the route table: random, oversized, wrongly typed and
 * malicious bodies and queries, sent as a system administrator who owns the project (so that the
 * requests pass authorization and reach validation and the domain). Whatever comes in: never a 500,
 * never a stack trace or SQL text in the answer, and nothing changes in the database after a 4xx.
 */

const RUNS = Number(process.env.DOCKET_FUZZ_RUNS ?? 12);

const MALICIOUS = [
  "' OR '1'='1",
  "'; DROP TABLE tickets; --",
  '" OR ""="',
  "1' UNION SELECT password_hash FROM users --",
  '\\',
  '%',
  '_%_',
  '\u0000',
  'nul\u0000byte',
  '😀👍🏽🇫🇷',
  'Ω≈ç√∫˜µ≤≥÷',
  '\u202Eevil',
  '\uD800',
  '<script>alert(1)</script>',
  '../../../../etc/passwd',
  '$' + '{7*7}{{7*7}}', // template injection
  'NaN',
  '-1',
  '1e309',
  '0x10',
  ' ',
  '',
  '__proto__',
  'constructor',
  'PROJ-999999999999999999999',
  '2026-02-30',
  '9999-99-99T99:99:99Z',
];
const LONG = ['x'.repeat(300), 'é'.repeat(5_000), 'a'.repeat(120_000)];
/** encodeURIComponent, except that a lone surrogate becomes its raw (invalid UTF-8) bytes. */
const enc = (s: string) => {
  try {
    return encodeURIComponent(s);
  } catch {
    return '%ED%A0%80';
  }
};
const POLLUTION_KEYS = ['__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', 'valueOf'];

const scalar = fc.oneof(
  fc.constantFrom(...MALICIOUS),
  fc.constantFrom(...LONG),
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.integer(),
  fc.constantFrom(0, -1, 1.5, 2 ** 53, -(2 ** 63), Number.MAX_VALUE, 1e-300),
  fc.boolean(),
  fc.constant(null),
);
const value = fc.oneof(
  { weight: 6, arbitrary: scalar },
  { weight: 1, arbitrary: fc.array(scalar, { maxLength: 6 }) },
  {
    weight: 1,
    arbitrary: fc.dictionary(fc.constantFrom(...POLLUTION_KEYS, 'a', 'id'), scalar, { maxKeys: 3 }),
  },
  { weight: 1, arbitrary: fc.constant(Array.from({ length: 2_000 }, (_, i) => `id${i}`)) },
);

/** A JSON body: the route's own fields with hostile values, pollution keys, or any JSON at all. */
function bodyArb(fields: string[]) {
  const known = fields.length ? fields : ['name', 'id'];
  const record = fc
    .tuple(
      fc.subarray(known),
      fc.array(value, { minLength: known.length, maxLength: known.length }),
      fc.subarray(POLLUTION_KEYS, { maxLength: 2 }),
      fc.jsonValue({ maxDepth: 2 }),
    )
    .map(([keys, vals, extra, junk]) => {
      // Object.defineProperty keeps __proto__ as an own key, so it is serialized like an attacker would.
      const o: Record<string, unknown> = {};
      for (const [i, k] of keys.entries()) Object.defineProperty(o, k, { value: vals[i], enumerable: true });
      for (const k of extra)
        Object.defineProperty(o, k, { value: { isSystemAdmin: true, polluted: junk }, enumerable: true });
      return JSON.stringify(o);
    });
  return fc.oneof(
    { weight: 6, arbitrary: record },
    { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)) },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        '{"__proto__":{"isSystemAdmin":true}}',
        '{"constructor":{"prototype":{"isSystemAdmin":true}}}',
        '{"title":"x","__proto__":{"polluted":1}}',
        '{"a":',
        '[',
        'null',
        '"just a string"',
        '1e999999',
        `{"deep":${'['.repeat(5_000)}${']'.repeat(5_000)}}`,
        `{${Array.from({ length: 5_000 }, (_, i) => `"k${i}":${i}`).join(',')}}`,
      ),
    },
  );
}

/** A query string: the route's parameters with hostile values, repeated keys and pollution keys. */
function queryArb(params: string[]) {
  const names = [...params, ...POLLUTION_KEYS, 'limit', 'offset'];
  return fc
    .array(
      fc.tuple(
        fc.constantFrom(...names),
        fc.oneof(fc.constantFrom(...MALICIOUS), fc.string(), fc.integer().map(String)),
      ),
      {
        maxLength: 6,
      },
    )
    .map((pairs) => pairs.map(([k, v]) => `${enc(k)}=${enc(v)}`).join('&'));
}

const LEAKS = [
  /\bat [\w.<>$ ]*\(?[^)\s]+:\d+:\d+\)?/, // a stack frame
  /node_modules/,
  /SQLITE_/,
  /syntax error/i,
  /duplicate key value/i,
  /violates .* constraint/i,
  /relation "\w+"/i,
  /no such (table|column)/i,
  /\bstack\b/i,
];

let t: TestApp;
let admin: Client;
let spare: Client;
let png: Buffer;
let snapshotSql: ReturnType<typeof sql.raw>;

/** Row counts and the latest updated_at of every table, and the stored files: cheap, and any write shows. */
async function snapshot(): Promise<string> {
  const { rows } = await snapshotSql.execute(t.app.services.db.kysely);
  const files = ['avatars', 'attachments', 'files'].map((kind) => {
    const dir = path.join(t.config.dataDir, 'uploads', kind);
    return fs.existsSync(dir) ? fs.readdirSync(dir).sort() : [];
  });
  return JSON.stringify({ rows, files });
}

/** Fresh records for one route, so that an earlier successful call (a delete) does not hide later ones. */
async function world() {
  const p = await makeProject(admin);
  const c = (await admin.post(`/api/projects/${p.id}/columns`, { name: 'Review' })).json();
  const tk = await makeTicket(admin, p.id);
  const tk2 = await makeTicket(admin, p.id);
  const label = (await admin.post(`/api/projects/${p.id}/labels`, { name: 'bug' })).json();
  const comment = (
    await admin.post(`/api/projects/${p.id}/tickets/${tk.id}/comments`, { content: 'c' })
  ).json();
  const sprint = (await admin.post(`/api/projects/${p.id}/sprints`, {})).json();
  const member = (await admin.post(`/api/projects/${p.id}/members`, { userId: spare.userId })).json();
  const link = (
    await admin.post(`/api/projects/${p.id}/tickets/${tk.id}/links`, {
      targetTicketId: tk2.id,
      linkType: 'blocks',
    })
  ).json();
  const att = (
    await admin.req({
      method: 'POST',
      url: `/api/projects/${p.id}/tickets/${tk.id}/attachments`,
      ...multipartBody([{ filename: 'a.png', contentType: 'image/png', data: png }]),
    })
  ).json();
  const apiKey = (await admin.post('/api/me/mcp-key')).json().apiKey as string;
  const [kind, name] = String(att.url).split('/').slice(-2);
  // The administrator's user routes act on a user of their own: a fuzzed PATCH may rightly make it an
  // administrator, while `spare` must never become one (checked at the end).
  const target = await signUp(t.app);
  return {
    apiKey,
    params: {
      projectId: p.id,
      columnId: c.id,
      ticketId: tk.id,
      labelId: label.id,
      commentId: comment.id,
      sprintId: sprint.id,
      memberId: member.id,
      linkId: link.id,
      attachmentId: att.id,
      userId: target.userId,
      kind,
      name,
    } as Record<string, string>,
  };
}

beforeAll(async () => {
  t = await createTestApp();
  admin = await signUp(t.app);
  spare = await signUp(t.app);
  png = await makePng(8, 8);
  // The audit log records refusals too (failed sign-ins), the rate-limit counters count them
  // (attempts are counted before the input is checked), and the read cache's change log records
  // every write statement that may have changed something (a delete that found nothing included):
  // none of them is data a refusal may not change.
  const bookkeeping = new Set(['audit_log', 'rate_limits', 'cache_changes']);
  const tables = (await t.app.services.db.kysely.introspection.getTables()).filter(
    (tb) => !bookkeeping.has(tb.name),
  );
  snapshotSql = sql.raw(
    tables
      .map((tb) => {
        const updated = tb.columns.some((c) => c.name === 'updated_at') ? 'max(updated_at)' : 'null';
        return `select '${tb.name}' as t, count(*) as n, ${updated} as u from "${tb.name}"`;
      })
      .join(' union all '),
  );
}, 60_000);

afterAll(async () => {
  await t?.close();
});

describe('fuzzing every endpoint', () => {
  it('never answers 500, never leaks internals, and changes nothing when it answers 4xx', async () => {
    const doc = t.app.swagger() as {
      paths: Record<
        string,
        Record<string, { parameters?: { in: string; name: string }[]; requestBody?: any }>
      >;
    };
    const openapi = new Map<string, { query: string[]; body: string[] }>();
    for (const [p, ops] of Object.entries(doc.paths))
      for (const [m, op] of Object.entries(ops)) {
        const schema = op.requestBody?.content?.['application/json']?.schema;
        const props = new Set<string>(Object.keys(schema?.properties ?? {}));
        for (const alt of [...(schema?.anyOf ?? []), ...(schema?.oneOf ?? [])])
          for (const k of Object.keys(alt.properties ?? {})) props.add(k);
        openapi.set(`${m.toUpperCase()} ${p.replace(/\{(\w+)\}/g, ':$1')}`, {
          query: (op.parameters ?? []).filter((x) => x.in === 'query').map((x) => x.name),
          body: [...props],
        });
      }

    const routes = t.app.routeTable.filter(
      (r) =>
        r.method !== 'HEAD' &&
        !r.url.endsWith('/events') && // streams never end under inject
        !r.url.startsWith('/api/docs'),
    );
    expect(routes.length).toBeGreaterThan(70);
    const failures: string[] = [];
    let calls = 0;
    let fourxx = 0;
    for (const route of routes) {
      const w = await world();
      const path = route.url.replace(/:(\w+)/g, (_m, n: string) => encodeURIComponent(w.params[n] ?? n));
      const spec = openapi.get(`${route.method} ${route.url}`) ?? { query: [], body: [] };
      const headers: Record<string, string> =
        route.url === '/api/mcp'
          ? { authorization: `Bearer ${w.apiKey}`, accept: 'application/json, text/event-stream' }
          : route.auth === 'public'
            ? {}
            : { cookie: admin.cookie };
      const hasBody = route.method !== 'GET';
      // The state before a call: the snapshot after the last refused one, which changed nothing,
      // or a new one after a call that may have written.
      let current: string | null = null;
      const check = async (body: string | undefined, query: string) => {
        const before = current ?? (await snapshot());
        current = null;
        const res = await t.app.inject({
          method: route.method as 'GET',
          url: query ? `${path}?${query}` : path,
          headers: body === undefined ? headers : { ...headers, 'content-type': 'application/json' },
          payload: body,
        });
        calls++;
        const where = `${route.method} ${route.url} body=${String(body).slice(0, 120)} query=${query.slice(0, 120)}`;
        if (res.statusCode >= 500) failures.push(`${where}: ${res.statusCode} ${res.body.slice(0, 200)}`);
        if (res.statusCode >= 400) {
          const leak = LEAKS.find((re) => re.test(res.body));
          if (leak) failures.push(`${where}: leaks ${leak} in ${res.body.slice(0, 300)}`);
        }
        if (res.statusCode >= 400 && res.statusCode < 500) {
          fourxx++;
          const after = await snapshot();
          if (after !== before) failures.push(`${where}: ${res.statusCode} but the database changed`);
          current = after;
        }
      };
      // Every hostile value in every field at once (a random draw alone rarely hits a given one)…
      for (const v of [...MALICIOUS, ...LONG.slice(0, 2)]) {
        if (hasBody && spec.body.length)
          await check(JSON.stringify(Object.fromEntries(spec.body.map((k) => [k, v]))), '');
        if (spec.query.length) await check(undefined, spec.query.map((k) => `${k}=${enc(v)}`).join('&'));
      }
      // …then random mixes of values, types, extra keys and malformed JSON.
      const arb = fc.tuple(hasBody ? bodyArb(spec.body) : fc.constant(undefined), queryArb(spec.query));
      await fc.assert(
        fc.asyncProperty(arb, async ([body, query]) => {
          await check(body, query);
        }),
        {
          numRuns: RUNS,
          seed: process.env.DOCKET_FUZZ_SEED ? Number(process.env.DOCKET_FUZZ_SEED) : undefined,
        },
      );
    }
    expect(failures.slice(0, 20)).toEqual([]);
    expect(calls).toBeGreaterThan(routes.length * RUNS);
    expect(fourxx).toBeGreaterThan(calls / 3);
    // Nothing reached the prototypes of this process, and nobody became an administrator.
    expect(({} as Record<string, unknown>).isSystemAdmin).toBeUndefined();
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect((await spare.get('/api/me')).json().isSystemAdmin).toBe(false);
  }, 300_000);

  it('never answers 500 to hostile multipart bodies on every POST route, and a refused upload leaves nothing', async () => {
    const routes = t.app.routeTable.filter((r) => r.method === 'POST' && r.url !== '/api/mcp');
    const hostilePart = fc.record({
      field: fc.constantFrom('file', 'file', 'confirmPassword', 'avatar', ...POLLUTION_KEYS),
      filename: fc.constantFrom(
        'a.png',
        'a.PNG',
        'a.png.exe',
        'x.svg',
        'page.html',
        '.png',
        'noext',
        ...MALICIOUS,
      ),
      contentType: fc.constantFrom(
        'image/png',
        'image/svg+xml',
        'text/html',
        'application/json',
        'application/octet-stream',
        'image/png; charset=utf-8',
        'text/plain',
        '',
      ),
      data: fc.oneof(
        fc.constant(png),
        fc.constant(Buffer.alloc(0)),
        fc.uint8Array({ maxLength: 2_000 }).map((a) => Buffer.from(a)),
        fc.constant(Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>')),
        fc.constant(Buffer.from('{"format":"docket-backup","version":1,"data":{}}')),
        fc.constant(Buffer.concat([png.subarray(0, 40), Buffer.from('<script>')])),
      ),
    });
    // A well-formed image part now and then, so that the accepting paths are reached too.
    const part = fc.oneof(
      {
        weight: 1,
        arbitrary: fc.constant({ field: 'file', filename: 'a.png', contentType: 'image/png', data: png }),
      },
      { weight: 4, arbitrary: hostilePart },
    );
    const arb = fc.record({
      route: fc.oneof(
        {
          weight: 4,
          arbitrary: fc.constantFrom(...routes.filter((r) => /upload|avatar|attachments|import/.test(r.url))),
        },
        { weight: 1, arbitrary: fc.constantFrom(...routes) },
      ),
      parts: fc.array(part, { maxLength: 3 }),
      fields: fc.dictionary(
        fc.constantFrom('confirmPassword', 'name', 'title', ...POLLUTION_KEYS),
        fc.constantFrom(...MALICIOUS),
      ),
      cut: fc.option(fc.double({ min: 0, max: 1, noNaN: true }), { nil: undefined }),
    });
    const w = await world();
    const failures: string[] = [];
    const statuses = new Map<number, number>();
    let uploaded = 0;
    await fc.assert(
      fc.asyncProperty(arb, async ({ route, parts, fields, cut }) => {
        const url = route.url.replace(/:(\w+)/g, (_m, n: string) => encodeURIComponent(w.params[n] ?? n));
        const body = multipartBody(
          parts.map((p) => ({ ...p, field: p.field })),
          fields,
        );
        // A body cut short, as from a client that went away.
        const payload =
          cut === undefined ? body.payload : body.payload.subarray(0, Math.floor(body.payload.length * cut));
        const before = await snapshot();
        const res = await admin.req({ method: 'POST', url, headers: body.headers, payload });
        statuses.set(res.statusCode, (statuses.get(res.statusCode) ?? 0) + 1);
        if (res.statusCode < 300 && /upload|avatar|attachments/.test(route.url)) uploaded++;
        const where = `POST ${route.url} parts=${JSON.stringify(parts.map((p) => [p.field, p.filename, p.contentType, p.data.length]))} cut=${cut}`;
        if (res.statusCode >= 500) failures.push(`${where}: ${res.statusCode} ${res.body.slice(0, 200)}`);
        if (res.statusCode >= 400 && LEAKS.some((re) => re.test(res.body)))
          failures.push(`${where}: leak ${res.body.slice(0, 200)}`);
        if (res.statusCode >= 400 && res.statusCode < 500 && (await snapshot()) !== before)
          failures.push(`${where}: ${res.statusCode} but something changed`);
      }),
      {
        numRuns: RUNS * 15,
        // One plain upload first, so that every run reaches an accepting path: random bodies reach it
        // only now and then (most carry a refused field or part), and a run of none proves nothing.
        examples: [
          [
            {
              route: routes.find((r) => r.url === '/api/upload') ?? routes[0],
              parts: [{ field: 'file', filename: 'a.png', contentType: 'image/png', data: png }],
              fields: {},
              cut: undefined,
            },
          ],
        ],
      },
    );
    expect(failures.slice(0, 20)).toEqual([]);
    // Some uploads went through: the generator reaches the accepting paths, not only the refusals.
    expect(uploaded, JSON.stringify([...statuses])).toBeGreaterThan(0);
    const incoming = path.join(t.config.dataDir, 'uploads', '.incoming');
    expect(fs.existsSync(incoming) ? fs.readdirSync(incoming) : []).toEqual([]);
  }, 120_000);

  it('answers every MCP tool called with hostile arguments with a result or a tool error, never a crash or a leak', async () => {
    const w = await world();
    const headers = {
      authorization: `Bearer ${w.apiKey}`,
      accept: 'application/json, text/event-stream',
      'content-type': 'application/json',
    };
    const rpc = (method: string, params: unknown) =>
      t.app.inject({
        method: 'POST',
        url: '/api/mcp',
        headers,
        payload: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
      });
    const list = await rpc('tools/list', {});
    expect(list.statusCode, list.body).toBe(200);
    const tools = list.json().result.tools as {
      name: string;
      inputSchema: { properties?: Record<string, unknown> };
    }[];
    expect(tools.length).toBeGreaterThan(20);
    // Calls stay in the fuzzed project (no project-wide or instance-wide deletions of other data matter here).
    const projectKey = (await admin.get(`/api/projects/${w.params.projectId}`)).json().key as string;
    const failures: string[] = [];
    const arb = fc.record({
      tool: fc.constantFrom(...tools),
      values: fc.array(
        fc.oneof({ weight: 3, arbitrary: scalar }, { weight: 1, arbitrary: fc.constant(projectKey) }),
        {
          minLength: 12,
          maxLength: 12,
        },
      ),
      keep: fc.array(fc.boolean(), { minLength: 12, maxLength: 12 }),
      extra: fc.subarray(POLLUTION_KEYS, { maxLength: 2 }),
    });
    await fc.assert(
      fc.asyncProperty(arb, async ({ tool, values, keep, extra }) => {
        const args: Record<string, unknown> = {};
        for (const [i, k] of Object.keys(tool.inputSchema.properties ?? {}).entries())
          if (keep[i % keep.length])
            Object.defineProperty(args, k, { value: values[i % values.length], enumerable: true });
        for (const k of extra)
          Object.defineProperty(args, k, { value: { isSystemAdmin: true }, enumerable: true });
        const res = await rpc('tools/call', { name: tool.name, arguments: args });
        const where = `${tool.name} ${JSON.stringify(args).slice(0, 200)}`;
        if (res.statusCode >= 500)
          failures.push(`${where}: HTTP ${res.statusCode} ${res.body.slice(0, 200)}`);
        if (LEAKS.some((re) => re.test(res.body))) failures.push(`${where}: leak ${res.body.slice(0, 300)}`);
        if (/Internal server error|Unexpected error|Docket failed/i.test(res.body))
          failures.push(`${where}: ${res.body.slice(0, 300)}`);
      }),
      { numRuns: RUNS * 20 },
    );
    expect(failures.slice(0, 20)).toEqual([]);
  }, 120_000);

  it('never answers 500 to hostile path parameters on every route with parameters', async () => {
    const routes = t.app.routeTable.filter(
      (r) => r.method === 'GET' && r.url.includes(':') && !r.url.endsWith('/events'),
    );
    const w = await world();
    const failures: string[] = [];
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...routes),
        fc.constantFrom(
          ...MALICIOUS.filter((m) => m !== ''),
          'x'.repeat(199),
          '%00',
          '%E0%A4%A',
          '..%2F..%2F',
        ),
        fc.nat({ max: 9 }),
        async (route, hostile, which) => {
          const names = [...route.url.matchAll(/:(\w+)/g)].map((m) => m[1]);
          const target = names[which % names.length];
          const url = route.url.replace(/:(\w+)/g, (_m, n: string) =>
            n === target
              ? /%[0-9A-F]/i.test(hostile)
                ? hostile
                : enc(hostile)
              : encodeURIComponent(w.params[n] ?? n),
          );
          const res = await admin.get(url);
          if (res.statusCode >= 500 || LEAKS.some((re) => re.test(res.body)))
            failures.push(`${url}: ${res.statusCode} ${res.body.slice(0, 200)}`);
        },
      ),
      { numRuns: RUNS * 10 },
    );
    expect(failures).toEqual([]);
  }, 120_000);
});
