/** System administration: users, settings and the database. */
import { useQuery } from '@tanstack/react-query';
import type { z } from 'zod';
import type { adminCreateUserBody, adminUpdateUserBody, settingsPatchBody } from '../../shared/accounts.js';
import { ApiError, api, enc, listAll, TAB_ID, url } from './client';
import { qk } from './keys';
import type { AdminUser, SystemSettings } from './types';
import { uploadFile } from './upload';

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
    queryKey: qk.adminUsers(adminUsersPath(q)),
    queryFn: ({ signal }) => listAll<AdminUser>(adminUsersPath(q), signal),
    placeholderData: (prev) => prev,
  });

export const useAdminSettings = () =>
  useQuery({ queryKey: qk.adminSettings, queryFn: () => api<SystemSettings>('/api/admin/settings') });

const userPath = (userId: string) => `/api/admin/users/${enc(userId)}`;

export const createUser = (body: z.input<typeof adminCreateUserBody>) =>
  api<AdminUser>('/api/admin/users', { method: 'POST', body });

export const updateUser = (userId: string, body: z.input<typeof adminUpdateUserBody>) =>
  api<AdminUser>(userPath(userId), { method: 'PATCH', body });

export const deleteUser = (userId: string, confirmPassword: string) =>
  api(userPath(userId), { method: 'DELETE', body: { confirmPassword } });

export const updateSettings = (body: z.input<typeof settingsPatchBody>) =>
  api<SystemSettings>('/api/admin/settings', { method: 'PATCH', body });

/** Deletes every project with its tickets, sprints and files (users and settings stay). */
export const wipeProjects = (confirmPassword: string) =>
  api<{ wiped: { projects: number; tickets: number; sprints: number } }>(
    '/api/admin/database/wipe-projects',
    {
      method: 'POST',
      body: { confirmPassword },
    },
  );

/** Deletes all data and files; the answer holds the new administrator's temporary password. */
export const wipeDatabase = (confirmPassword: string, confirmation: string) =>
  api<{ newAdminCredentials: { username: string; temporaryPassword: string } }>('/api/admin/database/wipe', {
    method: 'POST',
    body: { confirmPassword, confirmation },
  });

/** Replaces all data and files with a backup (needs my password), reporting upload progress from 0 to 1. */
export const importBackup = (file: File, confirmPassword: string, onProgress: (fraction: number) => void) =>
  uploadFile<{ success: boolean; imported: Record<string, number> }>(
    '/api/admin/database/import',
    file,
    onProgress,
    undefined,
    { confirmPassword },
  );

async function errorOf(res: Response): Promise<ApiError> {
  let body: Record<string, unknown> = {};
  try {
    body = await res.json();
  } catch {
    // not JSON: the status says enough
  }
  return new ApiError(
    res.status,
    typeof body.error === 'string' ? body.error : `Request failed (${res.status})`,
    body,
  );
}

/** Starts the backup download (needs my password): the streamed answer, or the API's error. */
export async function exportBackup(
  confirmPassword: string,
  signal: AbortSignal,
): Promise<Response & { body: ReadableStream<Uint8Array> }> {
  let res: Response;
  try {
    res = await fetch(url('/api/admin/database/export'), {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json', 'X-Tab-Id': TAB_ID },
      body: JSON.stringify({ confirmPassword }),
      credentials: 'same-origin',
      signal,
    });
  } catch (err) {
    if ((err as Error).name === 'AbortError') throw err;
    throw new ApiError(0, 'Cannot reach the server. Check your connection and try again.');
  }
  if (!res.ok || !res.body) throw await errorOf(res);
  return res as Response & { body: ReadableStream<Uint8Array> };
}
