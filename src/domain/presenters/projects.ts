import type {
  ColumnsTable,
  LabelsTable,
  ProjectMembersTable,
  ProjectsTable,
  UsersTable,
} from '../../db/types.js';
import type { ColumnOut, LabelOut, MemberOut, ProjectOut } from '../../shared/projects.js';
import { presentUserSummary } from './users.js';

export const presentProject = (p: ProjectsTable): ProjectOut => ({
  id: p.id,
  name: p.name,
  key: p.key,
  description: p.description,
  color: p.color,
  membersMayDeleteTickets: p.members_may_delete === 1,
  createdAt: p.created_at,
  updatedAt: p.updated_at,
});

/** A column with its 0-based place on the board as `order` (computed from the ranks). */
export const presentColumn = (c: Pick<ColumnsTable, 'id' | 'name'>, order: number): ColumnOut => ({
  id: c.id,
  name: c.name,
  order,
});

export const presentLabel = (l: Pick<LabelsTable, 'id' | 'name' | 'color'>): LabelOut => ({
  id: l.id,
  name: l.name,
  color: l.color,
});

/** A membership row joined with its user's public fields (members.ts `membersQuery`). */
export type MemberRow = ProjectMembersTable & Pick<UsersTable, 'username' | 'name' | 'avatar'>;

export const presentMember = (m: MemberRow): MemberOut => ({
  id: m.id,
  userId: m.user_id,
  projectId: m.project_id,
  role: m.role,
  user: presentUserSummary({ id: m.user_id, username: m.username, name: m.name, avatar: m.avatar }),
});
