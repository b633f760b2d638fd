import { z } from 'zod';
import type { UserSummaryOut } from '../../shared/common.js';
import type { ColumnOut, LabelOut, MemberOut, ProjectOut } from '../../shared/projects.js';
import type { sprintOut as sprintAnswer } from '../../shared/sprints.js';
import type { TicketFullOut, TicketListItemOut } from '../../shared/tickets.js';
import { parseTicketKey as parseKey } from '../../shared/tickets.js';
import { type DocketClient, seg, ToolError } from '../client.js';

export { ToolError };

export interface Annotations {
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
}

export const READ: Annotations = { readOnlyHint: true, destructiveHint: false, idempotentHint: true };
export const CREATE: Annotations = { readOnlyHint: false, destructiveHint: false, idempotentHint: false };
export const UPDATE: Annotations = { readOnlyHint: false, destructiveHint: false, idempotentHint: true };
export const DELETE: Annotations = { readOnlyHint: false, destructiveHint: true, idempotentHint: true };

export interface ToolResult {
  /** Short readable text for the assistant. */
  text: string;
  /** The record(s), as structuredContent; matches the tool's output schema. */
  data: Record<string, unknown>;
}

export interface ToolDef<I extends z.ZodRawShape = z.ZodRawShape, O extends z.ZodRawShape = z.ZodRawShape> {
  name: string;
  description: string;
  input: I;
  output: O;
  annotations: Annotations;
  /** Deprecated parameter names still accepted, mapped to the current ones (`key` → `ticketKey`). */
  aliases?: Record<string, string>;
  run(args: z.infer<z.ZodObject<I>>, api: DocketClient): Promise<ToolResult>;
}

/** Declares a tool, keeping the argument types of its handler. */
export const defineTool = <I extends z.ZodRawShape, O extends z.ZodRawShape>(def: ToolDef<I, O>) =>
  def as unknown as ToolDef;

// --- Records as the HTTP API returns them ------------------------------------------------------

// Inferred from the API's contracts in src/shared: the tools read exactly what the routes answer.
export type ProjectRaw = ProjectOut;
export type ColumnRaw = ColumnOut;
export type UserRaw = UserSummaryOut;
export type MemberRaw = MemberOut;
export type LabelRaw = LabelOut;
export type SprintRaw = z.infer<typeof sprintAnswer>;
/** A ticket from the list, or from a full read (which adds its column, reporter, sprint, links, counts). */
export type TicketRaw = TicketListItemOut & Partial<Omit<TicketFullOut, keyof TicketListItemOut>>;

// --- Paths -------------------------------------------------------------------------------------

export const projectPath = (key: string) => `/api/projects/${seg(key)}`;

/** Splits `proj-12` into the project key and the normalised ticket key. */
export function parseTicketKey(key: string): { projectKey: string; ticketKey: string } {
  const parsed = parseKey(key);
  if (!parsed) throw new ToolError(`Invalid ticket key "${key}": use the form PROJ-12`);
  return { projectKey: parsed.projectKey, ticketKey: parsed.key };
}

export const ticketPath = (key: string) => {
  const { projectKey, ticketKey } = parseTicketKey(key);
  return { projectKey, ticketKey, path: `${projectPath(projectKey)}/tickets/${seg(ticketKey)}` };
};

// --- Name matching (DECISIONS sections 7 and 8) ------------------------------------------------

/**
 * Finds one record by id or by name, ignoring case. An id (exact) wins; then names are tried in the
 * order given (for users: the username, then the display name): an exact match wins; otherwise a
 * single partial match is accepted; several partial matches are an error that lists them, and no
 * match is an error that lists what exists (up to 20). A match other than the exact first name is
 * noted for the reply (`label "front" → frontend`).
 */
export function matchOne<T>(
  /** The tool call's client, which keeps what the name resolved to for the reply. */
  api: Pick<DocketClient, 'resolved'>,
  items: T[],
  query: string,
  names: (item: T) => (string | null | undefined)[],
  kind: string,
  label: (item: T) => string = (i) => names(i)[0] ?? '',
  idOf: (item: T) => string | undefined = (i) => (i as { id?: string }).id,
): T {
  const q = query.trim().toLowerCase();
  const byId = items.find((i) => idOf(i) === q);
  if (byId) return byId;
  const lower = (i: T) => names(i).map((n) => (n ?? '').toLowerCase());
  const found = (item: T, exactFirst: boolean) => {
    if (!exactFirst) api.resolved.push(`${kind} "${query}" → ${label(item)}`);
    return item;
  };
  const width = Math.max(0, ...items.map((i) => names(i).length));
  for (let n = 0; n < width; n++) {
    const exact = items.filter((i) => lower(i)[n] === q && q !== '');
    if (exact.length === 1) return found(exact[0], n === 0);
    if (exact.length > 1) throw ambiguous(kind, query, exact.map(label));
  }
  const partial = q === '' ? [] : items.filter((i) => lower(i).some((n) => n.includes(q)));
  if (partial.length === 1) return found(partial[0], false);
  if (partial.length > 1) throw ambiguous(kind, query, partial.map(label));
  const known = items.slice(0, 20).map(label);
  const more = items.length > 20 ? ', …' : '';
  const cap = kind[0].toUpperCase() + kind.slice(1);
  throw new ToolError(
    known.length
      ? `${cap} not found: ${query} (known: ${known.join(', ')}${more})`
      : `${cap} not found: ${query}`,
  );
}

function ambiguous(kind: string, query: string, names: string[]) {
  return new ToolError(`Several ${kind}s match "${query}": ${names.join(', ')}. Use a longer or exact name.`);
}

/** A user's label in messages and results: the username, with the display name when it differs. */
export const userLabel = (u: UserRaw) =>
  u.name && u.name !== u.username ? `${u.username} (${u.name})` : u.username;

// --- Look-ups through the API ------------------------------------------------------------------

export const getProject = (api: DocketClient, key: string) =>
  api.get<ProjectRaw>(projectPath(key), { subject: { project: key } });
export const getColumns = (api: DocketClient, key: string) =>
  api.get<ColumnRaw[]>(`${projectPath(key)}/columns`, { subject: { project: key } });
export const getMembers = (api: DocketClient, key: string) =>
  api.get<MemberRaw[]>(`${projectPath(key)}/members`, { subject: { project: key } });
export const getLabels = (api: DocketClient, key: string) =>
  api.get<LabelRaw[]>(`${projectPath(key)}/labels`, { subject: { project: key } });
export const getSprints = (api: DocketClient, key: string, status?: string) =>
  api.get<SprintRaw[]>(`${projectPath(key)}/sprints`, { subject: { project: key }, query: { status } });

export const findColumn = (api: DocketClient, cols: ColumnRaw[], name: string) =>
  matchOne(api, cols, name, (c) => [c.name], 'column');
export const findLabel = (api: DocketClient, labels: LabelRaw[], name: string) =>
  matchOne(api, labels, name, (l) => [l.name], 'label');
export const findSprint = (api: DocketClient, sprints: SprintRaw[], name: string) =>
  matchOne(api, sprints, name, (s) => [s.name], 'sprint');
export const findMember = (api: DocketClient, members: MemberRaw[], name: string) =>
  matchOne(
    api,
    members,
    name,
    (m) => [m.user.username, m.user.name],
    'member',
    (m) => userLabel(m.user),
    (m) => m.userId,
  );

/** Any active user by id, username or display name (for add_member). */
export async function findUser(api: DocketClient, name: string): Promise<UserRaw> {
  const q = name.trim().toLowerCase();
  const users = await api.get<UserRaw[]>('/api/users', { query: { search: name.trim(), limit: 200 } });
  if (!users.some((u) => u.id === q) && /^[0-9a-f-]{16,64}$/.test(q)) {
    // Looks like an id: the API's search matches names only, so the list is read for it.
    for (let offset = 0; ; offset += 200) {
      const page = await api.get<UserRaw[]>('/api/users', { query: { limit: 200, offset } });
      const hit = page.find((u) => u.id === q);
      if (hit) return hit;
      if (page.length < 200) break;
    }
  }
  return matchOne(api, users, name, (u) => [u.username, u.name], 'user', userLabel);
}

export async function getTicket(api: DocketClient, key: string) {
  const t = ticketPath(key);
  const ticket = await api.get<TicketRaw>(t.path, {
    subject: { project: t.projectKey, ticket: t.ticketKey },
  });
  return { ...t, ticket };
}

// --- Presentation in the tool vocabulary -------------------------------------------------------

export const lower = (s: string | null | undefined) => (s ? s.toLowerCase() : s) ?? null;
export const dateOnly = (s: string | null | undefined) => (s ? s.slice(0, 10) : null);

export const projectOut = {
  key: z.string(),
  name: z.string(),
  description: z.string().nullable(),
  color: z.string(),
  id: z.string(),
};
export const presentProject = (p: ProjectRaw) => ({
  key: p.key,
  name: p.name,
  description: p.description ?? null,
  color: p.color,
  id: p.id,
});

export const columnOut = z.object({ position: z.number(), name: z.string(), id: z.string() });
export const presentColumn = (c: ColumnRaw) => ({ position: c.order + 1, name: c.name, id: c.id });

export const memberOut = z.object({
  username: z.string(),
  name: z.string().nullable(),
  role: z.string(),
  id: z.string(),
});
export const presentMember = (m: MemberRaw) => ({
  username: m.user.username,
  name: m.user.name,
  role: m.role,
  id: m.userId,
});

export const labelOut = z.object({ name: z.string(), color: z.string(), id: z.string() });
export const presentLabel = (l: LabelRaw) => ({ name: l.name, color: l.color, id: l.id });

export const sprintOut = {
  name: z.string(),
  status: z.string(),
  goal: z.string().nullable(),
  startDate: z.string().nullable(),
  endDate: z.string().nullable(),
  budget: z.number().nullable(),
  id: z.string(),
};
export const presentSprint = (s: SprintRaw) => ({
  name: s.name,
  status: s.status,
  goal: s.goal ?? null,
  startDate: dateOnly(s.startDate),
  endDate: dateOnly(s.endDate),
  budget: s.budget ?? null,
  id: s.id,
});
export const sprintLine = (s: ReturnType<typeof presentSprint>) =>
  `${s.name} [${s.status}]${s.startDate || s.endDate ? ` ${s.startDate ?? '?'} to ${s.endDate ?? '?'}` : ''}${s.goal ? `: ${s.goal}` : ''}`;

/** A ticket in a list. `assignee` is the username (it can be passed back); `assigneeName` the display name. */
export const ticketItemOut = z.object({
  key: z.string(),
  title: z.string(),
  type: z.string(),
  priority: z.string(),
  column: z.string().nullable(),
  assignee: z.string().nullable(),
  assigneeName: z.string().nullable(),
  sprint: z.string().nullable(),
  storyPoints: z.number().nullable(),
  updatedAt: z.string(),
});
export type TicketItem = z.infer<typeof ticketItemOut>;

/** A person of a ticket as username and display name, from the project's members (ids map to usernames). */
export function personOf(
  person: { id: string | null; name: string } | null | undefined,
  members: MemberRaw[],
): { username: string | null; name: string | null } {
  if (!person) return { username: null, name: null };
  const m = person.id ? members.find((x) => x.userId === person.id) : undefined;
  // A former member is shown by the display name the API gives (no username to look up).
  return m
    ? { username: m.user.username, name: m.user.name ?? m.user.username }
    : { username: null, name: person.name };
}

/** `olivia (Olivia Owner)`, or the display name alone when the username is not known. */
export const personText = (p: { username: string | null; name: string | null }) =>
  p.username
    ? p.name && p.name !== p.username
      ? `${p.username} (${p.name})`
      : p.username
    : (p.name ?? 'none');

/** A ticket of the API's list in the tool vocabulary. */
export function presentItem(
  t: TicketRaw,
  columns: { id: string; name: string }[],
  members: MemberRaw[],
  sprints: { id: string; name: string }[],
): TicketItem {
  const who = t.assigneeId ? personOf(t.assignee ?? { id: t.assigneeId, name: '' }, members) : null;
  return {
    key: t.key,
    title: t.title,
    type: lower(t.type) ?? 'task',
    priority: lower(t.priority) ?? 'medium',
    column: t.column?.name ?? columns.find((c) => c.id === t.columnId)?.name ?? null,
    assignee: who ? (who.username ?? who.name) : null,
    assigneeName: who?.name ?? null,
    sprint: t.sprint?.name ?? sprints.find((s) => s.id === t.sprintId)?.name ?? null,
    storyPoints: t.storyPoints ?? null,
    updatedAt: t.updatedAt,
  };
}

/** A full ticket. */
export const ticketOut = {
  ...ticketItemOut.shape,
  labels: z.array(z.string()),
  parent: z.string().nullable(),
  description: z.string().nullable(),
  estimate: z.string().nullable(),
  startDate: z.string().nullable(),
  dueDate: z.string().nullable(),
  environment: z.string().nullable(),
  affectedVersion: z.string().nullable(),
  fixVersion: z.string().nullable(),
  reporter: z.string().nullable(),
  reporterName: z.string().nullable(),
  id: z.string(),
  createdAt: z.string(),
};

export const ticketLine = (t: TicketItem) =>
  `${t.key} ${t.title} [${t.type}, ${t.priority}] ${t.column ?? ''}${
    t.assignee ? ` · ${personText({ username: t.assignee, name: t.assigneeName })}` : ''
  }${t.sprint ? ` · ${t.sprint}` : ''}${t.storyPoints != null ? ` · ${t.storyPoints} pts` : ''}`;

/** A full ticket in the tool vocabulary: names instead of ids, lower-case type and priority. */
export async function presentTicket(api: DocketClient, projectKey: string, t: TicketRaw) {
  const [members, parent] = await Promise.all([
    getMembers(api, projectKey),
    t.parentId ? api.get<TicketRaw>(`${projectPath(projectKey)}/tickets/${seg(t.parentId)}`) : null,
  ]);
  const who = personOf(t.assignee, members);
  const reporter = personOf(t.reporter, members);
  return {
    key: t.key,
    title: t.title,
    type: lower(t.type) ?? 'task',
    priority: lower(t.priority) ?? 'medium',
    column: t.column?.name ?? null,
    assignee: who.username ?? who.name,
    assigneeName: who.name,
    sprint: t.sprint?.name ?? null,
    storyPoints: t.storyPoints ?? null,
    updatedAt: t.updatedAt,
    labels: (t.labels ?? []).map((l) => l.name),
    parent: parent?.key ?? null,
    description: t.description ?? null,
    estimate: t.estimate ?? null,
    startDate: t.startDate ?? null,
    dueDate: t.dueDate ?? null,
    environment: t.environment ?? null,
    affectedVersion: t.affectedVersion ?? null,
    fixVersion: t.fixVersion ?? null,
    reporter: reporter.username ?? reporter.name,
    reporterName: reporter.name,
    id: t.id,
    createdAt: t.createdAt,
  };
}
export type TicketOut = Awaited<ReturnType<typeof presentTicket>>;

/** A ticket as text: every field that has a value, then the whole description (Markdown). */
export function ticketText(t: TicketOut, extra: string[] = []) {
  const facts = [
    `type ${t.type}`,
    `priority ${t.priority}`,
    t.column && `column ${t.column}`,
    `assignee ${t.assignee ? personText({ username: t.assignee, name: t.assigneeName }) : 'none'}`,
    `reporter ${t.reporter ? personText({ username: t.reporter, name: t.reporterName }) : 'none'}`,
    `sprint ${t.sprint ?? 'backlog'}`,
    t.storyPoints != null && `${t.storyPoints} points`,
    t.estimate && `estimate ${t.estimate}`,
    t.labels.length > 0 && `labels ${t.labels.join(', ')}`,
    t.parent && `parent ${t.parent}`,
    t.startDate && `start ${t.startDate}`,
    t.dueDate && `due ${t.dueDate}`,
    t.environment && `environment ${t.environment}`,
    t.affectedVersion && `affected version ${t.affectedVersion}`,
    t.fixVersion && `fix version ${t.fixVersion}`,
    `created ${t.createdAt}`,
    `updated ${t.updatedAt}`,
  ].filter(Boolean);
  const desc = t.description
    ? `\n\nDescription (Markdown, ${t.description.length} characters):\n${t.description}`
    : '';
  return [`${t.key}: ${t.title}`, facts.join(' · '), ...extra].join('\n') + desc;
}

/** `12 of 57 tickets (cut at the limit of 12)`. */
export function countText(shown: number, total: number, noun: string) {
  if (total === 0) return `No ${noun}.`;
  const n = total === 1 ? noun.replace(/s$/, '') : noun;
  return shown < total ? `${shown} of ${total} ${n} (list cut; raise limit for more):` : `${total} ${n}:`;
}

// --- Shared parameters -------------------------------------------------------------------------

/** Key parameters: the names say what they are (the server's instructions give the key forms). */
export const projectKeyParam = z.string();
export const ticketKeyParam = z.string();
export const confirmParam = z.boolean().describe('Must be true');
