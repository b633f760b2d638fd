/** A project's members and their roles. */
import { useQuery } from '@tanstack/react-query';
import { mayDeleteTicket } from '../../shared/rules';
import { api, enc, listAll } from './client';
import { qk } from './keys';
import { projectPath } from './projects';
import { useSession } from './session';
import type { Member, Project } from './types';

type Role = Member['role'];
const membersPath = (projectId: string, memberId?: string) =>
  projectPath(projectId, memberId ? `/members/${enc(memberId)}` : '/members');

export const useMembers = (projectId: string | undefined) =>
  useQuery({
    queryKey: qk.members(projectId ?? ''),
    queryFn: ({ signal }) => listAll<Member>(membersPath(projectId!), signal),
    enabled: !!projectId,
  });

/** My role in the project: system administrators act as owner. */
export function useMyRole(project: Project): { role: Role | null; userId: string | undefined } {
  const session = useSession();
  const members = useMembers(project.id);
  const user = session.data?.user;
  if (user?.isSystemAdmin) return { role: 'owner', userId: user.id };
  const mine = members.data?.find((m) => m.userId === user?.id);
  return { role: mine?.role ?? null, userId: user?.id };
}

/** Whether I may delete the ticket (the API's own rule, src/shared/rules.ts). */
export function useMayDeleteTicket(project: Project, ticket: { reporterId: string | null }) {
  const { role, userId } = useMyRole(project);
  if (!role) return false;
  return mayDeleteTicket({
    role,
    membersMayDeleteTickets: project.membersMayDeleteTickets,
    isReporter: !!userId && ticket.reporterId === userId,
  });
}

export const addMember = (projectId: string, userId: string, role: Role) =>
  api<Member>(membersPath(projectId), { method: 'POST', body: { userId, role } });

/** Changes a member's role; `owner` hands the project over. */
export const changeMemberRole = (projectId: string, memberId: string, role: Role) =>
  api<Member>(membersPath(projectId, memberId), { method: 'PATCH', body: { role } });

/** Removes a member, or leaves the project when it is me. */
export const removeMember = (projectId: string, memberId: string) =>
  api(membersPath(projectId, memberId), { method: 'DELETE' });
