import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Config } from '../src/config.js';
import { pruneRateLimits, WindowCounter } from '../src/domain/rate-limit.js';
import { buildApp } from '../src/server/app.js';
import { dropTestData, testConfig } from './helpers/app.js';
import { PASSWORD, signUp, unique } from './helpers/factories.js';

/**
 * Rate limits held by the database (docs/decisions/042-several-instances.md): two instances built
 * on one database (one PostgreSQL schema, or one SQLite file), each with its own connections, count
 * together: attempts alternating between them, or sent to both at once, meet one limit.
 */
let config: Config;
let a: FastifyInstance;
let b: FastifyInstance;

beforeAll(async () => {
  config = await testConfig({
    DOCKET_LOGIN_LIMIT: '3',
    DOCKET_LOGIN_ADDRESS_LIMIT: '12',
    DOCKET_REGISTER_LIMIT: '20',
    DOCKET_TRUST_PROXY: '1',
  });
  a = await buildApp(config, { logger: false });
  b = await buildApp(config, { logger: false });
});

afterAll(async () => {
  await a?.close();
  await b?.close();
  await dropTestData(config);
});

/** Each test uses its own client address, so the address limit of one does not touch another. */
let nextAddress = 1;
const address = () => `10.22.0.${nextAddress++}`;

const login = (app: FastifyInstance, username: string, password: string, from: string) =>
  app.inject({
    method: 'POST',
    url: '/api/auth/callback/credentials',
    payload: { username, password },
    headers: { 'x-forwarded-for': from },
  });

describe('limits shared by instances on one database', () => {
  it('counts failed sign-ins alternating between the instances as one account limit', async () => {
    const u = await signUp(a, { username: unique('alt') });
    const from = address();
    const codes = [];
    for (const app of [a, b, a, b])
      codes.push((await login(app, u.username, 'Wrong-password-1', from)).statusCode);
    expect(codes).toEqual([401, 401, 401, 429]);
    // The right password now waits on both instances, from another address too.
    expect((await login(a, u.username, PASSWORD, address())).statusCode).toBe(429);
    const other = await login(b, u.username, PASSWORD, address());
    expect(other.statusCode).toBe(429);
    expect(Number(other.headers['retry-after'])).toBeGreaterThan(0);
  });

  it('lets exactly the limit through when attempts reach both instances at once', async () => {
    const u = await signUp(b, { username: unique('par') });
    const answers = await Promise.all(
      Array.from({ length: 24 }, (_, i) =>
        login(i % 2 ? a : b, u.username, 'Wrong-password-1', `10.23.${i}.1`),
      ),
    );
    const codes = answers.map((x) => x.statusCode);
    expect(codes.filter((c) => c === 401)).toHaveLength(3);
    expect(codes.filter((c) => c === 429)).toHaveLength(21);
  });

  it('does not count successful sign-ins on either instance', async () => {
    const u = await signUp(a, { username: unique('ok') });
    const from = address();
    for (const app of [a, b, a, b, a, b])
      expect((await login(app, u.username, PASSWORD, from)).statusCode).toBe(200);
    expect((await login(b, u.username, 'Wrong-password-1', from)).statusCode).toBe(401);
  });

  it('counts one client address across the instances and every account it tries', async () => {
    const from = address();
    const codes = [];
    for (let i = 0; i < 13; i++)
      codes.push((await login(i % 2 ? a : b, unique('nobody'), 'Wrong-password-1', from)).statusCode);
    expect(codes.slice(0, 12)).toEqual(Array(12).fill(401));
    expect(codes[12]).toBe(429);
  });

  it('counts wrong current passwords on one instance toward sign-ins on the other', async () => {
    const u = await signUp(a, { username: unique('pw') });
    const from = address();
    for (let i = 0; i < 3; i++) {
      const res = await a.inject({
        method: 'PATCH',
        url: '/api/me/password',
        headers: { cookie: u.cookie, 'x-forwarded-for': from },
        payload: { currentPassword: 'Wrong-password-1', newPassword: 'Another-horse-43' },
      });
      expect(res.statusCode).toBe(400);
    }
    expect((await login(b, u.username, PASSWORD, address())).statusCode).toBe(429);
  });

  it('counts registrations per address across the instances', async () => {
    const from = address();
    const register = (app: FastifyInstance) =>
      app.inject({
        method: 'POST',
        url: '/api/auth/register',
        headers: { 'x-forwarded-for': from },
        payload: { username: unique('reg'), password: PASSWORD },
      });
    const codes = [];
    for (let i = 0; i < 21; i++) codes.push((await register(i % 2 ? a : b)).statusCode);
    expect(codes.slice(0, 20)).toEqual(Array(20).fill(201));
    expect(codes[20]).toBe(429);
  });
});

describe('the window counter', () => {
  it('starts a new window when the old one has ended, and prunes ended windows', async () => {
    const db = a.services.db;
    const counter = new WindowCounter(db, 'test', 2, 60_000);
    const key = unique('k');
    const t0 = Date.now();
    expect(await counter.hit(key, t0)).toBe(0);
    expect(await counter.hit(key, t0 + 1)).toBe(0);
    expect(await counter.hit(key, t0 + 2)).toBe(60);
    // A refused hit is taken back: the count stays at the limit.
    const row = await db.kysely
      .selectFrom('rate_limits')
      .select(['count'])
      .where('key', '=', `test:${key}`)
      .executeTakeFirstOrThrow();
    expect(row.count).toBe(2);
    expect(await counter.hit(key, t0 + 60_000)).toBe(0);
    await pruneRateLimits(db, t0 + 120_001);
    const left = await db.kysely
      .selectFrom('rate_limits')
      .select(['key'])
      .where('key', '=', `test:${key}`)
      .execute();
    expect(left).toEqual([]);
  });
});
