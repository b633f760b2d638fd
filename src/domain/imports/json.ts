/**
 * The JSON importers: GitHub issues (`gh issue list --json …` or the REST API's issue objects, with
 * their comments) and Trello's board export. Both are read with the strict scanner of json-text.ts,
 * one array item at a time; a file that is not well-formed JSON, or that ends before it closes, is
 * malformed, and one without the parts its format has is of another format.
 */
import { type JsonEvent, JsonSyntaxError, jsonEvents } from './json-text.js';
import { wrongFormat } from './refusal.js';
import {
  clean,
  decodedText,
  emptyRecord,
  parseDay,
  parseTimestamp,
  type ReadContext,
  type Reader,
  type SourceComment,
  type SourcePerson,
  sourcePerson,
} from './source.js';

type Json = Record<string, unknown>;
const obj = (v: unknown): Json | null =>
  v && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : null;
const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const str = (v: unknown): string | null =>
  typeof v === 'string' ? v : typeof v === 'number' ? String(v) : null;

/**
 * The scanner's events over the file (json-text.ts): the items under the keys `want` names, every
 * other value checked when `checkAll`. Malformed JSON is reported to `rc.malformed` and ends the
 * events; `ok()` then answers false.
 */
function jsonItems(rc: ReadContext, want: (key: string | null) => boolean, checkAll: boolean) {
  let failed = false;
  async function* events(): AsyncGenerator<JsonEvent> {
    try {
      yield* jsonEvents(decodedText(rc), { want, checkAll });
    } catch (err) {
      if (!(err instanceof JsonSyntaxError)) throw err;
      failed = true;
      rc.malformed({ ...err.place, message: err.message });
    }
  }
  return { events: events(), ok: () => !failed };
}

// --- GitHub ----------------------------------------------------------------------------------

/** A person as GitHub writes one: `{login, name?}` (gh and REST alike), shown by the login. */
const login = (v: unknown) =>
  clean(obj(v)?.login) ? sourcePerson(clean(obj(v)?.login), clean(obj(v)?.name)) : null;

export const readGithubJson: Reader = async function* (rc) {
  for await (const e of jsonItems(rc, (key) => key === null, true).events) {
    if (e.type === 'top' && e.shape !== 'array')
      throw wrongFormat('github-json', 'json', 'A GitHub issues export is a JSON list of issues');
    if (e.type !== 'item') continue;
    const { value } = e;
    const row = e.index + 1;
    const line = e.place.line;
    const issue = obj(value);
    const number = str(issue?.number);
    const title = clean(issue?.title);
    if (!issue || !number || !title) {
      rc.problem({ row, line, message: !issue ? 'Not an issue object' : !number ? 'No number' : 'No title' });
      continue;
    }
    if (issue.pull_request) {
      rc.problem({ row, line, message: `#${number} is a pull request, not an issue: left out` });
      continue;
    }
    const r = emptyRecord(row, number, title);
    r.line = line;
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

/** A Trello member (`{fullName, username}`): shown by the full name, matched by either. */
const trelloPerson = (m: Json | null): SourcePerson | null =>
  sourcePerson(clean(m?.fullName), clean(m?.username));

/** What a board holds besides its cards, read in the first pass. */
interface Board {
  parts: Set<string>;
  lists: Map<string, { name: string; closed: boolean }>;
  labels: Map<string, string>;
  members: Map<string, SourcePerson>;
  checklists: Map<string, { id: string; name: string; done: boolean }[]>;
  comments: Map<string, SourceComment[]>;
  created: Map<string, string>;
}

const BOARD_PARTS = new Set(['lists', 'labels', 'members', 'checklists', 'actions']);

/**
 * The first pass over a board: its lists, labels, members, checklists and comment actions (kept in
 * memory: small beside the cards), every other part checked. Null when the file is malformed.
 */
async function readBoard(rc: ReadContext): Promise<Board | null> {
  const b: Board = {
    parts: new Set(),
    lists: new Map(),
    labels: new Map(),
    members: new Map(),
    checklists: new Map(),
    comments: new Map(),
    created: new Map(),
  };
  const actions: Json[] = [];
  const scan = jsonItems({ ...rc, onBytes: undefined }, (key) => key !== null && BOARD_PARTS.has(key), true);
  for await (const e of scan.events) {
    if (e.type === 'member') b.parts.add(e.key);
    if (e.type !== 'item') continue;
    const v = obj(e.value);
    const id = str(v?.id);
    if (e.key === 'lists' && v && id)
      b.lists.set(id, { name: clean(v.name) ?? 'Untitled list', closed: v.closed === true });
    else if (e.key === 'labels' && v && id) {
      const name = clean(v.name) ?? clean(v.color);
      if (name) b.labels.set(id, name);
    } else if (e.key === 'members' && v && id) {
      const who = trelloPerson(v);
      if (who) b.members.set(id, who);
    } else if (e.key === 'checklists' && v) addChecklist(b, v);
    else if (e.key === 'actions' && v) actions.push(v);
  }
  if (!scan.ok()) return null;
  if (!b.parts.has('cards') || !b.parts.has('lists'))
    throw wrongFormat(
      'trello-json',
      'json',
      'A Trello board export has "cards" and "lists" parts; this file has not',
    );
  // Actions come before members in the file: their authors are read once both are known.
  for (const a of actions) addAction(b, a);
  return b;
}

function addChecklist(b: Board, c: Json) {
  const card = str(c.idCard);
  if (!card) return;
  const items = arr(c.checkItems)
    .map(obj)
    .filter((i): i is Json => i !== null && !!str(i.id) && !!clean(i.name))
    .sort((x, y) => Number(x.pos ?? 0) - Number(y.pos ?? 0))
    .map((i) => ({ id: str(i.id) as string, name: clean(i.name) as string, done: i.state === 'complete' }));
  b.checklists.set(card, [...(b.checklists.get(card) ?? []), ...items]);
}

function addAction(b: Board, a: Json) {
  const data = obj(a.data);
  const card = str(obj(data?.card)?.id);
  if (!card) return;
  if (a.type === 'commentCard' && typeof data?.text === 'string') {
    const author = trelloPerson(obj(a.memberCreator)) ?? b.members.get(str(a.idMemberCreator) ?? '') ?? null;
    const list = b.comments.get(card) ?? [];
    list.push({ author, createdAt: parseTimestamp(str(a.date)), body: data.text });
    b.comments.set(card, list);
  } else if (a.type === 'createCard' && str(a.date)) b.created.set(card, str(a.date) as string);
}

/**
 * A Trello board export, read in two passes over the file: the board's parts besides its cards
 * (readBoard), then the cards, streamed. A list is a status, a checklist item a subtask of its card
 * (done when checked), a `commentCard` action a comment. An archived card, and every card of an
 * archived list, is archived (mapping.archived). Trello's export holds the board's latest 1,000
 * actions only.
 */
export const readTrelloJson: Reader = async function* (rc) {
  const b = await readBoard(rc);
  if (!b) return;
  for await (const e of jsonItems(rc, (key) => key === 'cards', false).events) {
    if (e.type !== 'item') continue;
    const row = e.index + 1;
    const line = e.place.line;
    const card = obj(e.value);
    const id = str(card?.id);
    const title = clean(card?.name);
    if (!card || !id || !title) {
      rc.problem({ row, line, message: !card ? 'Not a card object' : !id ? 'No id' : 'No name' });
      continue;
    }
    const r = emptyRecord(row, id, title);
    r.line = line;
    r.key = str(card.idShort) ? `#${str(card.idShort)}` : null;
    r.url = clean(card.url) ?? clean(card.shortUrl);
    r.description = clean(card.desc);
    const list = b.lists.get(str(card.idList) ?? '');
    r.status = list?.name ?? null;
    r.archived = card.closed === true || list?.closed === true;
    r.archivedList = list?.closed ? list.name : null;
    r.labels = arr(card.idLabels)
      .map((l) => b.labels.get(str(l) ?? ''))
      .filter((l): l is string => !!l);
    if (r.labels.length === 0)
      r.labels = arr(card.labels)
        .map((l) => clean(obj(l)?.name))
        .filter((l): l is string => !!l);
    r.assignee = b.members.get(str(arr(card.idMembers)[0]) ?? '') ?? null;
    r.dueDate = parseDay(str(card.due));
    r.startDate = parseDay(str(card.start));
    r.createdAt = parseTimestamp(b.created.get(id) ?? objectIdTime(id));
    r.updatedAt = parseTimestamp(str(card.dateLastActivity));
    r.attachments = arr(card.attachments).flatMap((a) => {
      const url = clean(obj(a)?.url);
      return url && /^https?:\/\//i.test(url) ? [{ name: clean(obj(a)?.name) ?? url, url }] : [];
    });
    r.comments = (b.comments.get(id) ?? []).sort((x, y) =>
      (x.createdAt ?? '').localeCompare(y.createdAt ?? ''),
    );
    yield r;
    for (const item of b.checklists.get(id) ?? []) {
      const sub = emptyRecord(row, `checkitem:${item.id}`, item.name);
      sub.line = line;
      sub.type = 'Subtask';
      sub.parent = id;
      sub.status = item.done ? 'Done' : r.status;
      sub.archived = r.archived;
      sub.archivedList = r.archivedList;
      sub.createdAt = objectIdTime(item.id);
      yield sub;
    }
  }
};
