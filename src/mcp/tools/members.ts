import { z } from 'zod';
import { TOOL_LIMITS, toolLimit } from '../../shared/tools.js';
import {
  CREATE,
  DELETE,
  defineTool,
  findMember,
  findUser,
  getMembers,
  type MemberRaw,
  memberOut,
  presentMember,
  projectKeyParam,
  projectPath,
  READ,
  UPDATE,
  type UserRaw,
  userLabel,
} from './common.js';
import { cursorParam, pageInfo, pageOfList, pageShape, pageStart, pageText } from './paging.js';

const role = z.string().describe('owner, admin or member');
const memberLine = (m: MemberRaw) => `${userLabel(m.user)}: ${m.role}`;

const listMembers = defineTool({
  name: 'list_members',
  description: "List a project's members and roles.",
  input: {
    projectKey: projectKeyParam,
    limit: z.number().int().min(1).max(200).default(50),
    cursor: cursorParam,
  },
  output: { members: z.array(memberOut), ...pageShape },
  annotations: READ,
  async run(a, api) {
    const all = await getMembers(api, a.projectKey);
    const { offset, items, page } = pageOfList('list_members', a, all, a.limit);
    return {
      text: pageText(
        'list_members',
        'members',
        items.map(memberLine),
        offset,
        page,
        'owner, admins, members',
      ),
      data: { members: items.map(presentMember), ...page },
    };
  },
});

const addMember = defineTool({
  name: 'add_member',
  description: 'Add a user to a project by username or name.',
  input: {
    projectKey: projectKeyParam,
    userName: z.string().describe('Username, name or id'),
    role: role.default('member'),
  },
  output: memberOut.shape,
  annotations: CREATE,
  async run(a, api) {
    await getMembers(api, a.projectKey);
    const user = await findUser(api, a.userName);
    const m = await api.post<MemberRaw>(
      `${projectPath(a.projectKey)}/members`,
      { userId: user.id, role: a.role },
      { subject: { project: a.projectKey } },
    );
    return {
      text: `Added ${userLabel(m.user)} to ${a.projectKey.toUpperCase()} as ${m.role}`,
      data: presentMember(m),
    };
  },
});

const removeMember = defineTool({
  name: 'remove_member',
  description: 'Remove a member from a project.',
  input: { projectKey: projectKeyParam, userName: z.string().describe('Username, name or id') },
  output: { username: z.string(), removed: z.boolean() },
  annotations: DELETE,
  async run(a, api) {
    const m = findMember(api, await getMembers(api, a.projectKey), a.userName);
    await api.del(`${projectPath(a.projectKey)}/members/${m.id}`, undefined, {
      subject: { project: a.projectKey },
    });
    return {
      text: `Removed ${userLabel(m.user)} from ${a.projectKey.toUpperCase()}`,
      data: { username: m.user.username, removed: true },
    };
  },
});

const changeMemberRole = defineTool({
  name: 'change_member_role',
  description: "Change a member's role. Making someone owner turns the old owner into admin.",
  input: { projectKey: projectKeyParam, userName: z.string().describe('Username, name or id'), role },
  output: memberOut.shape,
  annotations: UPDATE,
  async run(a, api) {
    const m = findMember(api, await getMembers(api, a.projectKey), a.userName);
    const updated = await api.patch<MemberRaw>(
      `${projectPath(a.projectKey)}/members/${m.id}`,
      { role: a.role },
      { subject: { project: a.projectKey } },
    );
    return {
      text: `${userLabel(updated.user)} is now ${updated.role} of ${a.projectKey.toUpperCase()}`,
      data: presentMember(updated),
    };
  },
});

const userOut = z.object({ username: z.string(), name: z.string().nullable(), id: z.string() });

const listUsers = defineTool({
  name: 'list_users',
  description: 'List active users (to add as members).',
  input: { limit: toolLimit(TOOL_LIMITS.users.default, TOOL_LIMITS.users.max), cursor: cursorParam },
  output: { users: z.array(userOut), ...pageShape },
  annotations: READ,
  async run(a, api) {
    const offset = pageStart('list_users', a);
    const res = await api.request<UserRaw[]>('GET', '/api/users', { query: { limit: a.limit, offset } });
    const users = res.data.map((u) => ({ username: u.username, name: u.name, id: u.id }));
    const page = pageInfo('list_users', a, offset, users.length, res.total ?? users.length);
    return {
      text: pageText('list_users', 'users', res.data.map(userLabel), offset, page, 'by username'),
      data: { users, ...page },
    };
  },
});

export const memberTools = [listMembers, addMember, removeMember, changeMemberRole, listUsers];
