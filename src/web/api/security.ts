/** My sessions, scoped API keys, two-factor sign-in and, for administrators, the audit log and its setting (issue 19). */
import { useInfiniteQuery, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { z } from 'zod';
import type {
  apiKeyItemOut,
  auditEntryOut,
  auditPageOut,
  createApiKeyBody,
  createdApiKeyOut,
  sessionItemOut,
} from '../../shared/security.js';
import { api } from './client';
import { sessionEnded } from './session';

export type SessionItem = z.infer<typeof sessionItemOut>;

export const sessionsKey = ['my-sessions'] as const;

export const useMySessions = () =>
  useQuery({ queryKey: sessionsKey, queryFn: () => api<SessionItem[]>('/api/me/sessions') });

/** Ends one of my sessions; ending this one signs me out here. */
export function useEndMySession() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (session: Pick<SessionItem, 'id' | 'current'>) =>
      api(`/api/me/sessions/${encodeURIComponent(session.id)}`, { method: 'DELETE' }),
    onSuccess: (_, session) => {
      if (session.current) sessionEnded(qc);
      else return qc.invalidateQueries({ queryKey: sessionsKey });
    },
  });
}

/** Ends every session of mine but this one. */
export function useEndMyOtherSessions() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: () => api<{ success: true; ended: number }>('/api/me/sessions', { method: 'DELETE' }),
    onSuccess: () => qc.invalidateQueries({ queryKey: sessionsKey }),
  });
}

export type ApiKeyItem = z.infer<typeof apiKeyItemOut>;
export type CreatedApiKey = z.infer<typeof createdApiKeyOut>;

export const apiKeysKey = ['my-api-keys'] as const;

export const useMyApiKeys = () =>
  useQuery({ queryKey: apiKeysKey, queryFn: () => api<ApiKeyItem[]>('/api/me/api-keys') });

/** Creates a key; the key itself is in this answer only. */
export function useCreateMyApiKey() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (body: z.input<typeof createApiKeyBody>) =>
      api<CreatedApiKey>('/api/me/api-keys', { method: 'POST', body }),
    onSuccess: () => qc.invalidateQueries({ queryKey: apiKeysKey }),
  });
}

export function useRevokeMyApiKey() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => api(`/api/me/api-keys/${encodeURIComponent(id)}`, { method: 'DELETE' }),
    onSuccess: () => qc.invalidateQueries({ queryKey: apiKeysKey }),
  });
}

export type AuditEntry = z.infer<typeof auditEntryOut>;
export type AuditPage = z.infer<typeof auditPageOut>;

/** One page of the audit log (administrators). */
const fetchAuditPage = (filters: { actor?: string; action?: string; cursor?: string | null }) => {
  const q = new URLSearchParams({ limit: '50' });
  if (filters.actor) q.set('actor', filters.actor);
  if (filters.action) q.set('action', filters.action);
  if (filters.cursor) q.set('cursor', filters.cursor);
  return api<AuditPage>(`/api/admin/audit?${q}`);
};

/** The audit log, newest first, filtered by actor and action; pages on with `fetchNextPage`. */
export const useAuditLog = (filters: { actor?: string; action?: string }) =>
  useInfiniteQuery({
    queryKey: ['admin-audit', filters],
    queryFn: ({ pageParam }) => fetchAuditPage({ ...filters, cursor: pageParam }),
    initialPageParam: null as string | null,
    getNextPageParam: (last) => last.nextCursor,
  });

export const twoFactorKey = ['my-two-factor'] as const;

export const useMyTwoFactor = () =>
  useQuery({
    queryKey: twoFactorKey,
    queryFn: () => api<{ enabled: boolean; recoveryCodesLeft: number }>('/api/me/two-factor'),
  });

/** A new secret to add to an authenticator app (not in use until enabled). */
export function useStartTwoFactor() {
  return useMutation({
    mutationFn: () => api<{ secret: string; otpauthUrl: string }>('/api/me/two-factor', { method: 'POST' }),
  });
}

/** Turns two-factor sign-in on; answers the recovery codes, once. */
export function useEnableTwoFactor() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (code: string) =>
      api<{ recoveryCodes: string[] }>('/api/me/two-factor/enable', { method: 'POST', body: { code } }),
    onSuccess: () => qc.invalidateQueries({ queryKey: twoFactorKey }),
  });
}

export function useDisableTwoFactor() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ password, code }: { password: string; code: string }) =>
      api('/api/me/two-factor', { method: 'DELETE', body: { password, code } }),
    onSuccess: () => qc.invalidateQueries({ queryKey: twoFactorKey }),
  });
}

export const securitySettingsKey = ['admin-security'] as const;

export const useSecuritySettings = () =>
  useQuery({
    queryKey: securitySettingsKey,
    queryFn: () => api<{ requireTwoFactor: boolean }>('/api/admin/security'),
  });

/** Requires two-factor sign-in of every account, or not (administrators). */
export function useSetRequireTwoFactor() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (requireTwoFactor: boolean) =>
      api<{ requireTwoFactor: boolean }>('/api/admin/security', {
        method: 'PATCH',
        body: { requireTwoFactor },
      }),
    onSuccess: (saved) => qc.setQueryData(securitySettingsKey, saved),
  });
}
