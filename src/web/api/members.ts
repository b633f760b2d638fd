/** A project's members and their roles. */
import { type QueryClient, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { mayDeleteTicket } from '../../shared/rules';
import { api, enc, listAll } from './client';
import { qk } from './keys';
import { forgetProject, projectPath } from './projects';
import { useSession } from './session';
import type { Member, Project } from './types';

type Role = Member['role'];
const membersPath = (projectId: string, memberId?: string) =>
  projectPath(projectId, memberId ? `/members/${enc(memberId)}` : '/members');

/** The read of a project's members (for `useQuery` and `useQueries`). */
export const membersQuery = (projectId: string) => ({
  queryKey: qk.members(projectId),
  queryFn: ({ signal }: { signal: AbortSignal }) => listAll<Member>(membersPath(projectId), signal),
});

export const useMembers = (projectId: string | undefined) =>
  useQuery({ ...membersQuery(projectId ?? ''), enabled: !!projectId });

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

const refreshMembers = (qc: QueryClient, projectId: string) =>
  qc.invalidateQueries({ queryKey: qk.members(projectId) });

export function useAddMember(projectId: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ userId, role }: { userId: string; role: Role }) =>
      api<Member>(membersPath(projectId), { method: 'POST', body: { userId, role } }),
    onSuccess: () => {
      refreshMembers(qc, projectId);
    },
  });
}

/** Changes a member's role; `owner` hands the project over. */
export function useChangeMemberRole(projectId: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ memberId, role }: { memberId: string; role: Role }) =>
      api<Member>(membersPath(projectId, memberId), { method: 'PATCH', body: { role } }),
    onSettled: () => {
      refreshMembers(qc, projectId);
    },
  });
}

/** Removes a member, or leaves the project when it is me (then it goes from my project list). */
export function useRemoveMember(projectId: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ memberId }: { memberId: string; me: boolean }) =>
      api(membersPath(projectId, memberId), { method: 'DELETE' }),
    onSuccess: (_, { me }) => {
      if (me) forgetProject(qc, projectId);
      else refreshMembers(qc, projectId);
    },
  });
}
