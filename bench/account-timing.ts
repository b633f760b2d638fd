/**
 * What an anonymous caller can learn from time alone (issue 49): the forgotten-password request for
 * a known address against an unknown one, and (when the instance has e-mail confirmation of new
 * accounts) a registration with a new address against one with a registered address or username.
 * One Docket started from its sources (SQLite, or PostgreSQL with BENCH_DATABASE_URL), real
 * password hashing, e-mail configured but no sender in this process (the request path alone is
 * measured). Requests are sent one at a time, the kinds interleaved in a shuffled order each round,
 * BENCH_SAMPLES times; it prints the median, mean and 90th percentile of each kind and the ratio of
 * the medians to the unknown (or new) case. Aim: ratios within 1 ± 0.1.
 *
 *   npx tsx bench/account-timing.ts
 *   BENCH_SAMPLES=300 BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/db npx tsx bench/account-timing.ts
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { PASSWORD } from '../test/helpers/factories.js';
import { startDocketFromSource } from '../test/helpers/server.js';

const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 150);
const REGISTER_SAMPLES = Number(process.env.BENCH_REGISTER_SAMPLES ?? 60);
const DATABASE_URL = process.env.BENCH_DATABASE_URL ?? '';

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
const p90 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length * 0.9)];
const shuffle = <T>(xs: T[]) => {
  for (let i = xs.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [xs[i], xs[j]] = [xs[j], xs[i]];
  }
  return xs;
};

function report(title: string, base: string, series: Record<string, number[]>) {
  console.log(title);
  const b = median(series[base]);
  for (const [name, xs] of Object.entries(series)) {
    console.log(
      `  ${name.padEnd(18)} median ${median(xs).toFixed(2)} ms, mean ${mean(xs).toFixed(2)} ms, ` +
        `p90 ${p90(xs).toFixed(2)} ms, median / ${base} ${(median(xs) / b).toFixed(3)}`,
    );
  }
}

async function main() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'docket-bench-accounts-'));
  const schema = `bench_${randomBytes(4).toString('hex')}`;
  if (DATABASE_URL) {
    const c = new pg.Client({ connectionString: DATABASE_URL });
    await c.connect();
    await c.query(`create schema "${schema}"`);
    await c.end();
  }
  const server = await startDocketFromSource({
    DOCKET_DATA_DIR: dir,
    DATABASE_URL: DATABASE_URL
      ? `${DATABASE_URL}${DATABASE_URL.includes('?') ? '&' : '?'}options=-csearch_path%3D${schema}`
      : '',
    DOCKET_LOG_LEVEL: 'warn',
    DOCKET_ADMIN_USERNAME: '',
    DOCKET_ADMIN_PASSWORD: '',
    DOCKET_REGISTER_LIMIT: '1000000',
    DOCKET_LOGIN_LIMIT: '1000000',
    DOCKET_LOGIN_ADDRESS_LIMIT: '1000000',
    // E-mail is configured (so the requests are served), but nothing is sent by this process.
    DOCKET_SMTP_URL: 'smtp://127.0.0.1:9',
    DOCKET_MAIL_FROM: 'docket@bench.example',
    DOCKET_MAIL_SENDER: 'off',
    DOCKET_PUBLIC_URL: 'https://docket.bench.example',
  });
  const post = async (p: string, body: unknown, cookie = '', method = 'POST') => {
    const t0 = performance.now();
    const res = await fetch(`${server.url}${p}`, {
      method,
      headers: { 'content-type': 'application/json', ...(cookie ? { cookie } : {}) },
      body: JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, text, ms: performance.now() - t0, headers: res.headers };
  };
  try {
    const admin = await post('/api/auth/register', { username: 'bench-admin', password: PASSWORD });
    if (admin.status !== 201) throw new Error(`register: ${admin.status} ${admin.text}`);
    const signIn = await fetch(`${server.url}/api/auth/callback/credentials`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'bench-admin', password: PASSWORD }),
    });
    const cookie = signIn.headers
      .getSetCookie()
      .map((c) => c.split(';')[0])
      .find((c) => c.startsWith('docket_session=')) as string;

    // One account per known request: the three-links-an-hour limit never cuts a request short.
    const known: string[] = [];
    for (let i = 0; i < SAMPLES + 20; i++) {
      const email = `known${i}@bench.example`;
      const r = await post('/api/auth/register', { username: `known${i}`, password: PASSWORD, email });
      if (r.status !== 201) throw new Error(`register: ${r.status} ${r.text}`);
      known.push(email);
    }
    const forgot = async (email: string) => {
      const r = await post('/api/auth/forgot', { email });
      if (r.status !== 200) throw new Error(`forgot: ${r.status} ${r.text}`);
      return r.ms;
    };
    for (let i = 0; i < 20; i++) {
      await forgot(known[SAMPLES + i]);
      await forgot(`warm${i}@bench.example`);
    }
    const series: Record<string, number[]> = { unknown: [], known: [] };
    for (let i = 0; i < SAMPLES; i++) {
      for (const kind of shuffle(['known', 'unknown'] as const)) {
        series[kind].push(await forgot(kind === 'known' ? known[i] : `nobody${i}@bench.example`));
      }
    }
    report(`forgot-password (${DATABASE_URL ? 'PostgreSQL' : 'SQLite'}, ${SAMPLES} each)`, 'unknown', series);

    // Registration: with e-mail confirmation when this build has it, else as it is.
    const on = await post('/api/admin/security', { requireEmailConfirmation: true }, cookie, 'PATCH');
    const confirming = on.status === 200;
    const reg = { new: [] as number[], 'taken e-mail': [] as number[], 'taken username': [] as number[] };
    for (let i = 0; i < REGISTER_SAMPLES; i++) {
      for (const kind of shuffle(Object.keys(reg) as (keyof typeof reg)[])) {
        const body =
          kind === 'new'
            ? { username: `fresh${i}`, email: `fresh${i}@bench.example` }
            : kind === 'taken e-mail'
              ? { username: `other${i}`, email: known[i] }
              : { username: `known${i}`, email: `other${i}@bench.example` };
        const r = await post('/api/auth/register', { ...body, password: PASSWORD });
        if (![201, 202, 400].includes(r.status)) throw new Error(`register: ${r.status} ${r.text}`);
        reg[kind].push(r.ms);
      }
    }
    report(
      `register (${confirming ? 'e-mail confirmation on' : 'no e-mail confirmation in this build'}, ${REGISTER_SAMPLES} each)`,
      'new',
      reg,
    );
  } finally {
    await server.stop();
    fs.rmSync(dir, { recursive: true, force: true });
    if (DATABASE_URL) {
      const c = new pg.Client({ connectionString: DATABASE_URL });
      await c.connect();
      await c.query(`drop schema if exists "${schema}" cascade`);
      await c.end();
    }
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
