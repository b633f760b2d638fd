import { z } from 'zod';
import { httpPriority, httpType, toolDateOrNull, toolPriority, toolType } from '../../shared/tools.js';
import type { DocketClient } from '../client.js';
import {
  CREATE,
  DELETE,
  defineTool,
  findColumn,
  findLabel,
  findMember,
  findSprint,
  getColumns,
  getLabels,
  getMembers,
  getProject,
  getSprints,
  getTicket,
  presentTicket,
  projectKeyParam,
  projectPath,
  READ,
  type SprintRaw,
  type TicketRaw,
  ToolError,
  ticketItemOut,
  ticketKeyParam,
  ticketOut,
  ticketText,
  UPDATE,
} from './common.js';
import { findTemplate, getTemplates } from './templates.js';
import { listTicketsTool } from './ticket-list.js';
import { linkItemOut, linkText, presentLink } from './ticket-parts.js';

const nullableText = z.string().nullable().optional();

/**
 * What a ticket write's schema names: the ticket as list_tickets shows it, and its id. The result
 * carries every field of get_ticket; the schema stays short (docs/mcp.md "Size of the catalogue").
 */
const ticketWriteOut = { ...ticketItemOut.shape, id: z.string() };

/** Optional ticket fields shared by create_ticket and update_ticket. */
const fieldShape = {
  description: nullableText,
  estimate: nullableText.describe('e.g. 2h, 1d'),
  startDate: toolDateOrNull.optional(),
  dueDate: toolDateOrNull.optional(),
  environment: nullableText,
  affectedVersion: nullableText,
  fixVersion: nullableText,
};

type Fields = {
  description?: string | null;
  estimate?: string | null;
  startDate?: string | null;
  dueDate?: string | null;
  environment?: string | null;
  affectedVersion?: string | null;
  fixVersion?: string | null;
};

/** Resolves the name parameters of create_ticket and update_ticket to the ids the API takes. */
async function resolveRefs(
  api: DocketClient,
  projectKey: string,
  a: {
    column?: string;
    assignee?: string | null;
    sprint?: string | null;
    labels?: string[];
    parent?: string | null;
  },
) {
  const [columns, members, sprints, labels, parent] = await Promise.all([
    a.column != null ? getColumns(api, projectKey) : null,
    a.assignee != null ? getMembers(api, projectKey) : null,
    a.sprint != null ? getSprints(api, projectKey) : null,
    a.labels?.length ? getLabels(api, projectKey) : null,
    a.parent != null ? getTicket(api, a.parent) : null,
  ]);
  const body: Record<string, unknown> = {};
  if (columns && a.column != null) body.columnId = findColumn(api, columns, a.column).id;
  if (a.assignee === null) body.assigneeId = null;
  else if (members && a.assignee != null) body.assigneeId = findMember(api, members, a.assignee).userId;
  if (a.sprint === null) body.sprintId = null;
  else if (sprints && a.sprint != null) body.sprintId = findOpenSprint(api, sprints, a.sprint).id;
  if (a.labels) body.labelIds = labels ? [...new Set(a.labels.map((n) => findLabel(api, labels, n).id))] : [];
  if (a.parent === null) body.parentId = null;
  else if (parent) body.parentId = parent.ticket.id;
  return body;
}

/**
 * A sprint a ticket can join. An exact name wins among all sprints, so "Sprint 1" never means
 * "Sprint 10"; partial names are matched among planning and active sprints. A completed sprint gets
 * an error that says so.
 */
function findOpenSprint(api: DocketClient, sprints: SprintRaw[], name: string): SprintRaw {
  const open = sprints.filter((s) => s.status !== 'completed');
  const completed = (s: SprintRaw) => {
    const others = open.length ? ` (open: ${open.map((o) => o.name).join(', ')})` : '';
    return new ToolError(`${s.name} is completed: tickets can join planning or active sprints only${others}`);
  };
  const q = name.trim().toLowerCase();
  const exact = sprints.filter((s) => s.name.toLowerCase() === q);
  if (exact.length > 0) {
    const openExact = exact.filter((s) => s.status !== 'completed');
    if (openExact.length === 0) throw completed(exact[0]);
    return findSprint(api, openExact, name);
  }
  try {
    return findSprint(api, open, name);
  } catch (err) {
    if (!(err instanceof ToolError) || !err.message.startsWith('Sprint not found')) throw err;
    let done: SprintRaw;
    try {
      done = findSprint(api, sprints, name);
    } catch {
      throw err;
    }
    throw completed(done);
  }
}

function fieldsBody(a: Fields) {
  const body: Record<string, unknown> = {};
  for (const k of Object.keys(fieldShape) as (keyof Fields)[]) {
    if (a[k] !== undefined) body[k] = a[k];
  }
  return body;
}

async function readBack(api: DocketClient, projectKey: string, key: string) {
  const { ticket } = await getTicket(api, key);
  return presentTicket(api, projectKey, ticket);
}

const plural = (n: number, noun: string) => `${n} ${noun}${n === 1 ? '' : 's'}`;

const getTicketTool = defineTool({
  name: 'get_ticket',
  description: 'Read a ticket: every field, the whole description, links.',
  input: { ticketKey: ticketKeyParam },
  aliases: { key: 'ticketKey' },
  output: {
    ...ticketOut,
    links: z.array(linkItemOut),
    commentCount: z.number(),
    attachmentCount: z.number(),
  },
  annotations: READ,
  async run({ ticketKey }, api) {
    const { projectKey, ticket } = await getTicket(api, ticketKey);
    const t = await presentTicket(api, projectKey, ticket);
    const links = (ticket.links ?? []).map(presentLink);
    const data = {
      ...t,
      links,
      commentCount: ticket.commentCount ?? 0,
      attachmentCount: ticket.attachmentCount ?? 0,
    };
    const extra = [
      `${plural(data.commentCount, 'comment')} (list_comments) · ${plural(data.attachmentCount, 'attachment')} (list_attachments)`,
    ];
    if (links.length) extra.push(`links: ${links.map(linkText).join('; ')}`);
    return { text: ticketText(t, extra), data };
  },
});

const createTicketTool = defineTool({
  name: 'create_ticket',
  description: 'Create a ticket. column, assignee, sprint, labels, template: names (partial) or ids.',
  input: {
    projectKey: projectKeyParam,
    title: z.string(),
    template: z.string().optional(),
    type: toolType.optional(),
    priority: toolPriority.optional(),
    column: z.string().optional().describe('Default: first column'),
    assignee: z.string().nullable().optional(),
    storyPoints: z.number().optional().describe('1, 2, 3, 5, 8, 13 or 21'),
    labels: z.array(z.string()).optional(),
    sprint: z.string().optional(),
    parent: z.string().optional().describe('Parent ticket key'),
    ...fieldShape,
  },
  output: ticketWriteOut,
  annotations: CREATE,
  async run(a, api) {
    await getProject(api, a.projectKey);
    const [refs, templates] = await Promise.all([
      resolveRefs(api, a.projectKey, a),
      a.template !== undefined ? getTemplates(api, a.projectKey) : null,
    ]);
    const template = templates && a.template !== undefined ? findTemplate(api, templates, a.template) : null;
    // SPEC: title is required; a template fills the other fields it presets (decision 058).
    const body = {
      title: a.title,
      ...(template ? { templateId: template.id } : {}),
      ...(a.type !== undefined ? { type: httpType(a.type) } : {}),
      ...(a.priority !== undefined ? { priority: httpPriority(a.priority) } : {}),
      ...(a.storyPoints !== undefined ? { storyPoints: a.storyPoints } : {}),
      ...fieldsBody(a),
      ...refs,
    };
    const created = await api.post<TicketRaw>(`${projectPath(a.projectKey)}/tickets`, body, {
      subject: { project: a.projectKey },
    });
    const t = await readBack(api, a.projectKey, created.key);
    return { text: `Created ${t.key}: ${t.title}`, data: t };
  },
});

const updateTicketTool = defineTool({
  name: 'update_ticket',
  description: 'Change ticket fields; null clears. labels replaces all labels; sprint null = backlog.',
  input: {
    ticketKey: ticketKeyParam,
    title: z.string().optional(),
    type: toolType.optional(),
    priority: toolPriority.optional(),
    assignee: z.string().nullable().optional(),
    storyPoints: z.number().nullable().optional(),
    labels: z.array(z.string()).optional(),
    sprint: z.string().nullable().optional(),
    parent: z.string().nullable().optional(),
    ...fieldShape,
  },
  aliases: { key: 'ticketKey' },
  output: { ...ticketWriteOut, changed: z.array(z.string()) },
  annotations: UPDATE,
  async run(a, api) {
    const { projectKey, ticketKey, path } = await getTicket(api, a.ticketKey);
    const refs = await resolveRefs(api, projectKey, a);
    const body: Record<string, unknown> = { ...fieldsBody(a), ...refs };
    if (a.title !== undefined) body.title = a.title;
    if (a.type !== undefined) body.type = httpType(a.type);
    if (a.priority !== undefined) body.priority = httpPriority(a.priority);
    if (a.storyPoints !== undefined) body.storyPoints = a.storyPoints;
    const changed = Object.keys(body).map((k) => k.replace(/Ids?$/, (s) => (s === 'Ids' ? 's' : '')));
    if (changed.length === 0) throw new ToolError('Nothing to update: give at least one field to change.');
    await api.patch(path, body, { subject: { project: projectKey, ticket: ticketKey } });
    const t = await readBack(api, projectKey, ticketKey);
    return { text: `Updated ${t.key} (${changed.join(', ')}): ${t.title}`, data: { ...t, changed } };
  },
});

const moveTicketTool = defineTool({
  name: 'move_ticket',
  description: 'Move a ticket to the end of a column, and/or into a sprint (null = backlog).',
  input: {
    ticketKey: ticketKeyParam,
    column: z.string().optional(),
    sprint: z.string().nullable().optional(),
  },
  aliases: { key: 'ticketKey' },
  output: ticketWriteOut,
  annotations: UPDATE,
  async run(a, api) {
    if (a.column === undefined && a.sprint === undefined) {
      throw new ToolError('Give column, sprint, or both.');
    }
    const { projectKey, ticketKey, path, ticket } = await getTicket(api, a.ticketKey);
    const body: Record<string, unknown> = await resolveRefs(api, projectKey, {
      column: a.column,
      sprint: a.sprint,
    });
    const moves: string[] = [];
    if (typeof body.columnId === 'string') {
      const inColumn = await api.request<TicketRaw[]>('GET', `${projectPath(projectKey)}/tickets`, {
        query: { columnId: body.columnId, limit: 1 },
        subject: { project: projectKey },
      });
      const count = inColumn.total ?? 0;
      body.order = ticket.columnId === body.columnId ? Math.max(count - 1, 0) : count;
    }
    await api.patch(path, body, { subject: { project: projectKey, ticket: ticketKey } });
    const t = await readBack(api, projectKey, ticketKey);
    if (body.columnId !== undefined) moves.push(`to ${t.column}`);
    if (body.sprintId !== undefined) moves.push(t.sprint ? `into ${t.sprint}` : 'to the backlog');
    return { text: `Moved ${t.key} ${moves.join(' and ')}`, data: t };
  },
});

const deleteTicketTool = defineTool({
  name: 'delete_ticket',
  description:
    'Delete a ticket into its trash (reporter or project admin; any member if the project allows).',
  input: { ticketKey: ticketKeyParam },
  aliases: { key: 'ticketKey' },
  output: { key: z.string(), title: z.string(), deleted: z.boolean() },
  annotations: DELETE,
  async run(a, api) {
    const { projectKey, ticketKey, path, ticket } = await getTicket(api, a.ticketKey);
    await api.del(path, undefined, { subject: { project: projectKey, ticket: ticketKey } });
    return {
      text: `Deleted ${ticket.key}: ${ticket.title}`,
      data: { key: ticket.key, title: ticket.title, deleted: true },
    };
  },
});

export const ticketTools = [
  getTicketTool,
  listTicketsTool,
  createTicketTool,
  updateTicketTool,
  moveTicketTool,
  deleteTicketTool,
];
