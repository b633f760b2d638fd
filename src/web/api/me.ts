/** My account: profile, avatar, e-mail, password, the MCP key, deletion. */
import { type QueryClient, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from './client';
import { qk } from './keys';
import { sessionEnded } from './session';
import type { KeyStatus, Me, Session } from './types';
import { uploadFile } from './upload';

export const useMe = () => useQuery({ queryKey: qk.me, queryFn: () => api<Me>('/api/me') });

export const useKeyStatus = () =>
  useQuery({ queryKey: qk.keyStatus, queryFn: () => api<KeyStatus>('/api/me/mcp-key') });

/** Keeps my profile and the shell's signed-in user in step with a saved change. */
function syncMe(qc: QueryClient, me: Partial<Me>) {
  qc.setQueryData<Me>(qk.me, (m) => (m ? { ...m, ...me } : m));
  qc.setQueryData<Session>(qk.session, (s) => (s?.user ? { ...s, user: { ...s.user, ...me } } : s));
}

export function useUpdateMyName() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (name: string | null) => api<Me>('/api/me', { method: 'PATCH', body: { name } }),
    onSuccess: (saved) => syncMe(qc, saved),
  });
}

/** Uploads my avatar (the server stores it as a 256x256 WebP), reporting progress from 0 to 1. */
export function useUploadAvatar() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ image, onProgress }: { image: File; onProgress: (fraction: number) => void }) =>
      uploadFile<{ avatar: string | null }>('/api/me/avatar', image, onProgress),
    onSuccess: ({ avatar }) => syncMe(qc, { avatar }),
  });
}

export function useRemoveMyAvatar() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: () => api('/api/me/avatar', { method: 'DELETE' }),
    onSuccess: () => syncMe(qc, { avatar: null }),
  });
}

/** Changes my e-mail address (needs my password). */
export function useChangeMyEmail() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ email, password }: { email: string; password: string }) =>
      api<Me>('/api/me/email', { method: 'PATCH', body: { email, password } }),
    onSuccess: (saved) => syncMe(qc, saved),
  });
}

/** Changes my password; my other sessions end. */
export function useChangeMyPassword() {
  return useMutation({
    mutationFn: ({ currentPassword, newPassword }: { currentPassword: string; newPassword: string }) =>
      api('/api/me/password', { method: 'PATCH', body: { currentPassword, newPassword } }),
  });
}

/** Creates my MCP key (shown once, in this answer; replaces any earlier key). */
export function useCreateMcpKey() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: () => api<{ apiKey: string; createdAt: string }>('/api/me/mcp-key', { method: 'POST' }),
    onSuccess: (res) =>
      qc.setQueryData<KeyStatus>(qk.keyStatus, { hasKey: true, createdAt: res.createdAt, lastUsedAt: null }),
  });
}

export function useRevokeMcpKey() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: () => api('/api/me/mcp-key', { method: 'DELETE' }),
    onSuccess: () =>
      qc.setQueryData<KeyStatus>(qk.keyStatus, { hasKey: false, createdAt: null, lastUsedAt: null }),
  });
}

/** Deletes my account; this session ends with it. */
export function useDeleteMyAccount() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ password, confirmation }: { password: string; confirmation: string }) =>
      api('/api/me/account', { method: 'DELETE', body: { password, confirmation } }),
    onSuccess: () => sessionEnded(qc),
  });
}
