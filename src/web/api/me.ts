/** My account: profile, avatar, e-mail, password, API key, deletion. */
import { useQuery } from '@tanstack/react-query';
import type { PasswordChangedOut } from '../../shared/security.js';
import { api } from './client';
import { qk } from './keys';
import type { KeyStatus, Me } from './types';
import { uploadFile } from './upload';

export const useMe = () => useQuery({ queryKey: qk.me, queryFn: () => api<Me>('/api/me') });

export const useKeyStatus = () =>
  useQuery({ queryKey: qk.keyStatus, queryFn: () => api<KeyStatus>('/api/me/mcp-key') });

export const updateMyName = (name: string | null) => api<Me>('/api/me', { method: 'PATCH', body: { name } });

/** Uploads my avatar (the server stores it as a 256x256 WebP), reporting progress from 0 to 1. */
export const uploadAvatar = (image: File, onProgress: (fraction: number) => void) =>
  uploadFile<{ avatar: string | null }>('/api/me/avatar', image, onProgress);

export const removeMyAvatar = () => api('/api/me/avatar', { method: 'DELETE' });

export const changeMyEmail = (email: string, password: string) =>
  api<Me>('/api/me/email', { method: 'PATCH', body: { email, password } });

/**
 * Changes my password; my other sessions, my API keys (but `keepApiKeys`) and my connected apps
 * end. Answers what ended.
 */
export const changeMyPassword = (currentPassword: string, newPassword: string, keepApiKeys: string[] = []) =>
  api<PasswordChangedOut>('/api/me/password', {
    method: 'PATCH',
    body: { currentPassword, newPassword, ...(keepApiKeys.length > 0 ? { keepApiKeys } : {}) },
  });

/** Creates my API key (shown once; replaces any earlier key). */
export const createApiKey = () =>
  api<{ apiKey: string; createdAt: string }>('/api/me/mcp-key', { method: 'POST' });

export const revokeApiKey = () => api('/api/me/mcp-key', { method: 'DELETE' });

export const deleteMyAccount = (password: string, confirmation: string) =>
  api('/api/me/account', { method: 'DELETE', body: { password, confirmation } });
