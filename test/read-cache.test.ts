import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  ALL,
  ANY_PROJECT,
  ChangeTracker,
  classify,
  nameProjects,
  PendingChanges,
  scopesMarker,
  TABLE_SCOPES,
} from '../src/db/changes.js';
import { connect, type Db, WITH_COMMIT_MARK } from '../src/db/connect.js';
import { TABLES_IN_ORDER } from '../src/db/types.js';
import { arg, runPrepared } from '../src/domain/prepared.js';
import { ReadCache, readCache } from '../src/domain/read-cache.js';
import { createTestApp, dialect, type TestApp } from './helpers/app.js';
import { makeProject, makeTicket, type ProjectOut } from './helpers/board.js';
import { type Client, signUp } from './helpers/factories.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A database seam whose changes the test announces by hand, on a real ChangeTracker. */
function handTracked() {
  const tracker = new ChangeTracker();
  let refreshes = 0;
  const changes = {
    tracker,
    refresh: () => {
      refreshes++;
    },
  };
  const db = { changes } as unknown as Db;
  return { db: { db }, tracker, refreshes: () => refreshes };
}

const P1 = ['project:p1'];
const P2 = ['project:p2'];

describe('the read cache', () => {
  it('keeps an answer until one of its scopes changes, and only that answer', async () => {
    const cache = new ReadCache();
    const g = handTracked();
    let computed = 0;
    const compute = async () => ++computed;
    expect(await cache.get(g.db, 'a', compute, () => P1)).toBe(1);
    expect(await cache.get(g.db, 'a', compute, () => P1)).toBe(1);
    expect(await cache.get(g.db, 'b', compute, () => P2)).toBe(2);
    g.tracker.changed(['project:p2']);
    expect(await cache.get(g.db, 'a', compute, () => P1)).toBe(1);
    expect(await cache.get(g.db, 'b', compute, () => P2)).toBe(3);
    g.tracker.changed(['users']);
    expect(await cache.get(g.db, 'a', compute, () => P1)).toBe(1);
    expect(await cache.get(g.db, 'c', compute, () => ['project:p1', 'users'])).toBe(4);
    g.tracker.changed(['users']);
    expect(await cache.get(g.db, 'c', compute, () => ['project:p1', 'users'])).toBe(5);
    // Everything: every answer goes.
    g.tracker.changed([ALL]);
    expect(await cache.get(g.db, 'a', compute, () => P1)).toBe(6);
    expect(await cache.get(g.db, 'b', compute, () => P2)).toBe(7);
    expect(cache.stats).toEqual({ hits: 3, misses: 7 });
  });

  it('drops an answer that shows several projects when any project changes', async () => {
    const cache = new ReadCache();
    const g = handTracked();
    let computed = 0;
    const compute = async () => ++computed;
    const linked = () => ['project:p1', ANY_PROJECT];
    expect(await cache.get(g.db, 'a', compute, linked)).toBe(1);
    g.tracker.changed(['users']);
    expect(await cache.get(g.db, 'a', compute, linked)).toBe(1);
    g.tracker.changed(['project:p9']);
    expect(await cache.get(g.db, 'a', compute, linked)).toBe(2);
  });

  it("folds in the other processes' changes once per request", async () => {
    const cache = new ReadCache();
    const g = handTracked();
    const request = { db: g.db.db, readView: {} };
    let computed = 0;
    const compute = async () => ++computed;
    expect(await cache.get(request, 'a', compute, () => P1)).toBe(1);
    expect(await cache.get(request, 'b', compute, () => P1)).toBe(2);
    expect(g.refreshes()).toBe(1);
    g.tracker.changed(P1); // this request's own write: its next read must see it
    expect(await cache.get(request, 'a', compute, () => P1)).toBe(3);
    expect(await cache.get({ db: g.db.db, readView: {} }, 'a', compute, () => P1)).toBe(3);
    expect(g.refreshes()).toBe(2);
  });

  it('keeps nothing computed while one of its scopes changed, nor anything without a tracker', async () => {
    const cache = new ReadCache();
    const g = handTracked();
    let computed = 0;
    const racing = (scopes: string[]) => async () => {
      g.tracker.changed(scopes); // a write lands while the read runs
      return ++computed;
    };
    expect(await cache.get(g.db, 'k', racing(P1), () => P1)).toBe(1);
    expect(cache.size).toBe(0);
    // A write elsewhere meanwhile does not matter.
    expect(await cache.get(g.db, 'k', racing(P2), () => P1)).toBe(2);
    expect(cache.size).toBe(1);
    const none = { db: { changes: null } as unknown as Db };
    const compute = async () => ++computed;
    expect(await cache.get(none, 'n', compute, () => P1)).toBe(3);
    expect(await cache.get(none, 'n', compute, () => P1)).toBe(4);
  });

  it('stays within its size budget, dropping the least recently used first', async () => {
    // Each entry counts 156 bytes (20 of text, 24 of its 1-character key, 112 of its record): four
    // fit, not five.
    const cache = new ReadCache(700);
    const g = handTracked();
    const text = (n: number) => async () => 'x'.repeat(n);
    const get = (k: string, n: number) =>
      cache.get(
        g.db,
        k,
        text(n),
        () => P1,
        (v) => v.length,
      );
    await get('a', 20);
    await get('b', 20);
    await get('c', 20);
    await get('a', 0); // a is used again
    await get('d', 20);
    await get('e', 20); // over 550: b, the least recently used, goes
    expect(await get('b', 3)).toHaveLength(3);
    expect(await get('a', 0)).toHaveLength(20);
    expect(cache.bytes).toBeLessThanOrEqual(700);
    // A value larger than a quarter of the budget is answered, not kept.
    await get('huge', 60);
    expect(await get('huge', 1)).toHaveLength(1);
  });
});

describe('what a statement changes', () => {
  it('knows every table of the schema', () => {
    for (const table of TABLES_IN_ORDER) expect(TABLE_SCOPES[table], table).toBeDefined();
  });

  it('counts a project table for the named projects only, and for everything when none is named', () => {
    const tx = new PendingChanges();
    const write = (sql: string) => {
      const st = classify(sql);
      if (st.kind !== 'write') throw new Error(`not a write: ${sql}`);
      tx.write(st);
    };
    tx.begin();
    write('update "tickets" set "title" = ? where "id" = ?');
    write('insert into "events" ("scope") values (?)');
    expect(tx.scopes()).toEqual([ALL]);
    tx.begin();
    const marker = classify(scopesMarker(['project:abc']));
    if (marker.kind !== 'marker') throw new Error('a marker');
    tx.name(marker.scopes);
    write('update "tickets" set "title" = ? where "id" = ?');
    write('insert into "notifications" ("id") values (?)');
    expect(tx.scopes()).toEqual(['project:abc']);
    write('delete from "project_members" where "id" = ?');
    expect(tx.scopes().sort()).toEqual(['access:abc', 'project:abc', 'projects']);
    write('update "users" set "name" = ?');
    expect(tx.scopes()).toContain('users');
    write('create table "x" ("id" text)');
    expect(tx.scopes()).toEqual([ALL]);
    tx.begin();
    write('insert into "somewhere_new" ("id") values (?)');
    expect(tx.scopes()).toEqual([ALL]);
    // Outside a transaction a marker alone names nothing: the next write still changes everything.
    tx.reset();
    tx.name(['project:abc']);
    write('update "tickets" set "title" = ? where "id" = ?');
    expect(tx.scopes()).toEqual([ALL]);
    // A statement may name its own change: nothing, here.
    tx.reset();
    write(`update "sessions" set "last_used_at" = ? where "id" = ? ${scopesMarker([])}`);
    expect(tx.scopes()).toEqual([]);
    // A statement with common table expressions: each write in it counts, a WITH … SELECT reads.
    tx.begin();
    tx.name(['project:abc']);
    write(
      'with t as (insert into tickets (id) values ($1) returning id) insert into ticket_watchers (ticket_id) select id from t',
    );
    expect(tx.scopes()).toEqual(['project:abc']);
    write('with u as (update "users" set "name" = $1 returning id) select id from u');
    expect(tx.scopes().sort()).toEqual(['project:abc', 'users']);
    write('with x as (delete from somewhere_new returning id) select id from x');
    expect(tx.scopes()).toEqual([ALL]);
    expect(classify('with t as (select 1) select * from t').kind).toBe('read');
    expect(classify('select 1').kind).toBe('read');
    expect(classify('savepoint "a"').kind).toBe('read');
    expect(classify('rollback to savepoint "a"').kind).toBe('read');
    expect(classify('begin immediate').kind).toBe('begin');
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
    if (!c) throw new Error('both databases track changes');
    return c;
  };
  /** Waits until another process's commit is seen by this process's cached reads. */
  const pastExternalCheck = () => sleep(changes().staleMs + 1);

  it('announces a committed write by the projects it named, and nothing for a rollback or a read', async () => {
    const { tracker } = changes();
    const mine = [`project:${p.id}`];
    const before = tracker.seq;
    await db().kysely.selectFrom('users').selectAll().execute();
    await db()
      .kysely.transaction()
      .execute(async (tx) => {
        await nameProjects(tx, [p.id]);
        await tx.updateTable('projects').set({ name: 'Renamed' }).where('id', '=', p.id).execute();
        throw new Error('roll back');
      })
      .catch(() => undefined);
    expect(tracker.changedSince([...mine, 'users', 'auth'], before)).toBe(false);
    await db()
      .kysely.transaction()
      .execute(async (tx) => {
        await nameProjects(tx, ['elsewhere']);
        await tx.updateTable('tickets').set({ title: 'x' }).where('id', '=', 'nothing').execute();
      });
    expect(tracker.changedSince(mine, before)).toBe(false);
    expect(tracker.changedSince(['project:elsewhere'], before)).toBe(true);
    await db().kysely.updateTable('tickets').set({ title: 'x' }).where('id', '=', 'nothing').execute();
    expect(tracker.changedSince(mine, before)).toBe(true);
  });

  // SQLite reads the file's commit counter on the main thread, with its clock (mocked here).
  it.runIf(dialect === 'sqlite')(
    "folds in other processes' commits at most staleMs late, and at once when forced",
    async () => {
      const c = changes();
      // A clock of the test's own, moved by hand; afterwards real time catches up with it before the
      // next test. The first reading is forced, so what is known is as of the clock's start.
      let now = performance.now() + c.staleMs;
      const clock = vi.spyOn(performance, 'now').mockImplementation(() => now);
      const write = (description: string) =>
        other.kysely.updateTable('projects').set({ description }).where('id', '=', p.id).execute();
      const mine = [`project:${p.id}`];
      try {
        await c.refresh(true);
        let seen = c.tracker.seq;
        await write('quick');
        now += c.staleMs / 10;
        expect(c.refresh()).toBeUndefined(); // trusted within the bound: no reading, no waiting
        expect(c.tracker.changedSince(mine, seen)).toBe(false);
        now += c.staleMs;
        await c.refresh();
        expect(c.tracker.changedSince(mine, seen)).toBe(true); // read again once it has passed
        // Forced: a reading that starts now, however recent the last one.
        seen = c.tracker.seq;
        await write('forced');
        await c.refresh(true);
        expect(c.tracker.changedSince(mine, seen)).toBe(true);
      } finally {
        clock.mockRestore();
        await sleep(3 * c.staleMs + 1);
      }
    },
  );

  // PostgreSQL: the change log's reader is a thread of its own (src/db/change-log.ts, decision 054).
  it.runIf(dialect === 'postgres')(
    "learns of another instance's commits from its reader thread: without waiting while requests come, at once when forced, by waiting after a quiet spell",
    async () => {
      const c = changes();
      const write = (description: string) =>
        other.kysely.updateTable('projects').set({ description }).where('id', '=', p.id).execute();
      const mine = [`project:${p.id}`];
      const known = (since: number) => c.tracker.changedSince(mine, since);
      await c.refresh(true);
      expect(c.refresh()).toBeUndefined(); // just read: a request answers at once
      // While requests come the reader keeps reading: the commit is known without anyone waiting.
      let seen = c.tracker.seq;
      await write('while busy');
      const started = performance.now();
      let waited = 0;
      while (!known(seen) && performance.now() - started < 5_000) {
        if (c.refresh() !== undefined) waited++;
        await sleep(1);
      }
      expect(known(seen)).toBe(true);
      expect(waited).toBe(0);
      // Forced: a reading that starts now, however recent the last one.
      seen = c.tracker.seq;
      await write('forced');
      await c.refresh(true);
      expect(known(seen)).toBe(true);
      // After a quiet spell the reader sleeps and what is known grows old: the next request waits
      // for a reading, which finds the commit.
      await sleep(1_500);
      seen = c.tracker.seq;
      await write('after a quiet spell');
      const waiting = c.refresh();
      expect(waiting).toBeInstanceOf(Promise);
      await waiting;
      expect(known(seen)).toBe(true);
    },
  );

  it('keeps the reads of a project while another project is written, and drops them on its own writes', async () => {
    const quiet = await makeProject(owner, { name: 'Quiet' });
    const busy = await makeProject(owner, { name: 'Busy' });
    const ticket = await makeTicket(owner, quiet.id, { title: 'Quiet one' });
    const elsewhere = await makeTicket(owner, busy.id, { title: 'Busy one' });
    const full = () => owner.get(`/api/projects/${quiet.id}/tickets/${ticket.key}`);
    const list = () => owner.get(`/api/projects/${quiet.id}/tickets`);
    await full();
    await list();
    const cache = readCache(db());
    const before = cache.stats;
    for (let i = 0; i < 3; i++) {
      await owner.patch(`/api/projects/${busy.id}/tickets/${elsewhere.id}`, { title: `Busy ${i}` });
      await owner.post(`/api/projects/${busy.id}/tickets/${elsewhere.id}/comments`, { content: `c${i}` });
      expect((await full()).json().title).toBe('Quiet one');
      expect((await list()).json()[0].title).toBe('Quiet one');
    }
    // Every ticket and list read above was a hit (the session and access answers too).
    expect(cache.stats.misses).toBe(before.misses);
    await owner.patch(`/api/projects/${quiet.id}/tickets/${ticket.id}`, { title: 'Changed' });
    expect((await full()).json().title).toBe('Changed');
    expect((await list()).json()[0].title).toBe('Changed');
  });

  it("shows a link made from another project on the linked ticket's cached read, and its removal", async () => {
    const a = await makeProject(owner, { name: 'Linked to' });
    const b = await makeProject(owner, { name: 'Linking from' });
    const target = await makeTicket(owner, a.id, { title: 'Target' });
    const source = await makeTicket(owner, b.id, { title: 'Source' });
    const full = async () => (await owner.get(`/api/projects/${a.id}/tickets/${target.key}`)).json();
    expect((await full()).links).toEqual([]);
    expect((await full()).links).toEqual([]);
    const made = await owner.post(`/api/projects/${b.id}/tickets/${source.id}/links`, {
      targetTicketId: target.id,
      linkType: 'blocks',
    });
    expect(made.statusCode).toBe(201);
    expect((await full()).links.map((l: { ticket: { key: string } }) => l.ticket.key)).toEqual([source.key]);
    // A change of the other project's ticket shows through the link.
    await owner.patch(`/api/projects/${b.id}/tickets/${source.id}`, { title: 'Source renamed' });
    expect((await full()).links[0].ticket.title).toBe('Source renamed');
    expect((await owner.del(`/api/projects/${b.id}/tickets/${source.id}`)).statusCode).toBe(200);
    expect((await full()).links).toEqual([]);
  });

  // Another instance on the same PostgreSQL database: its writes arrive through the change log.
  it.runIf(dialect === 'postgres')(
    "keeps a project's reads through another instance's writes elsewhere, and drops them for its writes there",
    async () => {
      const quiet = await makeProject(owner, { name: 'Quiet here' });
      const busy = await makeProject(owner, { name: 'Busy there' });
      const ticket = await makeTicket(owner, quiet.id, { title: 'Here' });
      const there = await makeTicket(owner, busy.id, { title: 'There' });
      const full = () => owner.get(`/api/projects/${quiet.id}/tickets/${ticket.key}`);
      await full();
      const cache = readCache(db());
      const before = cache.stats.misses;
      const write = (projectId: string, ticketId: string, title: string) =>
        other.kysely.transaction().execute(async (tx) => {
          await nameProjects(tx, [projectId]);
          await tx.updateTable('tickets').set({ title }).where('id', '=', ticketId).execute();
        });
      await write(busy.id, there.id, 'There again');
      await pastExternalCheck();
      expect((await full()).json().title).toBe('Here');
      expect(cache.stats.misses).toBe(before);
      await write(quiet.id, ticket.id, 'Here, changed there');
      await pastExternalCheck();
      expect((await full()).json().title).toBe('Here, changed there');
    },
  );

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

  it.runIf(dialect === 'postgres')(
    'sends a held statement with the COMMIT, and rolls the whole transaction back when it fails',
    async () => {
      const description = async () =>
        (
          await db()
            .kysely.selectFrom('projects')
            .select('description')
            .where('id', '=', p.id)
            .executeTakeFirst()
        )?.description;
      let held: Promise<{ rows: { id: number }[] }> | null = null;
      await db()
        .kysely.transaction()
        .execute(async (tx) => {
          await nameProjects(tx, [p.id]);
          await tx
            .updateTable('projects')
            .set({ description: 'held, then committed' })
            .where('id', '=', p.id)
            .execute();
          held = sql<{ id: number }>`insert into cache_changes (origin, scopes, created_at)
            values ('test', '', ${new Date().toISOString()}) returning id ${sql.raw(WITH_COMMIT_MARK)}`.execute(
            tx,
          );
          held.catch(() => {});
        });
      if (!held) throw new Error('held');
      expect(Number(((await held) as { rows: { id: number }[] }).rows[0].id)).toBeGreaterThan(0);
      expect(await description()).toBe('held, then committed');
      // A held statement that fails (a second project with this id): PostgreSQL skips the COMMIT
      // sent with it, the transaction's earlier write is rolled back, and both callers hear of it.
      const failing = db()
        .kysely.transaction()
        .execute(async (tx) => {
          await nameProjects(tx, [p.id]);
          await tx.updateTable('projects').set({ description: 'never' }).where('id', '=', p.id).execute();
          held = sql<{
            id: number;
          }>`insert into projects select * from projects where id = ${p.id} ${sql.raw(WITH_COMMIT_MARK)}`.execute(
            tx,
          );
          held.catch(() => {});
        });
      await expect(failing).rejects.toThrow(/duplicate key/);
      await expect(held).rejects.toThrow(/duplicate key/);
      expect(await description()).toBe('held, then committed');
      // The connection is usable afterwards.
      expect(await description()).toBe('held, then committed');
    },
  );

  it.runIf(dialect === 'postgres')(
    'holds a BEGIN back for the first statement that needs it: prepared reads run ahead, writes roll back, locks last to the COMMIT',
    async () => {
      const k = db().kysely;
      const read = (q: typeof k) =>
        runPrepared(
          q,
          'test-project-description',
          (d) => d.selectFrom('projects').select('description').where('id', '=', arg(0)),
          [p.id],
        ).then((rows) => rows[0]?.description);
      const setTo = (q: typeof k, description: string) =>
        q.updateTable('projects').set({ description }).where('id', '=', p.id).execute();
      await setTo(k, 'before');
      // A prepared read ahead of the BEGIN, then a write (which carries it), then a failure: the
      // write is rolled back.
      await expect(
        k.transaction().execute(async (tx) => {
          expect(await read(tx)).toBe('before');
          await nameProjects(tx, [p.id]);
          await setTo(tx, 'rolled back');
          // After the BEGIN went, prepared reads are inside the transaction: they see its write.
          expect(await read(tx)).toBe('rolled back');
          throw new Error('undo');
        }),
      ).rejects.toThrow('undo');
      expect(await read(k)).toBe('before');
      // A locking read carries the BEGIN: its lock lasts to the COMMIT, and another
      // connection cannot take the row meanwhile.
      const tryLock = () =>
        sql`select id from projects where id = ${p.id} for update nowait`.execute(other.kysely);
      await k.transaction().execute(async (tx) => {
        expect(await read(tx)).toBe('before');
        // A named statement, which would otherwise run ahead of the BEGIN.
        await runPrepared(
          tx,
          'test-project-lock',
          (d) => d.selectFrom('projects').select('id').where('id', '=', arg(0)).forUpdate(),
          [p.id],
        );
        await expect(tryLock()).rejects.toThrow(/could not obtain lock/);
        await nameProjects(tx, [p.id]);
        await setTo(tx, 'committed');
      });
      await tryLock();
      expect(await read(k)).toBe('committed');
      // A transaction of prepared reads only sends no BEGIN and no COMMIT, and leaves the
      // connection usable.
      expect(await k.transaction().execute((tx) => read(tx))).toBe('committed');
      await setTo(k, 'after');
      expect(await read(k)).toBe('after');
    },
  );

  it.runIf(dialect === 'postgres')(
    "prunes the change log in its reader's first reading, and the pool answers after the reader's start",
    async () => {
      // The reader starts through `pool.query`, which answers through a callback; the seam once
      // answered it with a promise as well, and the driver released the connection twice: the
      // server died a minute after start.
      const old = new Date(Date.now() - 11 * 60_000).toISOString();
      await db()
        .kysely.insertInto('cache_changes')
        .values({ origin: 'test', scopes: 'project:x', created_at: old })
        .execute();
      const third = await connect({
        databaseUrl: t.config.databaseUrl,
        pgSchema: t.config.pgSchema,
        dataDir: t.config.dataDir,
      });
      try {
        await third.changes?.startLog?.();
        await third.changes?.refresh(true);
        const left = await db()
          .kysely.selectFrom('cache_changes')
          .select('id')
          .where('created_at', '<', new Date(Date.now() - 10 * 60_000).toISOString())
          .execute();
        expect(left).toEqual([]);
        // The pool still answers after the reader's start.
        for (let i = 0; i < 12; i++) {
          const row = await third.kysely
            .selectFrom('users')
            .select((eb) => eb.fn.countAll().as('n'))
            .executeTakeFirst();
          expect(row).toBeDefined();
        }
      } finally {
        await third.close();
      }
    },
  );

  it('ends a session within staleMs when it is deleted by another connection', async () => {
    const user = await signUp(t.app);
    expect((await user.get('/api/me')).statusCode).toBe(200);
    expect((await user.get('/api/me')).statusCode).toBe(200);
    await other.kysely.deleteFrom('sessions').where('user_id', '=', user.userId).execute();
    await pastExternalCheck();
    expect((await user.get('/api/me')).statusCode).toBe(401);
  });
});
