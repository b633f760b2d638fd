import { z } from 'zod';
import { TOOL_LIMITS, toolLimit } from '../../shared/tools.js';
import {
  CREATE,
  columnOut,
  confirmParam,
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
  projectKeyParam,
  projectOut,
  projectPath,
  READ,
  ToolError,
  UPDATE,
  userLabel,
} from './common.js';
import { cursorParam, pageInfo, pageShape, pageStart, pageText } from './paging.js';
import { templatesOf } from './templates.js';

const projectLine = (p: ReturnType<typeof presentProject>) =>
  `${p.key} ${p.name}${p.description ? `: ${p.description.split('\n')[0].slice(0, 120)}` : ''}`;

const listProjects = defineTool({
  name: 'list_projects',
  description: 'List projects I can access, by name.',
  input: { limit: toolLimit(TOOL_LIMITS.projects.default, TOOL_LIMITS.projects.max), cursor: cursorParam },
  output: { projects: z.array(z.object(projectOut)), ...pageShape },
  annotations: READ,
  async run(a, api) {
    const offset = pageStart('list_projects', a);
    const res = await api.request<ProjectRaw[]>('GET', '/api/projects', {
      query: { limit: a.limit, offset },
    });
    const projects = res.data.map(presentProject);
    const page = pageInfo('list_projects', a, offset, projects.length, res.total ?? projects.length);
    return {
      text: pageText('list_projects', 'projects', projects.map(projectLine), offset, page, 'by name'),
      data: { projects, ...page },
    };
  },
});

const getProjectTool = defineTool({
  name: 'get_project',
  description: 'Read a project with its columns, members and templates.',
  input: { projectKey: projectKeyParam },
  aliases: { key: 'projectKey' },
  // Templates by name (create_ticket's template); the text says what each presets (decision 050).
  output: {
    ...projectOut,
    columns: z.array(columnOut),
    members: z.array(memberOut),
    templates: z.array(z.string()),
  },
  annotations: READ,
  async run({ projectKey: key }, api) {
    const [project, columns, members, templates] = await Promise.all([
      getProject(api, key),
      getColumns(api, key),
      getMembers(api, key),
      templatesOf(api, key),
    ]);
    const data = {
      ...presentProject(project),
      columns: columns.map(presentColumn),
      members: members.map(presentMember),
      templates: templates.names,
    };
    const text = [
      projectLine(data),
      `Columns: ${data.columns.map((c) => `${c.position}. ${c.name}`).join(', ')}`,
      `Members: ${members.map((m) => `${userLabel(m.user)} ${m.role}`).join(', ')}`,
      ...(templates.lines.length ? ['Templates:', ...templates.lines.map((l) => `- ${l}`)] : []),
    ].join('\n');
    return { text, data };
  },
});

const createProject = defineTool({
  name: 'create_project',
  description: 'Create a project; I become its owner.',
  input: {
    name: z.string(),
    projectKey: z.string().describe('2-10 letters or digits'),
    description: z.string().optional(),
    color: z.string().optional().describe('#RRGGBB'),
  },
  aliases: { key: 'projectKey' },
  output: projectOut,
  annotations: CREATE,
  async run({ projectKey, ...rest }, api) {
    const p = presentProject(await api.post<ProjectRaw>('/api/projects', { ...rest, key: projectKey }));
    return { text: `Created project ${p.key}: ${p.name}`, data: p };
  },
});

const updateProject = defineTool({
  name: 'update_project',
  description: "Change a project's name, description (null clears) or color.",
  input: {
    projectKey: projectKeyParam,
    name: z.string().optional(),
    description: z.string().nullable().optional(),
    color: z.string().optional().describe('#RRGGBB'),
  },
  aliases: { key: 'projectKey' },
  output: projectOut,
  annotations: UPDATE,
  async run({ projectKey: key, ...changes }, api) {
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
  input: { projectKey: projectKeyParam, confirm: confirmParam },
  aliases: { key: 'projectKey' },
  output: { key: z.string(), name: z.string(), deleted: z.boolean() },
  annotations: DELETE,
  async run({ projectKey: key, confirm }, api) {
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
