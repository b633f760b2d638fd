import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { connect, type Db, EXTERNAL_CHECK_MS } from '../src/db/connect.js';
import { ReadCache, readCache } from '../src/domain/read-cache.js';
import { createTestApp, dialect, type TestApp } from './helpers/app.js';
import { makeProject, makeTicket, type ProjectOut } from './helpers/board.js';
import { type Client, signUp } from './helpers/factories.js';

/** Waits until another process's commit is seen by this process's cached reads. */
const pastExternalCheck = () => new Promise((r) => setTimeout(r, EXTERNAL_CHECK_MS + 1));

/** A database whose change counters the test moves by hand. */
function fakeGeneration() {
  let local = 0;
  let external = 0;
  let reads = 0;
  const changes = {
    local: () => local,
    external: () => {
      reads++;
      return external;
    },
  };
  const db = { changes } as unknown as Db;
  return {
    db: { db },
    /** Another write of this process (`local`) or of another process. */
    write(where: 'local' | 'external' = 'local') {
      if (where === 'local') local++;
      else external++;
    },
    noGeneration() {
      (db as { changes: unknown }).changes = null;
    },
    externalReads: () => reads,
  };
}

describe('the read cache', () => {
  it('keeps an answer while the generation is unchanged and drops everything when it moves', async () => {
    const cache = new ReadCache();
    const g = fakeGeneration();
    let computed = 0;
    const compute = async () => ++computed;
    expect(await cache.get(g.db, 'k', compute)).toBe(1);
    expect(await cache.get(g.db, 'k', compute)).toBe(1);
    expect(await cache.get(g.db, 'other', compute)).toBe(2);
    g.write();
    expect(await cache.get(g.db, 'k', compute)).toBe(3);
    g.write('external');
    expect(await cache.get(g.db, 'k', compute)).toBe(4);
    expect(cache.size).toBe(1);
  });

  it("reads the other processes' counter once per request, and this process's writes always", async () => {
    const cache = new ReadCache();
    const g = fakeGeneration();
    const request = { db: g.db.db, readView: {} };
    let computed = 0;
    const compute = async () => ++computed;
    expect(await cache.get(request, 'a', compute)).toBe(1);
    expect(await cache.get(request, 'b', compute)).toBe(2);
    expect(g.externalReads()).toBe(1);
    g.write(); // this request's own write: its next read must see it
    expect(await cache.get(request, 'a', compute)).toBe(3);
    g.write('external'); // another process: the next request sees it
    expect(await cache.get(request, 'a', compute)).toBe(3);
    expect(await cache.get({ db: g.db.db, readView: {} }, 'a', compute)).toBe(4);
  });

  it('keeps nothing computed while the database changed, nor anything without a generation', async () => {
    const cache = new ReadCache();
    const g = fakeGeneration();
    let computed = 0;
    const racing = async () => {
      g.write(); // a write lands while the read runs
      return ++computed;
    };
    expect(await cache.get(g.db, 'k', racing)).toBe(1);
    expect(cache.size).toBe(0);
    g.noGeneration(); // PostgreSQL
    const compute = async () => ++computed;
    expect(await cache.get(g.db, 'k', compute)).toBe(2);
    expect(await cache.get(g.db, 'k', compute)).toBe(3);
    expect(cache.size).toBe(0);
  });

  it('stays within its size budget, dropping the least recently used first', async () => {
    // Each entry counts 121 bytes (20 of text, its 1-character key, 100 of overhead): four fit, not five.
    const cache = new ReadCache(550);
    const g = fakeGeneration();
    const text = (n: number) => async () => 'x'.repeat(n);
    await cache.get(g.db, 'a', text(20), (v) => v.length);
    await cache.get(g.db, 'b', text(20), (v) => v.length);
    await cache.get(g.db, 'c', text(20), (v) => v.length);
    await cache.get(g.db, 'a', text(0), (v) => v.length); // a is used again
    await cache.get(g.db, 'd', text(20), (v) => v.length);
    await cache.get(g.db, 'e', text(20), (v) => v.length); // over 550: b, the least recently used, goes
    let recomputed = false;
    await cache.get(
      g.db,
      'b',
      async () => {
        recomputed = true;
        return 'x'.repeat(20);
      },
      (v) => v.length,
    );
    expect(recomputed).toBe(true);
    expect(await cache.get(g.db, 'a', text(0), (v) => v.length)).toHaveLength(20);
    // A value larger than a quarter of the budget is answered, not kept.
    await cache.get(g.db, 'huge', text(60), (v) => v.length);
    expect(await cache.get(g.db, 'huge', text(1), (v) => v.length)).toHaveLength(1);
  });
});

describe('the generation of the database', () => {
  let t: TestApp;
  let owner: Client;
  let p: ProjectOut;
  let other: Db;

  beforeAll(async () => {
    t = await createTestApp();
    owner = await signUp(t.app);
    p = await makeProject(owner, { name: 'Cached' });
    other = await connect({
      databaseUrl: t.config.databaseUrl,
      pgSchema: t.config.pgSchema,
      dataDir: t.config.dataDir,
    });
  });
  afterAll(async () => {
    await other.close();
    await t.close();
  });

  const db = () => t.app.services.db;
  const changes = () => {
    const c = db().changes;
    if (!c) throw new Error('both databases have change counters');
    return c;
  };
  const generation = async () => `${changes().local()}.${await changes().external()}`;

  it('counts every write of this process, even one rolled back, and not reads', async () => {
    // Only this process's counter: on PostgreSQL the other one moves with the whole cluster.
    const before = changes().local();
    await db().kysely.selectFrom('users').selectAll().execute();
    expect(changes().local()).toBe(before);
    await db()
      .kysely.transaction()
      .execute(async (tx) => {
        await tx.updateTable('projects').set({ name: 'Renamed' }).where('id', '=', p.id).execute();
        throw new Error('roll back');
      })
      .catch(() => undefined);
    expect(changes().local()).not.toBe(before);
  });

  it('moves with a commit made by another connection to the same file, within EXTERNAL_CHECK_MS', async () => {
    const before = await generation();
    await other.kysely
      .updateTable('projects')
      .set({ description: 'from elsewhere' })
      .where('id', '=', p.id)
      .execute();
    await pastExternalCheck();
    expect(await generation()).not.toBe(before);
  });

  it("reads the other processes' counter at most once per EXTERNAL_CHECK_MS", async () => {
    const c = changes();
    // A clock of the test's own, starting past the bound (so the first reading is fresh) and moved
    // by hand; afterwards real time catches up with it before the next test.
    let now = performance.now() + EXTERNAL_CHECK_MS;
    const clock = vi.spyOn(performance, 'now').mockImplementation(() => now);
    try {
      const seen = await c.external();
      await other.kysely
        .updateTable('projects')
        .set({ description: 'quick' })
        .where('id', '=', p.id)
        .execute();
      now += EXTERNAL_CHECK_MS / 2;
      expect(await c.external()).toBe(seen); // trusted within the bound
      now += EXTERNAL_CHECK_MS / 2;
      expect(await c.external()).not.toBe(seen); // read again once it has passed
    } finally {
      clock.mockRestore();
      await new Promise((r) => setTimeout(r, 2 * EXTERNAL_CHECK_MS + 1));
    }
  });

  // PostgreSQL reads run on other connections while a transaction is open (SQLite has one).
  it.runIf(dialect === 'postgres')(
    'keeps no answer read while a transaction was open past its commit',
    async () => {
      const own = await makeProject(owner, { name: 'Open transaction' });
      const ticket = await makeTicket(owner, own.id, { title: 'Before' });
      const full = () => owner.get(`/api/projects/${own.id}/tickets/${ticket.key}`);
      const trx = await db().kysely.startTransaction().execute();
      await trx.updateTable('tickets').set({ title: 'After' }).where('id', '=', ticket.id).execute();
      expect((await full()).json().title).toBe('Before');
      expect((await full()).json().title).toBe('Before');
      await trx.commit().execute();
      expect((await full()).json().title).toBe('After');
    },
  );

  it('serves list and ticket reads from the cache, and never a stale one after any write', async () => {
    const ticket = await makeTicket(owner, p.id, { title: 'First title' });
    const list = () => owner.get(`/api/projects/${p.id}/tickets`);
    const full = () => owner.get(`/api/projects/${p.id}/tickets/${ticket.key}`);
    const first = await list();
    expect(first.statusCode).toBe(200);
    expect(first.headers['content-type']).toMatch(/^application\/json/);
    expect(first.headers['x-total-count']).toBe('1');
    expect((await full()).json().title).toBe('First title');
    const kept = readCache(db()).size;
    expect(kept).toBeGreaterThan(0);
    // Unchanged database: the same answers, from the cache (nothing new kept).
    expect((await list()).body).toBe(first.body);
    expect((await full()).json().title).toBe('First title');
    expect(readCache(db()).size).toBe(kept);

    // A change through the API…
    await owner.patch(`/api/projects/${p.id}/tickets/${ticket.id}`, { title: 'Second title' });
    expect((await list()).json()[0].title).toBe('Second title');
    expect((await full()).json().title).toBe('Second title');

    // …and one made behind the server's back, by another connection (the CLI, another process).
    await other.kysely
      .updateTable('tickets')
      .set({ title: 'Third title' })
      .where('id', '=', ticket.id)
      .execute();
    await pastExternalCheck();
    expect((await list()).json()[0].title).toBe('Third title');
    expect((await full()).json().title).toBe('Third title');
  });

  it('ends a session within EXTERNAL_CHECK_MS when it is deleted by another connection', async () => {
    const user = await signUp(t.app);
    expect((await user.get('/api/me')).statusCode).toBe(200);
    expect((await user.get('/api/me')).statusCode).toBe(200);
    await other.kysely.deleteFrom('sessions').where('user_id', '=', user.userId).execute();
    await pastExternalCheck();
    expect((await user.get('/api/me')).statusCode).toBe(401);
  });
});
