/**
 * Words with facet conditions (migrations 093 and 094, docs/decisions/038-search.md "Facets in the
 * full-text index"): the full-text index carries each ticket's project, type, priority, assignee,
 * reporter and labels (SQLite: FTS5's `facets` column; PostgreSQL: lexemes of the document), and
 * words with such conditions are intersected inside it. Every answer here is checked against the same
 * words inside an OR (not the top level's, so no facets, each ticket's row tested), on both
 * databases, and the stored facets against the tickets.
 */
import fs from 'node:fs';
import path from 'node:path';
import { type Kysely, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrateToLatest } from '../src/db/migrate.js';
import { FACET_MARK, facetQuery, facetToken } from '../src/db/search-facets.js';
import { backupStream } from '../src/domain/backup/export.js';
import { restoreBackup } from '../src/domain/backup/restore.js';
import { rankTuning } from '../src/domain/search/by-rank.js';
import { compileQuery } from '../src/domain/search/compile.js';
import { parseOrThrow } from '../src/domain/search/search.js';
import { createTestApp, databaseAt, dialect, type TestApp } from './helpers/app.js';
import { addMember, makeProject, makeTicket, newKey } from './helpers/board.js';
import { type Client, signUp, unique } from './helpers/factories.js';
import { search, walk } from './helpers/search.js';

let t: TestApp;
let admin: Client;
let member: Client;
const enc = encodeURIComponent;
const db = () => t.app.services.db.kysely as unknown as Kysely<any>;

beforeAll(async () => {
  t = await createTestApp();
  admin = await signUp(t.app);
  member = await signUp(t.app, { username: unique('mia') });
});
afterAll(async () => {
  await t.close();
});

/** The keys `words filters` finds (sorted), after checking them against the same words inside an OR. */
async function both(c: Client, words: string, filters: string): Promise<string[]> {
  const q = `${words} ${filters}`;
  const direct = await search(c, q, '&limit=100');
  const viaRows = await search(c, `(${words} OR ${words}) ${filters}`, '&limit=100');
  const keys = direct.items.map((i) => i.key).sort();
  expect(keys, q).toEqual(viaRows.items.map((i) => i.key).sort());
  expect(direct.total, q).toBe(keys.length);
  expect(viaRows.total, q).toBe(keys.length);
  return keys;
}

/** Tickets whose stored facets differ from their project, type, priority, people and labels. */
async function facetsOutOfStep(): Promise<unknown[]> {
  // SQLite: the FTS5 row's `facets` column; PostgreSQL: the document's lexemes that start with the
  // mark, each without positions (a positioned one would count in the title's index and in ts_rank).
  const stored =
    dialect === 'sqlite'
      ? sql`(select f.facets from ticket_search_ids s join ticket_fts f on f.rowid = s.id where s.ticket_id = t.id)`
      : sql`(select string_agg(u.lexeme || case when u.positions is null then '' else '@' end, ' ')
          from ticket_search s, unnest(s.doc) u where s.ticket_id = t.id and u.lexeme like ${`${FACET_MARK}%`})`;
  const rows = await sql<{
    id: string;
    project_id: string;
    type: string;
    priority: string;
    assignee_id: string | null;
    reporter_id: string | null;
    labels: string | null;
    facets: string | null;
  }>`select t.id, t.project_id, t.type, t.priority, t.assignee_id, t.reporter_id,
      (select ${sql.raw(dialect === 'sqlite' ? "group_concat(label_id, ' ')" : "string_agg(label_id, ' ')")}
        from ticket_labels where ticket_id = t.id) as labels, ${stored} as facets
    from tickets t`.execute(db());
  const bad: unknown[] = [];
  for (const r of rows.rows) {
    const expected = [
      facetToken('project', r.project_id),
      facetToken('type', r.type),
      facetToken('priority', r.priority),
      facetToken('assignee', r.assignee_id),
      facetToken('reporter', r.reporter_id),
      ...(r.labels ? r.labels.split(' ').map((l) => facetToken('label', l)) : []),
    ].sort();
    const facets = (r.facets ?? '').split(' ').filter(Boolean).sort();
    if (JSON.stringify(facets) !== JSON.stringify(expected)) bad.push({ id: r.id, stored: facets, expected });
  }
  if (dialect !== 'sqlite') return bad;
  // And no full-text row outlives its ticket (PostgreSQL's search row goes by its foreign key).
  const orphans =
    await sql`select rowid from ticket_fts where rowid not in (select id from ticket_search_ids)`.execute(
      db(),
    );
  return [...bad, ...orphans.rows];
}

describe('words with facet conditions (migration 093)', () => {
  it('find what each ticket row finds, through edits, labels, deletions and restores', async () => {
    const p = await makeProject(admin, { name: 'Puffins', key: newKey('F') });
    const q = await makeProject(admin, { name: 'Terns', key: newKey('G') });
    await addMember(admin, p.id, member);
    const label = async (name: string) =>
      (await admin.post(`/api/projects/${p.id}/labels`, { name, color: '#0EA5E9' })).json() as {
        id: string;
        name: string;
      };
    const beak = await label(unique('beak'));
    const wing = await label(unique('wing'));
    const a = await makeTicket(admin, p.id, { title: 'Puffin alpha', type: 'Bug', priority: 'High' });
    const b = await makeTicket(member, p.id, {
      title: 'Puffin beta',
      type: 'Task',
      assigneeId: admin.userId,
      labelIds: [beak.id],
    });
    const c = await makeTicket(admin, p.id, {
      title: 'Notes',
      description: 'a puffin',
      type: 'Story',
      priority: 'Critical',
      assigneeId: member.userId,
      labelIds: [beak.id, wing.id],
    });
    const d = await makeTicket(admin, q.id, { title: 'Puffin delta', type: 'Bug' });
    expect(await facetsOutOfStep()).toEqual([]);
    const memberName = member.username;
    const cases: [string, string[]][] = [
      ['type:bug', [a.key, d.key]],
      ['-type:bug', [b.key, c.key]],
      ['type:bug,task', [a.key, b.key, d.key]],
      ['priority>=high', [a.key, c.key]],
      ['-priority:critical', [a.key, b.key, d.key]],
      ['assignee:me', [b.key]],
      ['-assignee:me', [a.key, c.key, d.key]],
      ['assignee:none', [a.key, d.key]],
      ['is:unassigned', [a.key, d.key]],
      ['-assignee:none', [b.key, c.key]],
      [`reporter:${memberName}`, [b.key]],
      [`-reporter:${memberName}`, [a.key, c.key, d.key]],
      [`label:${beak.name}`, [b.key, c.key]],
      [`-label:${wing.name}`, [a.key, b.key, d.key]],
      [`project:${q.key}`, [d.key]],
      [`-project:${q.key} type:bug`, [a.key]],
      [`project:${p.key},${q.key} -type:task priority:medium`, [d.key]],
      ['type:bug due:none', [a.key, d.key]],
    ];
    for (const [filters, expected] of cases)
      expect(await both(admin, 'puffin', filters), filters).toEqual([...expected].sort());
    // The member sees one project: the scope's project is a facet too.
    expect(await both(member, 'puffin', 'type:bug')).toEqual([a.key]);
    expect(await both(member, 'puffin', '-type:bug')).toEqual([b.key, c.key].sort());

    // Edits of each facet.
    const patch = async (x: { id: string }, body: object, project = p.id) => {
      const r = await admin.patch(`/api/projects/${project}/tickets/${x.id}`, body);
      expect(r.statusCode, r.body).toBe(200);
    };
    await patch(a, { type: 'Story', priority: 'Low', assigneeId: member.userId });
    await patch(b, { assigneeId: null, labelIds: [wing.id] });
    await patch(c, { labelIds: [] });
    expect(await facetsOutOfStep()).toEqual([]);
    expect(await both(admin, 'puffin', 'type:bug')).toEqual([d.key]);
    expect(await both(admin, 'puffin', 'priority:low assignee:' + memberName)).toEqual([a.key]);
    expect(await both(admin, 'puffin', 'is:unassigned')).toEqual([b.key, d.key].sort());
    expect(await both(admin, 'puffin', `label:${wing.name}`)).toEqual([b.key]);
    expect(await both(admin, 'puffin', `-label:${beak.name}`)).toEqual([a.key, b.key, c.key, d.key].sort());
    // A label deleted takes itself off its tickets.
    expect((await admin.del(`/api/projects/${p.id}/labels/${wing.id}`)).statusCode).toBe(200);
    expect(await facetsOutOfStep()).toEqual([]);
    expect(await both(admin, 'puffin', `-type:bug -label:${beak.name}`)).toEqual(
      [a.key, b.key, c.key].sort(),
    );
    expect((await admin.get(`/api/search?q=${enc(`puffin label:${wing.name}`)}`)).statusCode).toBe(400);
    // A ticket deleted to the trash and restored gets its facets again.
    expect((await admin.del(`/api/projects/${q.id}/tickets/${d.id}`)).statusCode).toBe(200);
    expect(await both(admin, 'puffin', 'type:bug')).toEqual([]);
    const trash = (await admin.get(`/api/projects/${q.id}/trash`)).json();
    const restored = await admin.post(`/api/projects/${q.id}/trash/${trash.items[0].id}/restore`, {});
    expect(restored.statusCode, restored.body).toBe(200);
    expect(await both(admin, 'puffin', 'type:bug')).toEqual([d.key]);
    expect(await facetsOutOfStep()).toEqual([]);
    // Words typed never match a facet: the facet's letters and value without its mark find nothing.
    const bare = facetToken('type', 'Bug').slice(1);
    expect((await search(admin, bare)).total).toBe(0);
  });

  it('rank the first page the same in one pass and title first, across pages', async () => {
    const p = await makeProject(admin, { name: 'Skuas', key: newKey('K') });
    const titled = [];
    for (let i = 0; i < 3; i++)
      titled.push(await makeTicket(admin, p.id, { title: `Skua gull ${i}`, type: 'Bug' }));
    const body = [];
    for (let i = 0; i < 3; i++)
      body.push(
        await makeTicket(admin, p.id, {
          title: `Seabird ${i}`,
          description: `skua gull ${'gull '.repeat(i + 1)}`,
          type: 'Bug',
        }),
      );
    await makeTicket(admin, p.id, { title: 'Skua gull story', type: 'Story' });
    const q = `skua gull type:bug project:${p.key}`;
    const orders: string[][] = [];
    for (const fewPages of [8, 0]) {
      rankTuning.fewPages = fewPages;
      try {
        const first = await search(admin, q);
        expect(first.total).toBe(6);
        const keys = first.items.map((i) => i.key);
        // The title's matches first (updated last first among equals), then by score.
        expect(keys.slice(0, 3).sort()).toEqual(titled.map((x) => x.key).sort());
        expect(keys.slice(3)).toEqual([body[2].key, body[1].key, body[0].key]);
        orders.push(keys);
        for (const limit of [1, 2, 4])
          expect(await walk(admin, q, limit), `${limit}`).toEqual({ seen: keys, total: 6 });
      } finally {
        rankTuning.fewPages = 8;
      }
    }
    expect(orders[0]).toEqual(orders[1]);
  });

  it('pushes only terms of a few values into the full-text index, and the scope when small', async () => {
    const kdb = t.app.services.db.kysely;
    const scope = { projectIds: null, userId: admin.userId };
    const c = (text: string, s: { projectIds: string[] | null; userId: string } = scope) =>
      compileQuery(kdb, dialect, parseOrThrow(text), s);
    const bug = await c('crash type:bug');
    const bugToken = facetToken('type', 'Bug');
    expect(bug.facetTerms).toEqual({ pos: [[bugToken]], neg: [], restAll: true, scope: false });
    if (dialect === 'sqlite') {
      expect(bug.ftsMatch).toBe(`("crash"*) AND (facets : ("${bugToken}"))`);
      expect(bug.facetQuery).toBeNull();
    } else {
      expect(bug.ftsMatch).toBe(bug.topMatch);
      expect(bug.facetQuery).toBe(`('${bugToken}')`);
    }
    const mixed = await c('crash -assignee:me due<+7d');
    expect(mixed.facetTerms?.neg).toEqual([[facetToken('assignee', admin.userId)]]);
    expect(mixed.facetTerms?.restAll).toBe(false);
    expect(facetQuery(mixed.facetTerms)).toBe(`!('${facetToken('assignee', admin.userId)}')`);
    expect(facetQuery((await c('crash type:bug,story -priority:low')).facetTerms)).toBe(
      `('${bugToken}' | '${facetToken('type', 'Story')}') & !('${facetToken('priority', 'Low')}')`,
    );
    // No words, or no facet: nothing pushed.
    expect((await c('type:bug')).facetTerms).toBeNull();
    expect((await c('crash is:open')).facetTerms).toBeNull();
    // Nine labels of one name are left to the search row; eight go in.
    const names = unique('crest');
    const projects = [];
    for (let i = 0; i < 9; i++) {
      const p = await makeProject(admin, {
        name: `Crest ${i}`,
        key: newKey('C'),
      });
      await admin.post(`/api/projects/${p.id}/labels`, { name: names, color: '#0EA5E9' });
      projects.push(p.id);
    }
    expect((await c(`crash label:${names}`)).facetTerms).toBeNull();
    const eight = await c(`crash label:${names}`, {
      projectIds: projects.slice(0, 8),
      userId: admin.userId,
    });
    expect(eight.facetTerms?.pos.length).toBe(2); // the labels and the scope's projects
    expect(eight.facetTerms?.scope).toBe(true);
  });

  it('a restore writes every facet again (derived data, not in a backup)', async () => {
    const p = await makeProject(admin, { name: 'Restored facets', key: newKey('R') });
    const label = (
      await admin.post(`/api/projects/${p.id}/labels`, { name: 'heron', color: '#0EA5E9' })
    ).json();
    await makeTicket(admin, p.id, { title: 'Grey heron', type: 'Bug', labelIds: [label.id] });
    const labelled = await db()
      .selectFrom('ticket_labels')
      .select(sql<number>`count(*)`.as('n'))
      .executeTakeFirstOrThrow();
    expect(Number(labelled.n)).toBeGreaterThan(0);
    expect(await facetsOutOfStep()).toEqual([]);
    let text = '';
    for await (const piece of backupStream(t.app.services)) text += piece;
    const file = path.join(t.config.dataDir, 'facets.json');
    fs.writeFileSync(file, text);
    await restoreBackup(t.app.services, file);
    expect(await facetsOutOfStep()).toEqual([]);
  });

  it('the migration indexes the facets of the tickets a database has', async () => {
    const { db: d, kysely: k, drop } = await databaseAt('092_search_titles');
    try {
      const now = new Date().toISOString();
      const user = '01a00000-0000-7000-8000-000000000001';
      const project = '01a00000-0000-7000-8000-000000000002';
      const column = '01a00000-0000-7000-8000-000000000003';
      const label = '01a00000-0000-7000-8000-000000000004';
      await sql
        .raw(`insert into users (id, username, password_hash, is_system_admin, is_active, must_change_password,
          created_at, updated_at) values ('${user}', 'mig', 'x', 1, 1, 0, '${now}', '${now}')`)
        .execute(k);
      await sql
        .raw(`insert into projects (id, name, key, color, ticket_counter, sprint_counter, created_at, updated_at)
          values ('${project}', 'M', 'MIG', '#000', 2, 0, '${now}', '${now}')`)
        .execute(k);
      await sql
        .raw(`insert into columns (id, project_id, name, rank, created_at)
          values ('${column}', '${project}', 'To do', 'a', '${now}')`)
        .execute(k);
      await sql
        .raw(`insert into labels (id, project_id, name, color, created_at)
          values ('${label}', '${project}', 'tern', '#000', '${now}')`)
        .execute(k);
      for (const [n, type] of [
        [1, 'Bug'],
        [2, 'Task'],
      ] as const)
        await sql
          .raw(`insert into tickets (id, project_id, number, title, description, type, priority, column_id, rank,
            reporter_id, created_at, updated_at)
          values ('01a00000-0000-7000-8000-00000000001${n}', '${project}', ${n}, 'Migrating petrel ${n}', 'over the sea',
            '${type}', 'Medium', '${column}', 'a${n}', '${user}', '${now}', '${now}')`)
          .execute(k);
      await sql
        .raw(`insert into ticket_labels (ticket_id, label_id)
          values ('01a00000-0000-7000-8000-000000000011', '${label}')`)
        .execute(k);
      await sql
        .raw(`insert into comments (id, ticket_id, author_id, content, created_at, updated_at)
          values ('01a00000-0000-7000-8000-000000000021', '01a00000-0000-7000-8000-000000000012', '${user}',
            'storm warning', '${now}', '${now}')`)
        .execute(k);
      expect(await migrateToLatest(d)).toContain(
        dialect === 'sqlite' ? '093_search_facets' : '094_search_facets_postgres',
      );
      /** The documents holding `word` and (when given) the facet token. */
      const match = async (word: string, token?: string) =>
        Number(
          (
            await (dialect === 'sqlite'
              ? sql<{ n: number }>`select count(*) as n from ticket_fts
                    where ticket_fts match ${token ? `${word} AND facets : "${token}"` : word}`
              : sql<{ n: number }>`select count(*) as n from ticket_search where doc @@
                    (to_tsquery('simple', ${word}) && cast(${token ? `'${token}'` : word} as tsquery))`
            ).execute(k)
          ).rows[0].n,
        );
      // The text came over (the title, the description, a comment), and each ticket has its facets.
      expect(await match('petrel')).toBe(2);
      expect(await match('sea')).toBe(2);
      expect(await match('storm')).toBe(1);
      expect(await match('petrel', facetToken('type', 'Bug'))).toBe(1);
      expect(await match('petrel', facetToken('label', label))).toBe(1);
      expect(await match('petrel', facetToken('assignee', null))).toBe(2);
      expect(await match('sea', facetToken('reporter', user))).toBe(2);
      // And its triggers keep them: a label put on the second ticket.
      await sql
        .raw(`insert into ticket_labels (ticket_id, label_id)
          values ('01a00000-0000-7000-8000-000000000012', '${label}')`)
        .execute(k);
      expect(await match('petrel', facetToken('label', label))).toBe(2);
    } finally {
      await drop();
    }
  });
});
