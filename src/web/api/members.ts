/** A project's members and their roles. */
import { useQuery } from '@tanstack/react-query';
import { api, enc, listAll } from './client';
import { qk } from './keys';
import { projectPath } from './projects';
import type { Member } from './types';

type Role = Member['role'];
const membersPath = (projectId: string, memberId?: string) =>
  projectPath(projectId, memberId ? `/members/${enc(memberId)}` : '/members');

export const useMembers = (projectId: string | undefined) =>
  useQuery({
    queryKey: qk.members(projectId ?? ''),
    queryFn: ({ signal }) => listAll<Member>(membersPath(projectId!), signal),
    enabled: !!projectId,
  });

export const addMember = (projectId: string, userId: string, role: Role) =>
  api<Member>(membersPath(projectId), { method: 'POST', body: { userId, role } });

/** Changes a member's role; `owner` hands the project over. */
export const changeMemberRole = (projectId: string, memberId: string, role: Role) =>
  api<Member>(membersPath(projectId, memberId), { method: 'PATCH', body: { role } });

/** Removes a member, or leaves the project when it is me. */
export const removeMember = (projectId: string, memberId: string) =>
  api(membersPath(projectId, memberId), { method: 'DELETE' });
