import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readCache } from '../src/domain/read-cache.js';
import { buildApp } from '../src/server/app.js';
import { createTestApp, dialect, type TestApp } from './helpers/app.js';
import { makeProject, makeTicket } from './helpers/board.js';
import { type Client, clientFor, signUp } from './helpers/factories.js';
import { SseClient } from './helpers/sse.js';

/**
 * Two instances on one database, as behind a load balancer (decision 053): one writes, the other
 * answers from its read cache. The second learns of the first's commits at most `staleMs` late, and
 * before it hands their events to its clients, so a client that refetches on an event sees it.
 * Several instances are a PostgreSQL deployment; on SQLite the second instance stands for another
 * process on the file (the CLI), whose commits change everything.
 */

let t: TestApp;
let second: FastifyInstance;
let secondBase: string;
let owner: Client;
/** The same user through the second instance (sessions live in the database). */
let owner2: ReturnType<typeof clientFor>;
const streams: SseClient[] = [];

beforeAll(async () => {
  t = await createTestApp();
  second = await buildApp(t.config, { logger: false, webRoot: path.join(os.tmpdir(), 'docket-no-web') });
  secondBase = await second.listen({ port: 0, host: '127.0.0.1' });
  owner = await signUp(t.app);
  owner2 = clientFor(second, { cookie: owner.cookie });
}, 60_000);

afterAll(async () => {
  for (const s of streams) s.close();
  await second?.close();
  await t?.close();
});

const pg = dialect === 'postgres';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const staleMs = () => {
  const changes = second.services.db.changes;
  if (!changes) throw new Error('the read cache follows changes on both databases');
  return changes.staleMs;
};

describe('the read cache of a second instance', () => {
  it("serves a client that refetches on another instance's event the change it announces", async () => {
    const p = await makeProject(owner, { name: 'Two instances' });
    const ticket = await makeTicket(owner, p.id, { title: 'Before' });
    const full = () => owner2.get(`/api/projects/${p.id}/tickets/${ticket.key}`);
    const stream = await SseClient.open(`${secondBase}/api/projects/${p.id}/events`, {
      cookie: owner.cookie,
    });
    streams.push(stream);
    expect(stream.status).toBe(200);
    await stream.until(() => stream.messages.length > 0, 5000, 'the first message');
    for (let round = 1; round <= 5; round++) {
      // The second instance has the ticket in its cache and has just read the change log…
      expect((await full()).json().title).toBe(round === 1 ? 'Before' : `After ${round - 1}`);
      const misses = readCache(second.services.db).stats.misses;
      expect((await full()).statusCode).toBe(200);
      if (pg) expect(readCache(second.services.db).stats.misses).toBe(misses); // all of it kept
      // …when the first instance commits a change; its event reaches the client through the second.
      const seen = stream.messages.length;
      expect(
        (await owner.patch(`/api/projects/${p.id}/tickets/${ticket.id}`, { title: `After ${round}` }))
          .statusCode,
      ).toBe(200);
      await stream.until(
        () => stream.messages.slice(seen).some((m) => m.json?.type === 'ticket.updated'),
        5000,
        'the update event',
      );
      // The refetch the event prompts, at once: never the answer from before the event.
      expect((await full()).json().title).toBe(`After ${round}`);
    }
  });

  it("serves another instance's acknowledged write once staleMs has passed, and keeps other projects' answers", async () => {
    const quiet = await makeProject(owner, { name: 'Quiet there' });
    const busy = await makeProject(owner, { name: 'Busy here' });
    const kept = await makeTicket(owner, quiet.id, { title: 'Kept' });
    const written = await makeTicket(owner, busy.id, { title: 'Written 0' });
    const read = (projectId: string, key: string) => owner2.get(`/api/projects/${projectId}/tickets/${key}`);
    expect((await read(quiet.id, kept.key)).json().title).toBe('Kept');
    for (let i = 1; i <= 5; i++) {
      expect((await read(busy.id, written.key)).json().title).toBe(`Written ${i - 1}`);
      await owner.patch(`/api/projects/${busy.id}/tickets/${written.id}`, { title: `Written ${i}` });
      await sleep(staleMs() + 1);
      expect((await read(busy.id, written.key)).json().title).toBe(`Written ${i}`);
      // On PostgreSQL the quiet project's answer stayed in the second instance's cache through the
      // writes (on SQLite another connection's commit changes everything: decision 047).
      const misses = readCache(second.services.db).stats.misses;
      expect((await read(quiet.id, kept.key)).json().title).toBe('Kept');
      if (pg) expect(readCache(second.services.db).stats.misses).toBe(misses);
    }
  });

  it('ends a session signed out on one instance on the other within staleMs', async () => {
    const user = await signUp(t.app);
    const there = clientFor(second, { cookie: user.cookie });
    expect((await there.get('/api/me')).statusCode).toBe(200);
    expect((await there.get('/api/me')).statusCode).toBe(200);
    expect((await user.post('/api/auth/signout', {})).statusCode).toBeLessThan(400);
    await sleep(staleMs() + 1);
    expect((await there.get('/api/me')).statusCode).toBe(401);
  });
});
