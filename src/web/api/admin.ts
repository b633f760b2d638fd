/** System administration: users, settings and the database. */
import { type QueryClient, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { z } from 'zod';
import type { adminCreateUserBody, adminUpdateUserBody, settingsPatchBody } from '../../shared/accounts.js';
import { ApiError, api, enc, listAll, TAB_ID, url } from './client';
import { qk } from './keys';
import { sessionEnded } from './session';
import type { AdminUser, Session, SystemSettings } from './types';
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

/** Keeps every cached user list in step with one changed user (or one gone), then asks the server again. */
function userChanged(qc: QueryClient, user: AdminUser | null, removedId?: string) {
  qc.setQueriesData<AdminUser[]>({ queryKey: ['admin-users'] }, (list) => {
    if (!list) return list;
    if (removedId) return list.filter((u) => u.id !== removedId);
    return user ? list.map((u) => (u.id === user.id ? user : u)) : list;
  });
  qc.invalidateQueries({ queryKey: ['admin-users'] });
}

export function useCreateUser() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (body: z.input<typeof adminCreateUserBody>) =>
      api<AdminUser>('/api/admin/users', { method: 'POST', body }),
    onSuccess: (user) => userChanged(qc, user),
  });
}

/**
 * Changes a user's details, rights or state. When the user is me, my session is read again (my name,
 * my administrator rights) before the change resolves.
 */
export function useUpdateUser() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ userId, body }: { userId: string; body: z.input<typeof adminUpdateUserBody> }) =>
      api<AdminUser>(userPath(userId), { method: 'PATCH', body }),
    onSuccess: (saved) => {
      userChanged(qc, saved);
      if (qc.getQueryData<Session>(qk.session)?.user?.id === saved.id)
        return qc.invalidateQueries({ queryKey: qk.session });
    },
  });
}

/** Deletes a user (needs my password). */
export function useDeleteUser() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ userId, confirmPassword }: { userId: string; confirmPassword: string }) =>
      api(userPath(userId), { method: 'DELETE', body: { confirmPassword } }),
    onSuccess: (_, { userId }) => userChanged(qc, null, userId),
  });
}

export function useUpdateSettings() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (body: z.input<typeof settingsPatchBody>) =>
      api<SystemSettings>('/api/admin/settings', { method: 'PATCH', body }),
    onSuccess: (saved) => qc.setQueryData(qk.adminSettings, saved),
  });
}

/** Deletes every project with its tickets, sprints and files (users and settings stay). */
export function useWipeProjects() {
  return useMutation({
    mutationFn: (confirmPassword: string) =>
      api<{ wiped: { projects: number; tickets: number; sprints: number } }>(
        '/api/admin/database/wipe-projects',
        { method: 'POST', body: { confirmPassword } },
      ),
  });
}

/**
 * Deletes all data and files; the answer holds the new administrator's temporary password. The
 * server has ended every session, this one too.
 */
export function useWipeDatabase() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ confirmPassword, confirmation }: { confirmPassword: string; confirmation: string }) =>
      api<{ newAdminCredentials: { username: string; temporaryPassword: string } }>(
        '/api/admin/database/wipe',
        {
          method: 'POST',
          body: { confirmPassword, confirmation },
        },
      ),
    onSuccess: () => sessionEnded(qc),
  });
}

/**
 * Replaces all data and files with a backup (needs my password), reporting upload progress from 0
 * to 1. The server has ended every session, this one too.
 */
export function useImportBackup() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({
      file,
      confirmPassword,
      onProgress,
    }: {
      file: File;
      confirmPassword: string;
      onProgress: (fraction: number) => void;
    }) =>
      uploadFile<{ success: boolean; imported: Record<string, number> }>(
        '/api/admin/database/import',
        file,
        onProgress,
        undefined,
        { confirmPassword },
      ),
    onSuccess: () => sessionEnded(qc),
  });
}

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

/** The file name the server gives in Content-Disposition, or a dated default. */
function fileNameOf(res: Response) {
  const cd = res.headers.get('Content-Disposition') ?? '';
  const m = cd.match(/filename="?([^";]+)"?/);
  return m?.[1] ?? `docket-backup-${new Date().toISOString().replace(/[:.]/g, '-')}.json`;
}

/** Starts the backup download (needs my password): the streamed answer, or the API's error. */
async function startExport(confirmPassword: string, signal: AbortSignal) {
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

/**
 * Downloads the backup (needs my password; a POST, so that the password is not in an address),
 * reporting the bytes received so far and the total when the server says it. Resolves to the file
 * and its name; `signal` cancels it (an AbortError).
 */
export function useExportBackup() {
  return useMutation({
    mutationFn: async ({
      confirmPassword,
      signal,
      onProgress,
    }: {
      confirmPassword: string;
      signal: AbortSignal;
      onProgress: (received: number, total: number | null) => void;
    }) => {
      const res = await startExport(confirmPassword, signal);
      const total = Number(res.headers.get('Content-Length')) || null;
      const reader = res.body.getReader();
      const chunks: Uint8Array[] = [];
      let received = 0;
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        chunks.push(value);
        received += value.byteLength;
        onProgress(received, total);
      }
      const blob = new Blob(chunks as BlobPart[], { type: 'application/json' });
      return { blob, name: fileNameOf(res), received, total };
    },
  });
}
