import { z } from 'zod';
import { LIMITS } from '../../shared/limits.js';
import {
  httpPriority,
  httpType,
  TOOL_LIMITS,
  toolLimit,
  toolPriority,
  toolType,
} from '../../shared/tools.js';
import type { DocketClient } from '../client.js';
import {
  defineTool,
  findColumn,
  findLabel,
  findMember,
  findSprint,
  getColumns,
  getLabels,
  getMembers,
  getSprints,
  type MemberRaw,
  type ProjectRaw,
  presentItem,
  projectKeyParam,
  projectPath,
  READ,
  type SprintRaw,
  type TicketItem,
  type TicketRaw,
  ToolError,
  ticketItemOut,
  ticketLine,
} from './common.js';
import { cursorParam, pageInfo, pageShape, pageStart, pageText } from './paging.js';

/**
 * list_tickets (issue 20): filters by names or ids (column, assignee, sprint, label), a stated sort,
 * and paging by cursor. One project in board order is paged by the API itself; any other order, and
 * every list across projects, is read whole from each project and sorted here, so no project's
 * tickets come first just because of its name.
 */

export const TICKET_SORTS = ['board', 'updated', 'created'] as const;
type Sort = (typeof TICKET_SORTS)[number];
const SORT_WORDS: Record<Sort, string> = {
  board: 'in board order (column, then position)',
  updated: 'most recently updated first',
  created: 'newest first',
};

type Query = Record<string, string | number | undefined>;

/** Every ticket of a project that matches the query, read in pages of the API's largest limit. */
async function readAll(api: DocketClient, projectKey: string, query: Query): Promise<TicketRaw[]> {
  const out: TicketRaw[] = [];
  for (;;) {
    const page = await api.request<TicketRaw[]>('GET', `${projectPath(projectKey)}/tickets`, {
      query: { ...query, limit: LIMITS.listLimitMax, offset: out.length },
      subject: { project: projectKey },
    });
    out.push(...page.data);
    if (page.data.length === 0 || out.length >= (page.total ?? out.length)) return out;
  }
}

interface Args {
  projectKey?: string;
  column?: string;
  priority?: z.infer<typeof toolPriority>;
  type?: z.infer<typeof toolType>;
  assignee?: string;
  sprint?: string;
  label?: string;
  search?: string;
  sort?: Sort;
  limit: number;
  cursor?: string;
}

interface ProjectView {
  projectKey: string;
  query: Query;
  columns: { id: string; name: string }[];
  members: MemberRaw[];
  sprints: SprintRaw[];
}

/** The API query of one project: names resolved to ids there; null when the project lacks a name. */
async function projectView(api: DocketClient, projectKey: string, a: Args, across: boolean) {
  const [columns, members, sprints, labels] = await Promise.all([
    getColumns(api, projectKey),
    getMembers(api, projectKey),
    getSprints(api, projectKey),
    a.label ? getLabels(api, projectKey) : null,
  ]);
  const query: Query = {
    type: a.type && httpType(a.type),
    priority: a.priority && httpPriority(a.priority),
    q: a.search?.trim() || undefined,
  };
  try {
    if (a.column) query.columnId = findColumn(api, columns, a.column).id;
    if (a.assignee)
      query.assigneeId =
        a.assignee.toLowerCase() === 'none' ? 'none' : findMember(api, members, a.assignee).userId;
    if (a.sprint)
      query.sprintId = a.sprint.toLowerCase() === 'backlog' ? 'none' : findSprint(api, sprints, a.sprint).id;
    if (a.label && labels) query.labelId = findLabel(api, labels, a.label).id;
  } catch (e) {
    // Across projects, a name that one project lacks only means it has no such tickets.
    if (!across || !(e instanceof ToolError) || / match "/.test(e.message)) throw e;
    return e;
  }
  return { projectKey, query, columns, members, sprints } satisfies ProjectView;
}

const byNewest = (field: 'updatedAt' | 'createdAt') => (x: TicketRaw, y: TicketRaw) =>
  x[field] < y[field] ? 1 : x[field] > y[field] ? -1 : x.key < y.key ? -1 : x.key > y.key ? 1 : 0;

export const listTicketsTool = defineTool({
  name: 'list_tickets',
  description: 'List tickets; filters take names or ids. Without projectKey: all my projects.',
  input: {
    projectKey: projectKeyParam.optional(),
    column: z.string().optional(),
    priority: toolPriority.optional(),
    type: toolType.optional(),
    assignee: z.string().optional().describe('Username, name, id or "none"'),
    sprint: z.string().optional().describe('Name, id or "backlog"'),
    label: z.string().optional(),
    search: z.string().optional().describe('Text in key, title or description'),
    sort: z.enum(TICKET_SORTS).optional().describe('board (default with projectKey), updated or created'),
    limit: toolLimit(TOOL_LIMITS.tickets.default, TOOL_LIMITS.tickets.max),
    cursor: cursorParam,
  },
  output: { tickets: z.array(ticketItemOut), ...pageShape, sort: z.string() },
  annotations: READ,
  async run(a, api) {
    const sort: Sort = a.sort ?? (a.projectKey ? 'board' : 'updated');
    if (sort === 'board' && !a.projectKey) {
      throw new ToolError('sort board needs projectKey (boards are per project); use updated or created');
    }
    const offset = pageStart('list_tickets', { ...a, sort });
    const keys = a.projectKey
      ? [a.projectKey]
      : (await api.get<ProjectRaw[]>('/api/projects', { query: { limit: LIMITS.listLimitMax } })).map(
          (p) => p.key,
        );
    const views: ProjectView[] = [];
    let miss: ToolError | null = null;
    for (const key of keys) {
      const v = await projectView(api, key, a, !a.projectKey);
      if (v instanceof ToolError) miss = v;
      else views.push(v);
    }
    const named = a.column || a.assignee || a.sprint || a.label;
    if (views.length === 0 && miss && named) throw miss;

    let rows: { t: TicketRaw; v: ProjectView }[];
    let total: number;
    if (sort === 'board' && views.length === 1) {
      const v = views[0];
      const page = await api.request<TicketRaw[]>('GET', `${projectPath(v.projectKey)}/tickets`, {
        query: { ...v.query, limit: a.limit, offset },
        subject: { project: v.projectKey },
      });
      rows = page.data.map((t) => ({ t, v }));
      total = page.total ?? rows.length;
    } else {
      const all: { t: TicketRaw; v: ProjectView }[] = [];
      for (const v of views) for (const t of await readAll(api, v.projectKey, v.query)) all.push({ t, v });
      const cmp = byNewest(sort === 'created' ? 'createdAt' : 'updatedAt');
      all.sort((x, y) => cmp(x.t, y.t));
      total = all.length;
      rows = all.slice(offset, offset + a.limit);
    }
    const tickets: TicketItem[] = rows.map(({ t, v }) => presentItem(t, v.columns, v.members, v.sprints));
    const info = pageInfo('list_tickets', { ...a, sort }, offset, tickets.length, total);
    return {
      text: pageText('list_tickets', 'tickets', tickets.map(ticketLine), offset, info, SORT_WORDS[sort]),
      data: { tickets, ...info, sort },
    };
  },
});
