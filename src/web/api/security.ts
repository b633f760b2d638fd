/** My sessions, scoped API keys and, for administrators, the audit log (issue 19). */
import { useQuery } from '@tanstack/react-query';
import type { z } from 'zod';
import type {
  apiKeyItemOut,
  auditEntryOut,
  auditPageOut,
  createApiKeyBody,
  createdApiKeyOut,
  securitySettingsOut,
  sessionItemOut,
} from '../../shared/security.js';
import { api } from './client';

export type SessionItem = z.infer<typeof sessionItemOut>;

export const sessionsKey = ['my-sessions'] as const;

export const useMySessions = () =>
  useQuery({ queryKey: sessionsKey, queryFn: () => api<SessionItem[]>('/api/me/sessions') });

/** Ends one of my sessions (my own signs me out). */
export const endMySession = (id: string) =>
  api(`/api/me/sessions/${encodeURIComponent(id)}`, { method: 'DELETE' });

/** Ends every session of mine but this one. */
export const endMyOtherSessions = () =>
  api<{ success: true; ended: number }>('/api/me/sessions', { method: 'DELETE' });

export type ApiKeyItem = z.infer<typeof apiKeyItemOut>;
export type CreatedApiKey = z.infer<typeof createdApiKeyOut>;

export const apiKeysKey = ['my-api-keys'] as const;

export const useMyApiKeys = () =>
  useQuery({ queryKey: apiKeysKey, queryFn: () => api<ApiKeyItem[]>('/api/me/api-keys') });

/** Creates a key; the key itself is in this answer only. */
export const createMyApiKey = (body: z.input<typeof createApiKeyBody>) =>
  api<CreatedApiKey>('/api/me/api-keys', { method: 'POST', body });

export const revokeMyApiKey = (id: string) =>
  api(`/api/me/api-keys/${encodeURIComponent(id)}`, { method: 'DELETE' });

export type AuditEntry = z.infer<typeof auditEntryOut>;
export type AuditPage = z.infer<typeof auditPageOut>;

/** One page of the audit log (administrators). */
export const fetchAuditPage = (filters: { actor?: string; action?: string; cursor?: string | null }) => {
  const q = new URLSearchParams({ limit: '50' });
  if (filters.actor) q.set('actor', filters.actor);
  if (filters.action) q.set('action', filters.action);
  if (filters.cursor) q.set('cursor', filters.cursor);
  return api<AuditPage>(`/api/admin/audit?${q}`);
};

export const twoFactorKey = ['my-two-factor'] as const;

export const useMyTwoFactor = () =>
  useQuery({
    queryKey: twoFactorKey,
    queryFn: () => api<{ enabled: boolean; recoveryCodesLeft: number }>('/api/me/two-factor'),
  });

/** A new secret to add to an authenticator app (not in use until enabled). */
export const startTwoFactor = () =>
  api<{ secret: string; otpauthUrl: string }>('/api/me/two-factor', { method: 'POST' });

/** Turns two-factor sign-in on; answers the recovery codes, once. */
export const enableTwoFactor = (code: string) =>
  api<{ recoveryCodes: string[] }>('/api/me/two-factor/enable', { method: 'POST', body: { code } });

export const disableTwoFactor = (password: string, code: string) =>
  api('/api/me/two-factor', { method: 'DELETE', body: { password, code } });

export const securitySettingsKey = ['admin-security'] as const;

type SecuritySettings = z.infer<typeof securitySettingsOut>;

export const useSecuritySettings = () =>
  useQuery({
    queryKey: securitySettingsKey,
    queryFn: () => api<SecuritySettings>('/api/admin/security'),
  });

export const setRequireTwoFactor = (requireTwoFactor: boolean) =>
  api<SecuritySettings>('/api/admin/security', { method: 'PATCH', body: { requireTwoFactor } });

/** New accounts confirmed by e-mail before they exist (refused without e-mail configured). */
export const setRequireEmailConfirmation = (requireEmailConfirmation: boolean) =>
  api<SecuritySettings>('/api/admin/security', { method: 'PATCH', body: { requireEmailConfirmation } });
