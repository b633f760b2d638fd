import { z } from 'zod';
import { TOOL_LIMITS, toolLimit } from '../../shared/tools.js';
import {
  CREATE,
  columnOut,
  confirmParam,
  countText,
  DELETE,
  defineTool,
  getColumns,
  getMembers,
  getProject,
  memberOut,
  type ProjectRaw,
  presentColumn,
  presentMember,
  presentProject,
  projectOut,
  projectPath,
  READ,
  ToolError,
  UPDATE,
  userLabel,
} from './common.js';

const projectLine = (p: ReturnType<typeof presentProject>) =>
  `${p.key} ${p.name}${p.description ? `: ${p.description.split('\n')[0].slice(0, 120)}` : ''}`;

const listProjects = defineTool({
  name: 'list_projects',
  description: 'List projects I can access, by name.',
  input: { limit: toolLimit(TOOL_LIMITS.projects.default, TOOL_LIMITS.projects.max) },
  output: {
    projects: z.array(z.object(projectOut)),
    total: z.number(),
    truncated: z.boolean(),
  },
  annotations: READ,
  async run({ limit }, api) {
    const page = await api.request<ProjectRaw[]>('GET', '/api/projects', { query: { limit } });
    const projects = page.data.map(presentProject);
    const total = page.total ?? projects.length;
    return {
      text: [countText(projects.length, total, 'projects'), ...projects.map(projectLine)].join('\n'),
      data: { projects, total, truncated: projects.length < total },
    };
  },
});

const getProjectTool = defineTool({
  name: 'get_project',
  description: 'Read a project with its columns and members.',
  input: { key: z.string().describe('Project key') },
  output: { ...projectOut, columns: z.array(columnOut), members: z.array(memberOut) },
  annotations: READ,
  async run({ key }, api) {
    const [project, columns, members] = await Promise.all([
      getProject(api, key),
      getColumns(api, key),
      getMembers(api, key),
    ]);
    const data = {
      ...presentProject(project),
      columns: columns.map(presentColumn),
      members: members.map(presentMember),
    };
    const text = [
      projectLine(data),
      `Columns: ${data.columns.map((c) => `${c.position}. ${c.name}`).join(', ')}`,
      `Members: ${members.map((m) => `${userLabel(m.user)} ${m.role}`).join(', ')}`,
    ].join('\n');
    return { text, data };
  },
});

const createProject = defineTool({
  name: 'create_project',
  description: 'Create a project; I become its owner.',
  input: {
    name: z.string(),
    key: z.string().describe('2-10 uppercase letters or digits'),
    description: z.string().optional(),
    color: z.string().optional().describe('#RRGGBB'),
  },
  output: projectOut,
  annotations: CREATE,
  async run(a, api) {
    const p = presentProject(await api.post<ProjectRaw>('/api/projects', a));
    return { text: `Created project ${p.key}: ${p.name}`, data: p };
  },
});

const updateProject = defineTool({
  name: 'update_project',
  description: 'Change a project’s name, description (null clears) or color.',
  input: {
    key: z.string().describe('Project key'),
    name: z.string().optional(),
    description: z.string().nullable().optional(),
    color: z.string().optional().describe('#RRGGBB'),
  },
  output: projectOut,
  annotations: UPDATE,
  async run({ key, ...changes }, api) {
    const body = Object.fromEntries(Object.entries(changes).filter(([, v]) => v !== undefined));
    if (Object.keys(body).length === 0)
      throw new ToolError('Nothing to update: give name, description or color.');
    const p = presentProject(
      await api.patch<ProjectRaw>(projectPath(key), body, { subject: { project: key } }),
    );
    return { text: `Updated project ${p.key} (${Object.keys(body).join(', ')})`, data: p };
  },
});

const deleteProject = defineTool({
  name: 'delete_project',
  description: 'Delete a project with all its tickets and sprints. Owner only.',
  input: { key: z.string().describe('Project key'), confirm: confirmParam },
  output: { key: z.string(), name: z.string(), deleted: z.boolean() },
  annotations: DELETE,
  async run({ key, confirm }, api) {
    const p = await getProject(api, key);
    if (confirm !== true) {
      throw new ToolError(
        `Not deleted: deleting ${p.key} removes all its tickets, sprints and history. Call again with confirm: true.`,
      );
    }
    await api.del(projectPath(key), undefined, { subject: { project: key } });
    return { text: `Deleted project ${p.key}: ${p.name}`, data: { key: p.key, name: p.name, deleted: true } };
  },
});

export const projectTools = [listProjects, getProjectTool, createProject, updateProject, deleteProject];
