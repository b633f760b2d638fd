import type {
  ColumnsTable,
  LabelsTable,
  ProjectMembersTable,
  ProjectsTable,
  UsersTable,
} from '../../db/types.js';
import { presentUserSummary } from './users.js';

export const presentProject = (p: ProjectsTable) => ({
  id: p.id,
  name: p.name,
  key: p.key,
  description: p.description,
  color: p.color,
  membersMayDeleteTickets: p.members_may_delete === 1,
  createdAt: p.created_at,
  updatedAt: p.updated_at,
});
export type ProjectOut = ReturnType<typeof presentProject>;

/** A column with its 0-based place on the board as `order` (computed from the ranks). */
export const presentColumn = (c: Pick<ColumnsTable, 'id' | 'name'>, order: number) => ({
  id: c.id,
  name: c.name,
  order,
});

export const presentLabel = (l: Pick<LabelsTable, 'id' | 'name' | 'color'>) => ({
  id: l.id,
  name: l.name,
  color: l.color,
});

export const presentMember = (
  m: ProjectMembersTable,
  u: Pick<UsersTable, 'id' | 'username' | 'name' | 'avatar'>,
) => ({
  id: m.id,
  userId: m.user_id,
  projectId: m.project_id,
  role: m.role,
  user: presentUserSummary(u),
});
