/**
 * The JSON importers: GitHub issues (`gh issue list --json …` or the REST API's issue objects, with
 * their comments) and Trello's board export. Both are read with stream-json, one array item at a time.
 */
import { type Duplex, Readable } from 'node:stream';
import pick from 'stream-json/filters/pick.js';
import streamArray from 'stream-json/streamers/stream-array.js';
import {
  clean,
  decodedText,
  emptyRecord,
  parseDay,
  parseTimestamp,
  type ReadContext,
  type Reader,
} from './source.js';

type Json = Record<string, unknown>;
const obj = (v: unknown): Json | null =>
  v && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : null;
const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const str = (v: unknown): string | null =>
  typeof v === 'string' ? v : typeof v === 'number' ? String(v) : null;

/**
 * The items of one array in the file: the top-level array, or the array under `key` of the
 * top-level object. A file that is not JSON ends with a problem at the item it reached.
 */
async function* jsonItems(
  rc: ReadContext,
  key: string | null,
  what: string,
): AsyncGenerator<{ row: number; value: unknown }> {
  const source = Readable.from(decodedText(rc));
  const stages: Duplex[] = key
    ? [pick.withParserAsStream({ filter: key }), streamArray.asStream()]
    : [streamArray.withParserAsStream()];
  let tail: NodeJS.ReadableStream = source;
  for (const s of stages) {
    tail.on('error', (err: Error) => s.destroy(err));
    tail = tail.pipe(s);
  }
  let row = 0;
  try {
    for await (const item of tail as AsyncIterable<{ key: number; value: unknown }>) {
      row = item.key + 1;
      yield { row, value: item.value };
    }
  } catch (err) {
    const e = err as { syscall?: string; message?: string };
    if (e.syscall) throw err;
    rc.problem({
      row: row + 1,
      message: `Unreadable JSON ${what} from here on: ${e.message ?? String(err)}`,
    });
  } finally {
    source.destroy();
    for (const s of stages) s.destroy();
  }
}

// --- GitHub ----------------------------------------------------------------------------------

/** A person as GitHub writes one: `{login}` (gh and REST alike). */
const login = (v: unknown) => clean(obj(v)?.login);

export const readGithubJson: Reader = async function* (rc) {
  for await (const { row, value } of jsonItems(rc, null, 'issues')) {
    const issue = obj(value);
    const number = str(issue?.number);
    const title = clean(issue?.title);
    if (!issue || !number || !title) {
      rc.problem({ row, message: !issue ? 'Not an issue object' : !number ? 'No number' : 'No title' });
      continue;
    }
    if (issue.pull_request) {
      rc.problem({ row, message: `#${number} is a pull request, not an issue: left out` });
      continue;
    }
    const r = emptyRecord(row, number, title);
    r.key = `#${number}`;
    r.url = clean(issue.url) ?? clean(issue.html_url);
    // REST's `url` is the API address; the page is html_url.
    if (r.url?.startsWith('https://api.github.com/') && clean(issue.html_url)) r.url = clean(issue.html_url);
    r.description = typeof issue.body === 'string' ? issue.body : null;
    r.status = clean(issue.state)?.toLowerCase() ?? null;
    r.type = clean(obj(issue.type)?.name) ?? clean(issue.type);
    r.labels = arr(issue.labels)
      .map((l) => clean(typeof l === 'string' ? l : obj(l)?.name))
      .filter((l): l is string => l !== null);
    r.assignee = login(arr(issue.assignees)[0]) ?? login(issue.assignee);
    r.reporter = login(issue.author) ?? login(issue.user);
    r.sprint = clean(obj(issue.milestone)?.title);
    r.dueDate = parseDay(str(obj(issue.milestone)?.dueOn) ?? str(obj(issue.milestone)?.due_on));
    r.createdAt = parseTimestamp(str(issue.createdAt) ?? str(issue.created_at));
    r.updatedAt = parseTimestamp(str(issue.updatedAt) ?? str(issue.updated_at));
    // A sub-issue names its parent (REST `parent_issue_url` …/issues/<n>, or gh's `parent: {number}`).
    r.parent =
      str(obj(issue.parent)?.number) ??
      /\/issues\/(\d+)$/.exec(str(issue.parent_issue_url) ?? '')?.[1] ??
      null;
    r.comments = arr(issue.comments)
      .map(obj)
      .filter((c): c is Json => c !== null && typeof c.body === 'string')
      .map((c) => ({
        author: login(c.author) ?? login(c.user),
        createdAt: parseTimestamp(str(c.createdAt) ?? str(c.created_at)),
        body: c.body as string,
      }));
    yield r;
  }
};

// --- Trello ----------------------------------------------------------------------------------

/** A Trello id is a MongoDB ObjectId: its first 8 hex digits are the creation time in seconds. */
const objectIdTime = (id: string) =>
  /^[0-9a-f]{24}$/.test(id) ? new Date(Number.parseInt(id.slice(0, 8), 16) * 1000).toISOString() : null;

/**
 * A Trello board export. The board's lists, labels, members, checklists and comment actions are read
 * first (each its own pass over the file, kept in memory: they are small beside the cards), then the
 * cards are streamed. A list is a status, a checklist item a subtask of its card (done when checked),
 * a `commentCard` action a comment. Trello's export holds the board's latest 1,000 actions only.
 */
export const readTrelloJson: Reader = async function* (rc) {
  const lists = new Map<string, string>();
  const labels = new Map<string, string>();
  const members = new Map<string, string>();
  const checklists = new Map<string, { id: string; name: string; done: boolean }[]>();
  const comments = new Map<string, { author: string | null; createdAt: string | null; body: string }[]>();
  const created = new Map<string, string>();
  const quiet: ReadContext = { ...rc, onBytes: undefined };
  for await (const { value } of jsonItems(quiet, 'lists', 'lists')) {
    const l = obj(value);
    if (l && str(l.id)) lists.set(str(l.id) as string, clean(l.name) ?? 'Untitled list');
  }
  for await (const { value } of jsonItems(quiet, 'labels', 'labels')) {
    const l = obj(value);
    const name = clean(l?.name) ?? clean(l?.color);
    if (l && str(l.id) && name) labels.set(str(l.id) as string, name);
  }
  for await (const { value } of jsonItems(quiet, 'members', 'members')) {
    const m = obj(value);
    if (m && str(m.id)) members.set(str(m.id) as string, clean(m.username) ?? clean(m.fullName) ?? '');
  }
  for await (const { value } of jsonItems(quiet, 'checklists', 'checklists')) {
    const c = obj(value);
    const card = str(c?.idCard);
    if (!c || !card) continue;
    const items = arr(c.checkItems)
      .map(obj)
      .filter((i): i is Json => i !== null && !!str(i.id) && !!clean(i.name))
      .sort((a, b) => Number(a.pos ?? 0) - Number(b.pos ?? 0))
      .map((i) => ({ id: str(i.id) as string, name: clean(i.name) as string, done: i.state === 'complete' }));
    checklists.set(card, [...(checklists.get(card) ?? []), ...items]);
  }
  for await (const { value } of jsonItems(quiet, 'actions', 'actions')) {
    const a = obj(value);
    const data = obj(a?.data);
    const card = str(obj(data?.card)?.id);
    if (!a || !card) continue;
    if (a.type === 'commentCard' && typeof data?.text === 'string') {
      const creator = obj(a.memberCreator);
      const author =
        clean(creator?.username) ?? members.get(str(a.idMemberCreator) ?? '') ?? clean(creator?.fullName);
      const list = comments.get(card) ?? [];
      list.push({ author: author ?? null, createdAt: parseTimestamp(str(a.date)), body: data.text });
      comments.set(card, list);
    } else if (a.type === 'createCard' && str(a.date)) created.set(card, str(a.date) as string);
  }
  for await (const { row, value } of jsonItems(rc, 'cards', 'cards')) {
    const card = obj(value);
    const id = str(card?.id);
    const title = clean(card?.name);
    if (!card || !id || !title) {
      rc.problem({ row, message: !card ? 'Not a card object' : !id ? 'No id' : 'No name' });
      continue;
    }
    const r = emptyRecord(row, id, title);
    r.key = str(card.idShort) ? `#${str(card.idShort)}` : null;
    r.url = clean(card.url) ?? clean(card.shortUrl);
    r.description = clean(card.desc);
    r.status = lists.get(str(card.idList) ?? '') ?? null;
    r.labels = arr(card.idLabels)
      .map((l) => labels.get(str(l) ?? ''))
      .filter((l): l is string => !!l);
    if (r.labels.length === 0)
      r.labels = arr(card.labels)
        .map((l) => clean(obj(l)?.name))
        .filter((l): l is string => !!l);
    r.assignee = members.get(str(arr(card.idMembers)[0]) ?? '') || null;
    r.dueDate = parseDay(str(card.due));
    r.startDate = parseDay(str(card.start));
    r.createdAt = parseTimestamp(created.get(id) ?? objectIdTime(id));
    r.updatedAt = parseTimestamp(str(card.dateLastActivity));
    r.attachments = arr(card.attachments).flatMap((a) => {
      const url = clean(obj(a)?.url);
      return url && /^https?:\/\//i.test(url) ? [{ name: clean(obj(a)?.name) ?? url, url }] : [];
    });
    r.comments = (comments.get(id) ?? []).sort((a, b) =>
      (a.createdAt ?? '').localeCompare(b.createdAt ?? ''),
    );
    yield r;
    for (const item of checklists.get(id) ?? []) {
      const sub = emptyRecord(row, `checkitem:${item.id}`, item.name);
      sub.type = 'Subtask';
      sub.parent = id;
      sub.status = item.done ? 'Done' : r.status;
      sub.createdAt = objectIdTime(item.id);
      yield sub;
    }
  }
};
