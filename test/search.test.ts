import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrateToLatest } from '../src/db/migrate.js';
import { newId } from '../src/domain/ids.js';
import { SEARCH_ROW_COLUMNS } from '../src/domain/search/search.js';
import { createTestApp, dialect, type TestApp } from './helpers/app.js';
import {
  addMember,
  columnsOf,
  labelColumnsOutOfStep,
  makeProject,
  makeTicket,
  type ProjectOut,
} from './helpers/board.js';
import { type Client, signUp, unique } from './helpers/factories.js';
import { search, undoPostgresFacets, walk } from './helpers/search.js';

let t: TestApp;
let owner: Client;
let member: Client;
let outsider: Client;
let admin: Client;
let web: ProjectOut;
let api: ProjectOut;
let sec: ProjectOut;
const tk: Record<string, { id: string; key: string }> = {};
let ownerName: string;
let memberName: string;

const db = () => t.app.services.db.kysely;
const enc = encodeURIComponent;

/** The keys a query finds for the owner (who sees WEB and API), sorted. */
async function keys(q: string, c: Client = owner) {
  const r = await search(c, `${q}`, '&limit=100');
  expect(r.total).toBe(r.items.length);
  return r.items.map((i) => i.key).sort();
}
const K = (...names: string[]) => names.map((n) => tk[n].key).sort();

async function setTimes(name: string, created: string, updated: string) {
  await db()
    .updateTable('tickets')
    .set({ created_at: created, updated_at: updated })
    .where('id', '=', tk[name].id)
    .execute();
}

beforeAll(async () => {
  t = await createTestApp();
  admin = await signUp(t.app); // the first account is a system administrator
  ownerName = unique('olga');
  memberName = unique('max');
  owner = await signUp(t.app, { username: ownerName, name: 'Olga' });
  member = await signUp(t.app, { username: memberName, name: 'Max' });
  outsider = await signUp(t.app);
  web = await makeProject(owner, { name: 'Web', key: unique('W').slice(0, 8).toUpperCase() });
  api = await makeProject(owner, { name: 'Api', key: unique('A').slice(0, 8).toUpperCase() });
  sec = await makeProject(outsider, { name: 'Secret', key: unique('S').slice(0, 8).toUpperCase() });
  await addMember(owner, web.id, member);
  const [todo, doing, done] = await columnsOf(owner, web.id);
  const bug = (await owner.post(`/api/projects/${web.id}/labels`, { name: 'Needs Review' })).json();
  const ui = (await owner.post(`/api/projects/${web.id}/labels`, { name: 'ui' })).json();
  const sprint = (await owner.post(`/api/projects/${web.id}/sprints`, { name: 'Sprint Alpha' })).json();
  const planned = (await owner.post(`/api/projects/${web.id}/sprints`, { name: 'Sprint Beta' })).json();
  expect((await owner.post(`/api/projects/${web.id}/sprints/${sprint.id}/start`, {})).statusCode).toBe(200);

  tk.login = await makeTicket(owner, web.id, {
    title: 'Login page crashes on submit',
    description: 'The café form throws when the password is empty',
    type: 'Bug',
    priority: 'Critical',
    assigneeId: owner.userId,
    labelIds: [bug.id],
    sprintId: sprint.id,
    storyPoints: 5,
    dueDate: '2026-03-10',
    columnId: doing.id,
  });
  tk.signup = await makeTicket(member, web.id, {
    title: 'Signup flow redesign',
    description: 'Crash course in onboarding',
    type: 'Story',
    priority: 'Medium',
    assigneeId: member.userId,
    labelIds: [ui.id],
    sprintId: planned.id,
    storyPoints: 2,
    watcherIds: [owner.userId],
    columnId: todo.id,
  });
  tk.done = await makeTicket(owner, web.id, {
    title: 'Ship the logo',
    type: 'Task',
    priority: 'Low',
    columnId: done.id,
    parentId: tk.login.id,
  });
  tk.apiBug = await makeTicket(owner, api.id, {
    title: 'Rate limiter off by one',
    type: 'Bug',
    priority: 'High',
  });
  tk.apiDocs = await makeTicket(owner, api.id, {
    title: 'Document the endpoints',
    type: 'Task',
    priority: 'Lowest',
    dueDate: '2026-01-05',
  });
  tk.secret = await makeTicket(outsider, sec.id, { title: 'Secret login crash plans', type: 'Bug' });
  // A comment is searchable; a link and an attachment for has:.
  await owner.post(`/api/projects/${api.id}/tickets/${tk.apiDocs.id}/comments`, {
    content: 'Remember the zebra endpoint',
  });
  await owner.post(`/api/projects/${web.id}/tickets/${tk.login.id}/links`, {
    targetTicketId: tk.signup.id,
    linkType: 'blocks',
  });
  await db()
    .insertInto('attachments')
    .values({
      id: newId(),
      ticket_id: tk.apiBug.id,
      uploader_id: owner.userId,
      filename: 'trace.txt',
      mime_type: 'text/plain',
      size: 3,
      stored_name: 'x.txt',
      created_at: new Date().toISOString(),
    })
    .execute();
  await setTimes('login', '2026-01-10T10:00:00.000Z', '2026-02-01T10:00:00.000Z');
  await setTimes('signup', '2026-01-11T10:00:00.000Z', '2026-02-03T10:00:00.000Z');
  await setTimes('done', '2026-01-12T10:00:00.000Z', '2026-02-02T10:00:00.000Z');
  await setTimes('apiBug', '2026-01-13T23:59:59.999Z', new Date().toISOString());
  await setTimes('apiDocs', '2026-01-14T00:00:00.000Z', '2026-01-20T10:00:00.000Z');
}, 60_000);
afterAll(async () => t?.close());

describe('GET /api/search: free text', () => {
  it('matches title, description and comments, case and accents ignored, the last word as a prefix', async () => {
    expect(await keys('LOGIN')).toEqual(K('login'));
    expect(await keys('cafe')).toEqual(K('login'));
    expect(await keys('CAFÉ')).toEqual(K('login'));
    expect(await keys('zebra')).toEqual(K('apiDocs'));
    expect(await keys('crash')).toEqual(K('login', 'signup'));
    expect(await keys('endp')).toEqual(K('apiDocs'));
    expect(await keys('log')).toEqual(K('login', 'done'));
    // Only the last word is a prefix.
    expect(await keys('log page')).toEqual([]);
    expect(await keys('page log')).toEqual(K('login'));
  });
  it('words in any order; a phrase keeps them in order', async () => {
    expect(await keys('submit login')).toEqual(K('login'));
    expect(await keys('"page crashes"')).toEqual(K('login'));
    expect(await keys('"crashes page"')).toEqual([]);
  });
  it('a ticket key puts that ticket first', async () => {
    const r = await search(owner, `${tk.apiDocs.key}`);
    expect(r.items[0].key).toBe(tk.apiDocs.key);
    const mixed = await search(owner, `${tk.done.key} OR login`);
    expect(mixed.items.map((i) => i.key)).toEqual([tk.done.key, tk.login.key]);
  });
  it('relevance: a title hit ranks above a description hit', async () => {
    const r = await search(owner, 'crash');
    expect(r.items.map((i) => i.key)).toEqual([tk.login.key, tk.signup.key]);
  });
  it('the index follows edits, comments and deletes inside their transactions', async () => {
    const extra = await makeTicket(owner, api.id, { title: 'Quokka migration' });
    expect(await keys('quokka')).toEqual([extra.key]);
    await owner.patch(`/api/projects/${api.id}/tickets/${extra.id}`, { title: 'Wombat migration' });
    expect(await keys('quokka')).toEqual([]);
    expect(await keys('wombat')).toEqual([extra.key]);
    const c = (
      await owner.post(`/api/projects/${api.id}/tickets/${extra.id}/comments`, {
        content: 'platypus sighting',
      })
    ).json();
    expect(await keys('platypus')).toEqual([extra.key]);
    await owner.patch(`/api/projects/${api.id}/tickets/${extra.id}/comments/${c.id}`, { content: 'echidna' });
    expect(await keys('platypus')).toEqual([]);
    expect(await keys('echidna')).toEqual([extra.key]);
    await owner.del(`/api/projects/${api.id}/tickets/${extra.id}/comments/${c.id}`);
    expect(await keys('echidna')).toEqual([]);
    expect((await owner.del(`/api/projects/${api.id}/tickets/${extra.id}`)).statusCode).toBe(200);
    expect(await keys('wombat')).toEqual([]);
  });
});

describe('GET /api/search: fields', () => {
  it('project:', async () => {
    expect(await keys(`project:${api.key}`)).toEqual(K('apiBug', 'apiDocs'));
    expect(await keys(`project:${api.key.toLowerCase()},${web.key}`)).toHaveLength(5);
  });
  it('assignee: and reporter:', async () => {
    expect(await keys('assignee:me')).toEqual(K('login'));
    expect(await keys('assignee:me', member)).toEqual(K('signup'));
    expect(await keys(`assignee:${memberName.toUpperCase()}`)).toEqual(K('signup'));
    expect(await keys(`assignee:none project:${web.key}`)).toEqual(K('done'));
    expect(await keys(`-assignee:none`)).toEqual(K('login', 'signup'));
    expect(await keys(`reporter:${memberName}`)).toEqual(K('signup'));
    expect(await keys('reporter:me -project:' + api.key)).toEqual(K('login', 'done'));
  });
  it('type: and priority:', async () => {
    expect(await keys('type:bug')).toEqual(K('login', 'apiBug'));
    expect(await keys('type:story,task')).toEqual(K('signup', 'done', 'apiDocs'));
    expect(await keys('priority:high')).toEqual(K('apiBug'));
    expect(await keys('priority>=high')).toEqual(K('login', 'apiBug'));
    expect(await keys('priority>high')).toEqual(K('login'));
    expect(await keys('priority<low')).toEqual(K('apiDocs'));
    expect(await keys('priority<=low')).toEqual(K('done', 'apiDocs'));
  });
  it('status:, is:open, is:done', async () => {
    expect(await keys('status:"in progress"')).toEqual(K('login'));
    expect(await keys('status:Done')).toEqual(K('done'));
    expect(await keys(`is:done`)).toEqual(K('done'));
    expect(await keys(`is:open project:${web.key}`)).toEqual(K('login', 'signup'));
    // Chosen done columns replace the last column.
    const [todo] = await columnsOf(owner, web.id);
    await owner.patch(`/api/projects/${web.id}/sprints/settings`, { doneColumnIds: [todo.id] });
    expect(await keys(`is:done project:${web.key}`)).toEqual(K('signup'));
    await owner.patch(`/api/projects/${web.id}/sprints/settings`, { doneColumnIds: [] });
    expect(await keys(`is:done project:${web.key}`)).toEqual(K('done'));
  });
  it('is:unassigned and is:watching', async () => {
    expect(await keys('is:unassigned')).toEqual(K('done', 'apiBug', 'apiDocs'));
    // Creators watch their tickets: the member watches only the one they created.
    expect(await keys('is:watching', member)).toEqual(K('signup'));
    expect(await keys('is:watching')).toContain(tk.signup.key);
    expect(await keys('-is:watching', member)).toEqual(K('login', 'done'));
  });
  it('label:', async () => {
    expect(await keys('label:"needs review"')).toEqual(K('login'));
    expect(await keys('label:ui,"Needs Review"')).toEqual(K('login', 'signup'));
    expect(await keys(`-label:ui project:${web.key}`)).toEqual(K('login', 'done'));
  });
  it('sprint:', async () => {
    expect(await keys('sprint:active')).toEqual(K('login'));
    expect(await keys('sprint:"sprint beta"')).toEqual(K('signup'));
    expect(await keys(`sprint:none project:${web.key}`)).toEqual(K('done'));
    expect(await keys('sprint:active,"Sprint Beta"')).toEqual(K('login', 'signup'));
  });
  it('points:', async () => {
    expect(await keys('points>=3')).toEqual(K('login'));
    expect(await keys('points<3')).toEqual(K('signup'));
    expect(await keys('points:2')).toEqual(K('signup'));
    expect(await keys(`points:none project:${web.key}`)).toEqual(K('done'));
    expect(await keys(`-points>=3 project:${web.key}`)).toEqual(K('signup', 'done'));
  });
  it('created:, updated:, due: with days, relative days and none', async () => {
    expect(await keys('created>2026-01-13')).toEqual(K('apiDocs'));
    expect(await keys('created>=2026-01-13')).toEqual(K('apiBug', 'apiDocs'));
    expect(await keys('created:2026-01-13')).toEqual(K('apiBug'));
    expect(await keys('created<2026-01-11')).toEqual(K('login'));
    expect(await keys('created<=2026-01-11')).toEqual(K('login', 'signup'));
    expect(await keys('updated<-30d')).toEqual(K('login', 'signup', 'done', 'apiDocs'));
    expect(await keys('updated>-1d')).toEqual(K('apiBug'));
    expect(await keys('due<2026-02-01')).toEqual(K('apiDocs'));
    expect(await keys('due>=2026-03-10')).toEqual(K('login'));
    expect(await keys('due<+7d')).toEqual(K('login', 'apiDocs'));
    expect(await keys('due:none')).toEqual(K('signup', 'done', 'apiBug'));
    expect(await keys('-due<2026-02-01')).toEqual(K('login', 'signup', 'done', 'apiBug'));
  });
  it('parent:, has:attachment, has:link, has:comment', async () => {
    expect(await keys(`parent:${tk.login.key}`)).toEqual(K('done'));
    expect(await keys('has:attachment')).toEqual(K('apiBug'));
    expect(await keys('has:link')).toEqual(K('login', 'signup'));
    expect(await keys('has:comment')).toEqual(K('apiDocs'));
    expect(await keys('has:description')).toEqual(K('login', 'signup'));
  });
  it('OR, parentheses and negation', async () => {
    expect(await keys('type:bug OR priority:lowest')).toEqual(K('login', 'apiBug', 'apiDocs'));
    expect(await keys(`(type:bug OR type:task) -project:${api.key}`)).toEqual(K('login', 'done'));
    expect(await keys('-crash type:bug')).toEqual(K('apiBug'));
    expect(await keys('zebra OR "rate limiter"')).toEqual(K('apiBug', 'apiDocs'));
  });
});

describe('GET /api/search: sorting, paging, totals', () => {
  it('defaults to updated descending without words', async () => {
    const r = await search(owner, '');
    expect(r.items.map((i) => i.key)).toEqual(
      [tk.apiBug, tk.signup, tk.done, tk.login, tk.apiDocs].map((x) => x.key),
    );
    expect(r.items[0]).toMatchObject({ projectKey: api.key, key: tk.apiBug.key });
  });
  it('sort: every field, both directions', async () => {
    const order = async (q: string) => (await search(owner, q)).items.map((i) => i.key);
    expect(await order('sort:priority')).toEqual(
      K('login').concat(K('apiBug'), K('signup'), K('done'), K('apiDocs')),
    );
    expect(await order('sort:created-asc')).toEqual(
      [tk.login, tk.signup, tk.done, tk.apiBug, tk.apiDocs].map((x) => x.key),
    );
    expect(await order('sort:created')).toEqual(
      [tk.apiDocs, tk.apiBug, tk.done, tk.signup, tk.login].map((x) => x.key),
    );
    expect((await order('sort:due')).slice(0, 2)).toEqual([tk.apiDocs.key, tk.login.key]);
    expect((await order('sort:due-desc')).slice(0, 2)).toEqual([tk.login.key, tk.apiDocs.key]);
    expect((await order('sort:points')).slice(0, 2)).toEqual([tk.login.key, tk.signup.key]);
    expect((await order('sort:points-asc')).slice(0, 2)).toEqual([tk.signup.key, tk.login.key]);
    expect(await order(`sort:key project:${web.key}`)).toEqual(
      [tk.login, tk.signup, tk.done].map((x) => x.key),
    );
    expect(await order(`sort:key-desc project:${web.key}`)).toEqual(
      [tk.done, tk.signup, tk.login].map((x) => x.key),
    );
    expect((await order('sort:updated-asc'))[0]).toBe(tk.apiDocs.key);
  });
  for (const q of [
    '',
    'sort:priority',
    'sort:due',
    'sort:key-desc',
    'crash OR logo OR endpoints OR limiter',
    'sort:points-asc',
  ]) {
    it(`cursors never skip or repeat a ticket (${q || 'no query'})`, async () => {
      const all = await search(owner, q, '&limit=100');
      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const page: Awaited<ReturnType<typeof search>> = await search(
          owner,
          q,
          `&limit=2${cursor ? `&cursor=${enc(cursor)}` : ''}`,
        );
        expect(page.total).toBe(all.total);
        expect(page.items.length).toBeLessThanOrEqual(2);
        seen.push(...page.items.map((i) => i.key));
        cursor = page.nextCursor;
      } while (cursor);
      expect(seen).toEqual(all.items.map((i) => i.key));
    });
  }
  it('a bad cursor or limit is a 400', async () => {
    expect((await owner.get('/api/search?q=&cursor=nonsense')).statusCode).toBe(400);
    const first = await search(owner, '', '&limit=1');
    const res = await owner.get(`/api/search?q=sort:priority&cursor=${enc(first.nextCursor ?? '')}`);
    expect(res.statusCode).toBe(400);
    expect(res.json().details[0].path).toBe('cursor');
    expect((await owner.get('/api/search?limit=101')).statusCode).toBe(400);
    expect((await owner.get('/api/search?limit=0')).statusCode).toBe(400);
  });
});

describe('GET /api/search: errors and visibility', () => {
  const bad = async (q: string) => {
    const res = await owner.get(`/api/search?q=${enc(q)}`);
    expect(res.statusCode, res.body).toBe(400);
    return res.json() as {
      error: string;
      details: { path: string; message: string; term: string; position: number }[];
    };
  };
  it('a malformed query names the term and its position; unknown fields list the known ones', async () => {
    expect(await bad('crash colour:red')).toMatchObject({
      error: 'Validation failed',
      details: [
        {
          path: 'q',
          term: 'colour:red',
          position: 7,
          message: expect.stringMatching(/known fields: project/),
        },
      ],
    });
    expect((await bad('(crash')).details[0]).toMatchObject({ term: '(', position: 1 });
  });
  it('unknown users, labels, projects, sprints, columns and tickets are 400s saying so', async () => {
    expect((await bad('assignee:nobody_here')).details[0].message).toMatch(/Unknown user 'nobody_here'/);
    expect((await bad('label:nolabel')).details[0].message).toMatch(/Unknown label/);
    expect((await bad('project:NOPE')).details[0].message).toMatch(/Unknown project 'NOPE'/);
    expect((await bad('sprint:"Sprint Zeta"')).details[0].message).toMatch(/Unknown sprint/);
    expect((await bad('status:Limbo')).details[0].message).toMatch(/Unknown column/);
    expect((await bad('parent:NOPE-1')).details[0].message).toMatch(/Unknown ticket/);
  });
  it('non-members never see a ticket, a count or a name of a project they are not in', async () => {
    expect(await keys('secret')).toEqual([]);
    expect((await search(owner, '')).total).toBe(5);
    expect((await search(member, '')).total).toBe(3);
    const res = await member.get(`/api/search?q=${enc(`project:${api.key}`)}`);
    expect(res.json().details[0].message).toMatch(/Unknown project/);
    expect((await owner.get(`/api/search?q=${enc(`parent:${tk.secret.key}`)}`)).statusCode).toBe(400);
    // A key of an invisible ticket is only a word.
    expect((await search(owner, tk.secret.key)).total).toBe(0);
    expect(await keys('secret', outsider)).toEqual([tk.secret.key]);
    expect((await t.app.inject({ method: 'GET', url: '/api/search?q=x' })).statusCode).toBe(401);
  });
});

describe('GET /api/projects/:projectId/tickets?query=', () => {
  it('applies the query within the project, with the other filters still working', async () => {
    const list = async (qs: string) => {
      const res = await owner.get(`/api/projects/${web.id}/tickets?${qs}`);
      expect(res.statusCode, res.body).toBe(200);
      return (res.json() as { key: string }[]).map((i) => i.key).sort();
    };
    expect(await list(`query=${enc('crash')}`)).toEqual(K('login', 'signup'));
    expect(await list(`query=${enc('type:bug')}`)).toEqual(K('login'));
    expect(await list(`query=${enc('crash')}&type=Story`)).toEqual(K('signup'));
    expect(await list(`query=${enc('login')}&q=page`)).toEqual(K('login'));
    expect(await list(`query=${enc(`project:${web.key}`)}`)).toEqual(K('login', 'signup', 'done'));
    // Another project is outside this list's scope.
    expect(
      (await owner.get(`/api/projects/${web.id}/tickets?query=${enc(`project:${api.key}`)}`)).statusCode,
    ).toBe(400);
    // `me` is the caller, even with the list cached for another user.
    const mine = await member.get(`/api/projects/${web.id}/tickets?query=assignee:me`);
    expect(mine.json().map((i: { key: string }) => i.key)).toEqual(K('signup'));
    expect(await list('query=assignee:me')).toEqual(K('login'));
    const res = await owner.get(`/api/projects/${web.id}/tickets?query=${enc('colour:red')}`);
    expect(res.statusCode).toBe(400);
    expect(res.json().details[0]).toMatchObject({ path: 'query', term: 'colour:red' });
    expect((await outsider.get(`/api/projects/${web.id}/tickets?query=crash`)).statusCode).toBe(404);
  });
});

describe('GET /api/search: over every project (the scope left out)', () => {
  /** Every page of `q` for `c`, `limit` at a time, following the cursors. */
  it('words alone: exact total from the index, first page by relevance with ties across its end', async () => {
    const p = await makeProject(admin, { name: 'Zoo', key: unique('Z').slice(0, 8).toUpperCase() });
    const best = await makeTicket(admin, p.id, { title: 'Quokka quokka quokka' });
    const ties = [];
    for (let i = 0; i < 4; i++) ties.push(await makeTicket(admin, p.id, { title: 'Quokka parade' }));
    const low = await makeTicket(admin, p.id, { title: 'Zoo visit', description: 'one quokka seen' });
    // The tied tickets differ by their update time only: the first page ends inside the tie.
    for (const [i, x] of ties.entries())
      await db()
        .updateTable('tickets')
        .set({ updated_at: `2026-0${i + 1}-01T00:00:00.000Z` })
        .where('id', '=', x.id)
        .execute();
    const expected = [best, ...[...ties].reverse(), low].map((x) => x.key);
    const first = await search(admin, 'quokka', '&limit=3');
    expect(first.total).toBe(6);
    expect(first.items.map((i) => i.key)).toEqual(expected.slice(0, 3));
    expect(first.nextCursor).not.toBeNull();
    expect((await search(admin, 'quokka', '&limit=6')).nextCursor).toBeNull();
    expect((await search(admin, 'quokka', '&limit=5')).items.map((i) => i.key)).toEqual(expected.slice(0, 5));
    for (const limit of [1, 2, 3, 4])
      expect(await walk(admin, 'quokka', limit)).toEqual({ seen: expected, total: 6 });
    // The scope holds: the owner, outside this project, finds none of them.
    expect((await search(owner, 'quokka')).total).toBe(0);
  });

  it('relevance: a title holding every word comes first, then the other matches by score (decision 038, "Title first")', async () => {
    const p = await makeProject(admin, { name: 'Herd', key: unique('H').slice(0, 8).toUpperCase() });
    const titled = await makeTicket(admin, p.id, { title: 'Gnu yak' });
    // More of both words, one of them in the title: a higher score, but not every word in the title.
    const busy = await makeTicket(admin, p.id, {
      title: 'Gnu notes',
      description: 'yak gnu yak gnu yak gnu yak gnu',
    });
    const quiet = await makeTicket(admin, p.id, { title: 'Field notes', description: 'a gnu beside a yak' });
    // The same title in another project, updated last: first among equals, and outside `project:`.
    const p2 = await makeProject(admin, { name: 'Herd two', key: unique('J').slice(0, 8).toUpperCase() });
    const elsewhere = await makeTicket(admin, p2.id, { title: 'Gnu yak', type: 'Epic' });
    const inProject = [titled, busy, quiet].map((x) => x.key);
    const everywhere = [elsewhere.key, ...inProject];
    // Words alone, and with conditions that leave out one of the title's matches; the last word a prefix.
    for (const [q, expected] of [
      ['gnu yak', everywhere],
      ['gnu ya', everywhere],
      [`gnu yak project:${p.key}`, inProject],
      ['gnu yak -type:epic', inProject],
      [`gnu yak project:${p.key},${p2.key}`, everywhere],
    ] as const) {
      const first = await search(admin, q);
      expect(
        first.items.map((i) => i.key),
        q,
      ).toEqual(expected);
      expect(first.total, q).toBe(expected.length);
      // A page inside the title's tier, and pages across the tiers, follow the same order.
      for (const limit of [1, 2, 3])
        expect(await walk(admin, q, limit), q).toEqual({ seen: expected, total: expected.length });
    }
    // One word: the title's matches first, on both databases.
    const one = await search(admin, `yak project:${p.key}`);
    expect(one.items.map((i) => i.key)).toEqual(inProject);
  });

  it('words with other conditions: the exact total counted with the first page, and on later pages', async () => {
    for (const [c, q] of [
      [owner, 'crash'],
      [owner, `crash project:${web.key}`],
      [admin, 'crash -type:story'],
      [admin, 'quokka sort:created'],
    ] as const) {
      const all = await search(c, q, '&limit=100');
      expect(all.total).toBe(all.items.length);
      expect(all.total).toBeGreaterThan(1);
      const first = await search(c, q, '&limit=1');
      expect(first.total).toBe(all.total);
      expect(await walk(c, q, 1)).toEqual({ seen: all.items.map((i) => i.key), total: all.total });
    }
    expect((await search(owner, 'crash type:epic')).total).toBe(0);
  });

  it('created< and updated< alone: the exact total, counted directly or as every ticket minus the rest', async () => {
    const count = async (column: 'created_at' | 'updated_at', bound: string) =>
      Number(
        (
          await db()
            .selectFrom('tickets')
            .where(column, '<', bound)
            .select((eb) => eb.fn.countAll().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      );
    const everyTicket = await count('created_at', '9999-01-01');
    expect(everyTicket).toBeGreaterThan(5);
    for (const [q, column, bound] of [
      // Past every ticket's date: counted as all minus none.
      ['updated<2100-01-01', 'updated_at', '2100-01-01T00:00:00.000Z'],
      ['created<=2099-12-31', 'created_at', '2100-01-01T00:00:00.000Z'],
      // Before every ticket: counted directly.
      ['created<2000-01-01', 'created_at', '2000-01-01T00:00:00.000Z'],
      // Between the tickets' dates (the bench data's set times and today's): either way, exact.
      ['updated<2026-02-02', 'updated_at', '2026-02-02T00:00:00.000Z'],
      ['updated<=2026-02-02', 'updated_at', '2026-02-03T00:00:00.000Z'],
      [
        'created<-1d',
        'created_at',
        `${new Date(Date.now() - 86_400_000).toISOString().slice(0, 10)}T00:00:00.000Z`,
      ],
    ] as const) {
      const expected = await count(column, bound);
      const r = await search(admin, q, '&limit=100');
      expect(r.total, q).toBe(expected);
      if (expected <= 100) expect(r.items.length, q).toBe(expected);
      // The member's scope is not every project: counted directly, the same rule.
      const mine = await search(owner, q, '&limit=100');
      expect(mine.total, q).toBe(mine.items.length);
    }
  });

  for (const q of ['', 'sort:updated-asc', 'type:bug OR type:task', '-is:done']) {
    it(`filters sorted by update, walking the update index or sorting the matches (${q || 'no query'})`, async () => {
      const all = await search(admin, q, '&limit=100');
      expect(all.total).toBe(all.items.length);
      const order = all.items.map((i) => i.key);
      for (const limit of [1, 2, 5])
        expect(await walk(admin, q, limit)).toEqual({ seen: order, total: all.total });
      // The same order as the owner's, restricted to what the owner sees.
      const mine = new Set((await search(owner, q, '&limit=100')).items.map((i) => i.key));
      expect(order.filter((k) => mine.has(k))).toEqual([...mine]);
    });
  }
});

describe('GET /api/search: words with conditions read the search row (migration 086)', () => {
  /** Rows whose search row's copy differs from the ticket (none when the triggers keep it in step). */
  async function outOfStep(): Promise<unknown[]> {
    const differs = SEARCH_ROW_COLUMNS.map((c) => `s.${c} is distinct from t.${c}`).join(' or ');
    const dialect = t.app.services.db.dialect;
    const rows = await sql
      .raw(
        dialect === 'sqlite'
          ? `select t.id from tickets t left join ticket_search_ids s on s.ticket_id = t.id
             where s.ticket_id is null or ${differs.replace(/is distinct from/g, 'is not')}
             union all select s.ticket_id from ticket_search_ids s where s.ticket_id not in (select id from tickets)`
          : `select t.id from tickets t left join ticket_search s on s.ticket_id = t.id
             where s.ticket_id is null or ${differs}
             union all select s.ticket_id from ticket_search s where s.ticket_id not in (select id from tickets)`,
      )
      .execute(db());
    return rows.rows;
  }
  /** The keys `q` finds, and the keys the same words find through the tickets (an OR keeps them off the search row). */
  async function both(q: string, filters: string): Promise<string[]> {
    const row = await keys(`${q} ${filters}`, admin);
    const viaTickets = await keys(`(${q} OR ${q}) ${filters}`, admin);
    expect(row, `${q} ${filters}`).toEqual(viaTickets);
    return row;
  }

  it('follows creates, edits, moves, sprint and column changes, deletes and restores', async () => {
    const p = await makeProject(admin, { name: 'Narwhals', key: unique('N').slice(0, 8).toUpperCase() });
    const cols = await columnsOf(admin, p.id);
    const [todo, doing] = cols;
    const done = cols[cols.length - 1];
    const sprint = (await admin.post(`/api/projects/${p.id}/sprints`, { name: 'Narwhal Sprint' })).json();
    const a = await makeTicket(admin, p.id, { title: 'Narwhal alpha', type: 'Bug', priority: 'High' });
    const b = await makeTicket(admin, p.id, {
      title: 'Narwhal beta',
      type: 'Task',
      sprintId: sprint.id,
      storyPoints: 3,
      parentId: a.id,
    });
    const c = await makeTicket(admin, p.id, { title: 'Narwhal gamma', type: 'Story', dueDate: '2026-05-01' });
    expect(await outOfStep()).toEqual([]);
    expect(await both('narwhal', 'type:bug')).toEqual([a.key]);
    expect(await both('narwhal', `parent:${a.key}`)).toEqual([b.key]);
    expect(await both('narwhal', 'points>=3')).toEqual([b.key]);
    expect(await both('narwhal', 'due<2026-06-01')).toEqual([c.key]);

    // Edits of the copied columns.
    const patch = (x: { id: string }, body: object) =>
      admin
        .patch(`/api/projects/${p.id}/tickets/${x.id}`, body)
        .then((r) => expect(r.statusCode, r.body).toBe(200));
    await patch(c, {
      type: 'Bug',
      priority: 'Critical',
      assigneeId: admin.userId,
      storyPoints: 8,
      dueDate: null,
    });
    expect(await both('narwhal', 'type:bug')).toEqual([a.key, c.key].sort());
    expect(await both('narwhal', 'priority:critical assignee:me')).toEqual([c.key]);
    expect(await both('narwhal', 'due:none')).toEqual([a.key, b.key, c.key].sort());
    // A move to another column (is:done reads the column).
    await patch(a, { columnId: done.id });
    await patch(b, { columnId: doing.id });
    expect(await both('narwhal', 'is:done')).toEqual([a.key]);
    expect(await both('narwhal', `status:"${todo.name}"`)).toEqual([c.key]);
    // The order by an updated column follows the copy.
    const order = (await search(admin, 'narwhal sort:priority', '&limit=10')).items.map((i) => i.key);
    expect(order).toEqual([c.key, a.key, b.key]);
    // Deleting the parent sets the child's parent to null (a foreign key's action, not an update of the app).
    await db().deleteFrom('tickets').where('id', '=', a.id).execute();
    expect(await outOfStep()).toEqual([]);
    // The sprint's tickets go to the backlog when it is completed.
    expect((await admin.post(`/api/projects/${p.id}/sprints/${sprint.id}/start`, {})).statusCode).toBe(200);
    expect(await both('narwhal', 'sprint:active')).toEqual([b.key]);
    const completed = await admin.post(`/api/projects/${p.id}/sprints/${sprint.id}/complete`, {
      incompleteAction: 'moveToBacklog',
    });
    expect(completed.statusCode, completed.body).toBe(200);
    expect(await both('narwhal', 'sprint:none')).toEqual([b.key, c.key].sort());
    // Deleting a column moves its tickets.
    const del = await admin.del(`/api/projects/${p.id}/columns/${doing.id}`, { moveTicketsTo: done.id });
    expect(del.statusCode, del.body).toBe(200);
    expect(await both('narwhal', 'is:done')).toEqual([b.key]);
    // Delete to the trash and restore.
    expect((await admin.del(`/api/projects/${p.id}/tickets/${c.id}`)).statusCode).toBe(200);
    expect(await both('narwhal', 'type:bug')).toEqual([]);
    const trash = (await admin.get(`/api/projects/${p.id}/trash`)).json();
    const restored = await admin.post(`/api/projects/${p.id}/trash/${trash.items[0].id}/restore`, {});
    expect(restored.statusCode, restored.body).toBe(200);
    expect(await both('narwhal', 'type:bug priority:critical')).toEqual([c.key]);
    expect(await outOfStep()).toEqual([]);
  });

  /**
   * Rows of the derived label tables that differ from the tickets' labels: SQLite's
   * ticket_search_labels (migration 087, by search row), PostgreSQL's ticket_label_columns
   * (migration 091, with the ticket's column).
   */
  async function labelsOutOfStep(): Promise<unknown[]> {
    if (t.app.services.db.dialect === 'postgres') return labelColumnsOutOfStep(t.app.services.db);
    const rows = await sql
      .raw(
        `select * from (select l.label_id, s.id from ticket_labels l join ticket_search_ids s on s.ticket_id = l.ticket_id
           except select label_id, row_id from ticket_search_labels)
         union all
         select * from (select label_id, row_id from ticket_search_labels
           except select l.label_id, s.id from ticket_labels l join ticket_search_ids s on s.ticket_id = l.ticket_id)`,
      )
      .execute(db());
    return rows.rows;
  }

  it('the derived label tables follow tickets: put on, taken off, moves, label and ticket deletions, restores', async () => {
    const p = await makeProject(admin, { name: 'Orcas', key: unique('O').slice(0, 8).toUpperCase() });
    const cols = await columnsOf(admin, p.id);
    const done = cols[cols.length - 1];
    const [todo, doing] = cols;
    const label = async (name: string) =>
      (await admin.post(`/api/projects/${p.id}/labels`, { name, color: '#0EA5E9' })).json() as { id: string };
    const red = await label('orca-red');
    const blue = await label('orca-blue');
    const a = await makeTicket(admin, p.id, { title: 'Orca alpha', labelIds: [red.id] });
    const b = await makeTicket(admin, p.id, { title: 'Orca beta', labelIds: [red.id, blue.id] });
    const c = await makeTicket(admin, p.id, { title: 'Orca gamma' });
    const d = await makeTicket(admin, p.id, { title: 'Orca delta', labelIds: [blue.id] });
    expect(await labelsOutOfStep()).toEqual([]);
    // Without words (the count driven from the label's search rows) and with them.
    expect(await keys(`project:${p.key} label:orca-red`, admin)).toEqual([a.key, b.key].sort());
    expect(await keys(`project:${p.key} label:orca-red -is:done`, admin)).toEqual([a.key, b.key].sort());
    expect(await both('orca', 'label:orca-blue')).toEqual([b.key, d.key].sort());
    expect(await both('orca', '-label:orca-blue')).toEqual([a.key, c.key].sort());
    expect(await both('orca', 'label:orca-red OR label:orca-blue')).toEqual([a.key, b.key, d.key].sort());
    const patch = (x: { id: string }, body: object) =>
      admin
        .patch(`/api/projects/${p.id}/tickets/${x.id}`, body)
        .then((r) => expect(r.statusCode, r.body).toBe(200));
    // Taken off, put on.
    await patch(b, { labelIds: [blue.id] });
    await patch(c, { labelIds: [red.id] });
    expect(await labelsOutOfStep()).toEqual([]);
    expect(await keys(`project:${p.key} label:orca-red`, admin)).toEqual([a.key, c.key].sort());
    await patch(a, { columnId: done.id });
    expect(await keys(`project:${p.key} label:orca-red -is:done`, admin)).toEqual([c.key]);
    expect(await both('orca', 'label:orca-red is:done')).toEqual([a.key]);
    // A label with conditions on the column alone (on PostgreSQL counted from the label's rows with
    // their column, migration 091; keys() checks the total against the page).
    expect(await keys('label:orca-red', admin)).toEqual([a.key, c.key].sort());
    expect(await keys('label:orca-red -is:done', admin)).toEqual([c.key]);
    expect(await keys('label:orca-red is:done', admin)).toEqual([a.key]);
    expect(await keys(`label:orca-red (status:"${todo.name}" OR is:done)`, admin)).toEqual(
      [a.key, c.key].sort(),
    );
    expect(await keys(`label:orca-red -status:"${todo.name}" is:open`, admin)).toEqual([]);
    // A bulk move to another column, then that column deleted (its tickets moved on).
    const bulk = await admin.patch(`/api/projects/${p.id}/tickets`, {
      ticketIds: [b.id, c.id, d.id],
      updates: { columnId: doing.id },
    });
    expect(bulk.statusCode, bulk.body).toBe(200);
    expect(await labelsOutOfStep()).toEqual([]);
    expect(await keys(`label:orca-blue status:"${doing.name}"`, admin)).toEqual([b.key, d.key].sort());
    const gone = await admin.del(`/api/projects/${p.id}/columns/${doing.id}`, { moveTicketsTo: todo.id });
    expect(gone.statusCode, gone.body).toBe(200);
    expect(await labelsOutOfStep()).toEqual([]);
    expect(await keys(`label:orca-blue status:"${todo.name}" -is:done`, admin)).toEqual(
      [b.key, d.key].sort(),
    );
    // A ticket to the trash and back.
    expect((await admin.del(`/api/projects/${p.id}/tickets/${d.id}`)).statusCode).toBe(200);
    expect(await labelsOutOfStep()).toEqual([]);
    expect(await keys(`project:${p.key} label:orca-blue`, admin)).toEqual([b.key]);
    const trash = (await admin.get(`/api/projects/${p.id}/trash`)).json();
    const restored = await admin.post(`/api/projects/${p.id}/trash/${trash.items[0].id}/restore`, {});
    expect(restored.statusCode, restored.body).toBe(200);
    expect(await labelsOutOfStep()).toEqual([]);
    expect(await keys(`project:${p.key} label:orca-blue -is:done`, admin)).toEqual([b.key, d.key].sort());
    // A ticket deleted outright (its labels go by the foreign key's cascade), and a label deleted.
    await db().deleteFrom('tickets').where('id', '=', b.id).execute();
    expect(await labelsOutOfStep()).toEqual([]);
    const removed = await admin.del(`/api/projects/${p.id}/labels/${blue.id}`);
    expect(removed.statusCode, removed.body).toBeLessThan(300);
    expect(await labelsOutOfStep()).toEqual([]);
    expect(await keys(`project:${p.key} label:orca-red`, admin)).toEqual([a.key, c.key].sort());
    expect(await keys('label:orca-red -is:done', admin)).toEqual([c.key]);
  });

  it.runIf(dialect === 'postgres')(
    "fills ticket_label_columns with each labelled ticket's column when it migrates (migration 091)",
    async () => {
      const p = await makeProject(admin, { name: 'Walruses', key: unique('W').slice(0, 8).toUpperCase() });
      const cols = await columnsOf(admin, p.id);
      const tusk = (await admin.post(`/api/projects/${p.id}/labels`, { name: 'walrus-tusk' })).json();
      const made = [];
      for (let i = 0; i < 6; i++)
        made.push(
          await makeTicket(admin, p.id, {
            title: `Walrus ${i}`,
            columnId: cols[i % 3].id,
            ...(i % 2 === 0 ? { labelIds: [tusk.id] } : {}),
          }),
        );
      // Back to the schema before migration 091, the labels kept, then migrated again.
      const services = t.app.services.db;
      const k = services.kysely as never as import('kysely').Kysely<any>;
      await sql`drop table ticket_label_columns`.execute(k);
      for (const f of ['added', 'removed', 'changed', 'moved'])
        await sql.raw(`drop function docket_label_columns_${f}() cascade`).execute(k);
      // Migrations 092 to 094 (093: nothing on PostgreSQL) come after, and apply again.
      await sql`drop index ticket_search_title_idx`.execute(k);
      await undoPostgresFacets(k);
      const later = [
        '091_label_columns',
        '092_search_titles',
        '093_search_facets',
        '094_search_facets_postgres',
      ];
      await k.deleteFrom('kysely_migration').where('name', 'in', later).execute();
      expect(await migrateToLatest(services)).toEqual(later);
      expect(await labelsOutOfStep()).toEqual([]);
      expect(await keys(`label:walrus-tusk status:"${cols[2].name}"`, admin)).toEqual([made[2].key]);
      expect(await keys('label:walrus-tusk', admin)).toEqual([made[0].key, made[2].key, made[4].key].sort());
      // And the triggers are back.
      const moved = await admin.patch(`/api/projects/${p.id}/tickets/${made[0].id}`, {
        columnId: cols[2].id,
      });
      expect(moved.statusCode, moved.body).toBe(200);
      expect(await labelsOutOfStep()).toEqual([]);
      expect(await keys(`label:walrus-tusk status:"${cols[2].name}"`, admin)).toEqual(
        [made[0].key, made[2].key].sort(),
      );
    },
  );

  it('the first page and its total on the search row equal the ones through the tickets, sorted every way', async () => {
    for (const sort of [
      '',
      'sort:priority',
      'sort:due',
      'sort:points-asc',
      'sort:created',
      'sort:key',
      'sort:updated-asc',
    ]) {
      for (const filters of [
        '-type:story',
        `project:${web.key}`,
        'is:open',
        'assignee:me OR is:unassigned',
      ]) {
        const q = `crash ${filters} ${sort}`;
        const onRow = await search(owner, q, '&limit=1');
        const all = await search(owner, q, '&limit=100');
        expect(onRow.total, q).toBe(all.total);
        expect(
          onRow.items.map((i) => i.key),
          q,
        ).toEqual(all.items.slice(0, 1).map((i) => i.key));
        // The same words through the tickets (inside an OR they are not the top level's): the same
        // tickets, in the same order when the sort is not by relevance.
        const viaTickets = await search(owner, `(crash OR crash) ${filters} ${sort}`, '&limit=100');
        expect(viaTickets.total, q).toBe(all.total);
        const order = (r: typeof all) => r.items.map((i) => i.key);
        if (sort) expect(order(all), q).toEqual(order(viaTickets));
        else expect([...order(all)].sort(), q).toEqual([...order(viaTickets)].sort());
        // has:description needs the ticket's text: the tickets path, the same answer.
        const withText = await search(owner, `crash has:description ${filters} ${sort}`, '&limit=100');
        expect(
          withText.items.map((i) => i.key),
          q,
        ).toEqual(all.items.map((i) => i.key).filter((k) => withText.items.some((w) => w.key === k)));
      }
    }
  });
});

describe('the search connection (Db.search, decision 038 "Search reads mapped")', () => {
  it('reads the last commit, without waiting for a write transaction in progress', async () => {
    const ticket = await makeTicket(owner, web.id, { title: 'Zephyrine before' });
    const services = t.app.services;
    const titleOf = async () =>
      (
        await services.db.search.kysely
          .selectFrom('tickets')
          .select('title')
          .where('id', '=', ticket.id)
          .executeTakeFirstOrThrow()
      ).title;
    await services.db.kysely.transaction().execute(async (tx) => {
      await tx.updateTable('tickets').set({ title: 'Zephyrine after' }).where('id', '=', ticket.id).execute();
      // On SQLite a read through the main connection would wait for this transaction (and never
      // come back here); the search connection answers with the last commit.
      expect(await titleOf()).toBe('Zephyrine before');
    });
    expect(await titleOf()).toBe('Zephyrine after');
    expect((await search(owner, 'zephyrine after')).items.map((i) => i.key)).toEqual([ticket.key]);
  });
});
