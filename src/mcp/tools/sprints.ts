import { z } from 'zod';
import { SPRINT_STATUSES } from '../../shared/sprints.js';
import { toolDate, toolDateOrNull } from '../../shared/tools.js';
import { type DocketClient, seg } from '../client.js';
import {
  CREATE,
  confirmParam,
  DELETE,
  defineTool,
  findSprint,
  getColumns,
  getMembers,
  getSprints,
  presentItem,
  presentSprint,
  projectKeyParam,
  projectPath,
  READ,
  type SprintRaw,
  sprintLine,
  sprintOut,
  type TicketRaw,
  ToolError,
  ticketItemOut,
  ticketLine,
  UPDATE,
} from './common.js';
import { cursorParam, pageInfo, pageOfList, pageShape, pageStart, pageText } from './paging.js';

const date = toolDate;
const sprintPath = (projectKey: string, s: SprintRaw) => `${projectPath(projectKey)}/sprints/${seg(s.id)}`;
const sub = (projectKey: string) => ({ subject: { project: projectKey } });

async function findByName(api: DocketClient, projectKey: string, name: string) {
  return findSprint(api, await getSprints(api, projectKey), name);
}

const listSprints = defineTool({
  name: 'list_sprints',
  description: "List a project's sprints in creation order.",
  input: {
    projectKey: projectKeyParam,
    status: z.enum(SPRINT_STATUSES).optional(),
    limit: z.number().int().min(1).max(200).default(50),
    cursor: cursorParam,
  },
  output: { sprints: z.array(z.object(sprintOut)), ...pageShape },
  annotations: READ,
  async run(a, api) {
    const all = (await getSprints(api, a.projectKey, a.status)).map(presentSprint);
    const { offset, items, page } = pageOfList('list_sprints', a, all, a.limit);
    return {
      text: pageText('list_sprints', 'sprints', items.map(sprintLine), offset, page, 'oldest first'),
      data: { sprints: items, ...page },
    };
  },
});

const getSprint = defineTool({
  name: 'get_sprint',
  description: 'Read a sprint with its tickets (paged, board order).',
  input: {
    projectKey: projectKeyParam,
    sprintName: z.string().describe('Name or id'),
    limit: z.number().int().min(1).max(200).default(50),
    cursor: cursorParam,
  },
  output: {
    ...sprintOut,
    tickets: z.array(ticketItemOut),
    ...pageShape,
    ticketCount: z.number(),
    storyPoints: z.number(),
  },
  annotations: READ,
  async run(a, api) {
    const offset = pageStart('get_sprint', a);
    const { projectKey } = a;
    const s = await findByName(api, projectKey, a.sprintName);
    const [sprint, page, columns, members] = await Promise.all([
      api.get<SprintRaw & { tickets: { storyPoints: number | null }[] }>(
        sprintPath(projectKey, s),
        sub(projectKey),
      ),
      api.request<TicketRaw[]>('GET', `${projectPath(projectKey)}/tickets`, {
        query: { sprintId: s.id, limit: a.limit, offset },
        ...sub(projectKey),
      }),
      getColumns(api, projectKey),
      getMembers(api, projectKey),
    ]);
    const tickets = page.data.map((t) => presentItem(t, columns, members, [sprint]));
    const points = sprint.tickets.reduce((n, t) => n + (t.storyPoints ?? 0), 0);
    const total = page.total ?? tickets.length;
    const info = pageInfo('get_sprint', a, offset, tickets.length, total);
    const data = { ...presentSprint(sprint), tickets, ...info, ticketCount: total, storyPoints: points };
    const budget = data.budget != null ? ` of budget ${data.budget}` : '';
    const list = pageText('get_sprint', 'tickets', tickets.map(ticketLine), offset, info, 'in board order');
    return {
      text: [sprintLine(data), `${total} tickets, ${points} points${budget}`, list].join('\n'),
      data,
    };
  },
});

const createSprint = defineTool({
  name: 'create_sprint',
  description: 'Create a sprint (status planning).',
  input: {
    projectKey: projectKeyParam,
    name: z.string(),
    goal: z.string().optional(),
    startDate: date.optional(),
    endDate: date.optional(),
    budget: z.number().optional().describe('Story-point capacity'),
  },
  output: sprintOut,
  annotations: CREATE,
  async run({ projectKey, ...body }, api) {
    const s = presentSprint(
      await api.post<SprintRaw>(`${projectPath(projectKey)}/sprints`, body, sub(projectKey)),
    );
    return { text: `Created sprint ${s.name} in ${projectKey.toUpperCase()}`, data: s };
  },
});

const updateSprint = defineTool({
  name: 'update_sprint',
  description: "Change a sprint's name, goal, dates or budget; null clears.",
  input: {
    projectKey: projectKeyParam,
    sprintName: z.string().describe('Name or id'),
    name: z.string().optional(),
    goal: z.string().nullable().optional(),
    startDate: toolDateOrNull.optional(),
    endDate: toolDateOrNull.optional(),
    budget: z.number().nullable().optional(),
  },
  output: sprintOut,
  annotations: UPDATE,
  async run({ projectKey, sprintName, ...changes }, api) {
    const s = await findByName(api, projectKey, sprintName);
    const body = Object.fromEntries(Object.entries(changes).filter(([, v]) => v !== undefined));
    if (Object.keys(body).length === 0)
      throw new ToolError('Nothing to update: give at least one field to change.');
    const after = presentSprint(await api.patch<SprintRaw>(sprintPath(projectKey, s), body, sub(projectKey)));
    return { text: `Updated sprint ${after.name} (${Object.keys(body).join(', ')})`, data: after };
  },
});

const startSprint = defineTool({
  name: 'start_sprint',
  description: 'Start a planning sprint; dates default to today and the sprint length.',
  input: {
    projectKey: projectKeyParam,
    sprintName: z.string().describe('Name or id'),
    startDate: date.optional(),
    endDate: date.optional(),
  },
  output: sprintOut,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
  async run({ projectKey, sprintName, ...body }, api) {
    const s = await findByName(api, projectKey, sprintName);
    await api.post(`${sprintPath(projectKey, s)}/start`, body, sub(projectKey));
    const after = presentSprint(await api.get<SprintRaw>(sprintPath(projectKey, s), sub(projectKey)));
    return { text: `Started sprint ${after.name}: ${after.startDate} to ${after.endDate}`, data: after };
  },
});

interface CompleteResult {
  completedTicketCount: number;
  incompleteTicketCount: number;
  completedStoryPoints: number;
  incompleteStoryPoints: number;
}

const completeSprint = defineTool({
  name: 'complete_sprint',
  description: 'Complete the active sprint; incomplete tickets go to the backlog or the next sprint.',
  input: {
    projectKey: projectKeyParam,
    sprintName: z.string().describe('Name or id'),
    moveIncompleteTo: z.enum(['backlog', 'next']).default('backlog'),
  },
  output: {
    ...sprintOut,
    completedTicketCount: z.number(),
    incompleteTicketCount: z.number(),
    completedStoryPoints: z.number(),
    incompleteStoryPoints: z.number(),
    movedTo: z.string().nullable(),
  },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
  async run({ projectKey, sprintName, moveIncompleteTo }, api) {
    const sprints = await getSprints(api, projectKey);
    const s = findSprint(api, sprints, sprintName);
    if (s.status !== 'active') throw new ToolError(`Sprint is not active: ${s.name} is ${s.status}`);
    let body: Record<string, unknown> = { incompleteAction: 'moveToBacklog' };
    let movedTo: string | null = 'backlog';
    let created: SprintRaw | null = null;
    if (moveIncompleteTo === 'next') {
      // DECISIONS 8: the earliest-created planning sprint, else a new one named by the Sprint N rule.
      let next = sprints.find((x) => x.status === 'planning' && x.id !== s.id);
      if (!next) {
        created = await api.post<SprintRaw>(`${projectPath(projectKey)}/sprints`, {}, sub(projectKey));
        next = created;
      }
      body = { incompleteAction: 'moveToNextSprint', nextSprintId: next.id };
      movedTo = next.name;
    }
    let r: CompleteResult;
    try {
      r = await api.post<CompleteResult>(`${sprintPath(projectKey, s)}/complete`, body, sub(projectKey));
    } catch (err) {
      if (created) await api.del(sprintPath(projectKey, created), undefined, sub(projectKey)).catch(() => {});
      throw err;
    }
    if (created && r.incompleteTicketCount === 0) {
      // Nothing was incomplete: the sprint made to receive it is not wanted (as with automatic carry-over).
      await api.del(sprintPath(projectKey, created), undefined, sub(projectKey));
      movedTo = null;
    }
    const after = presentSprint(await api.get<SprintRaw>(sprintPath(projectKey, s), sub(projectKey)));
    const data = {
      ...after,
      completedTicketCount: r.completedTicketCount,
      incompleteTicketCount: r.incompleteTicketCount,
      completedStoryPoints: r.completedStoryPoints,
      incompleteStoryPoints: r.incompleteStoryPoints,
      movedTo,
    };
    const moved = r.incompleteTicketCount
      ? `; ${r.incompleteTicketCount} incomplete moved to ${movedTo}${created ? ' (new sprint)' : ''}`
      : '';
    return {
      text: `Completed sprint ${after.name}: ${r.completedTicketCount} tickets done (${r.completedStoryPoints} points)${moved}`,
      data,
    };
  },
});

const deleteSprint = defineTool({
  name: 'delete_sprint',
  description: 'Delete a planning sprint; its tickets go to the backlog.',
  input: {
    projectKey: projectKeyParam,
    sprintName: z.string().describe('Name or id'),
    confirm: confirmParam,
  },
  output: { name: z.string(), deleted: z.boolean() },
  annotations: DELETE,
  async run({ projectKey, sprintName, confirm }, api) {
    const s = await findByName(api, projectKey, sprintName);
    if (confirm !== true) {
      throw new ToolError(`Not deleted: call again with confirm: true to delete sprint ${s.name}.`);
    }
    await api.del(sprintPath(projectKey, s), undefined, sub(projectKey));
    return {
      text: `Deleted sprint ${s.name}; its tickets are in the backlog`,
      data: { name: s.name, deleted: true },
    };
  },
});

export const sprintTools = [
  listSprints,
  getSprint,
  createSprint,
  updateSprint,
  startSprint,
  completeSprint,
  deleteSprint,
];
