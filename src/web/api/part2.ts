/**
 * Queries and shapes of the planning, reporting, profile and administration screens (sprints with
 * their settings and reports, my account, system administration), on the same client and cache keys.
 */
import { useQuery } from '@tanstack/react-query';
import { api, enc, listAll } from './client';
import type {
  AdminUser,
  Burndown,
  KeyStatus,
  Me,
  SprintFull,
  SprintSettings,
  SystemSettings,
  Velocity,
} from './types';

export type {
  AdminUser,
  Burndown,
  CompleteResult,
  KeyStatus,
  Me,
  SprintFull,
  SprintSettings,
  SystemSettings,
  Velocity,
} from './types';

export const qk2 = {
  sprintsFull: (projectId: string) => ['sprints', projectId] as const,
  sprintSettings: (projectId: string) => ['sprint-settings', projectId] as const,
  burndown: (projectId: string, sprintId: string) => ['burndown', projectId, sprintId] as const,
  velocity: (projectId: string) => ['velocity', projectId] as const,
  me: ['me'] as const,
  keyStatus: ['mcp-key'] as const,
  adminUsers: (q: string) => ['admin-users', q] as const,
  adminSettings: ['admin-settings'] as const,
};

export const sprintPath = (projectId: string, rest = '') => `/api/projects/${enc(projectId)}/sprints${rest}`;

/** The sprints with every field (the same cache entry as the board's sprint list). */
export const useSprintsFull = (projectId: string | undefined) =>
  useQuery({
    queryKey: qk2.sprintsFull(projectId ?? ''),
    queryFn: ({ signal }) => listAll<SprintFull>(sprintPath(projectId!), signal),
    enabled: !!projectId,
    select: (list) => list as SprintFull[],
  });

export const useSprintSettings = (projectId: string | undefined) =>
  useQuery({
    queryKey: qk2.sprintSettings(projectId ?? ''),
    queryFn: () => api<SprintSettings>(sprintPath(projectId!, '/settings')),
    enabled: !!projectId,
  });

export const useBurndown = (projectId: string | undefined, sprintId: string | undefined) =>
  useQuery({
    queryKey: qk2.burndown(projectId ?? '', sprintId ?? ''),
    queryFn: () => api<Burndown>(sprintPath(projectId!, `/${enc(sprintId!)}/burndown`)),
    enabled: !!projectId && !!sprintId,
  });

export const useVelocity = (projectId: string | undefined) =>
  useQuery({
    queryKey: qk2.velocity(projectId ?? ''),
    queryFn: () => api<Velocity>(sprintPath(projectId!, '/velocity?limit=10')),
    enabled: !!projectId,
  });

export const useMe = () => useQuery({ queryKey: qk2.me, queryFn: () => api<Me>('/api/me') });

export const useKeyStatus = () =>
  useQuery({ queryKey: qk2.keyStatus, queryFn: () => api<KeyStatus>('/api/me/mcp-key') });

export interface AdminUserQuery {
  search: string;
  status: '' | 'active' | 'disabled';
  role: '' | 'admin' | 'user';
  sortBy: 'username' | 'name' | 'email' | 'createdAt';
  sortOrder: 'asc' | 'desc';
}

export function adminUsersPath(q: AdminUserQuery) {
  const p = new URLSearchParams();
  if (q.search.trim()) p.set('search', q.search.trim());
  if (q.status) p.set('status', q.status);
  if (q.role) p.set('role', q.role);
  p.set('sortBy', q.sortBy);
  p.set('sortOrder', q.sortOrder);
  return `/api/admin/users?${p.toString()}`;
}

export const useAdminUsers = (q: AdminUserQuery) =>
  useQuery({
    queryKey: qk2.adminUsers(adminUsersPath(q)),
    queryFn: ({ signal }) => listAll<AdminUser>(adminUsersPath(q), signal),
    placeholderData: (prev) => prev,
  });

export const useAdminSettings = () =>
  useQuery({ queryKey: qk2.adminSettings, queryFn: () => api<SystemSettings>('/api/admin/settings') });

/** Story points of a list of tickets. */
export const sumPoints = (list: { storyPoints: number | null }[]) =>
  list.reduce((n, t) => n + (t.storyPoints ?? 0), 0);

/** YYYY-MM-DD of a stored sprint date (midnight UTC) or of today. */
export const dayOf = (iso: string | null | undefined) => (iso ?? new Date().toISOString()).slice(0, 10);

/** A YYYY-MM-DD day plus n days. */
export function addDays(day: string, n: number) {
  const d = new Date(`${day}T00:00:00.000Z`);
  d.setUTCDate(d.getUTCDate() + n);
  return d.toISOString().slice(0, 10);
}

/** A short readable date of a stored day. */
export function shortDate(iso: string | null | undefined) {
  if (!iso) return '';
  const d = new Date(`${iso.slice(0, 10)}T00:00:00.000Z`);
  return d.toLocaleDateString(undefined, { month: 'short', day: 'numeric', timeZone: 'UTC' });
}
