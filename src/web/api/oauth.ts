/** OAuth sign-in of MCP clients: the consent page's requests and my grants (docs/mcp.md). */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { z } from 'zod';
import type { authorizationCheckOut, oauthGrantItemOut } from '../../shared/oauth.js';
import { api } from './client';

export type AuthorizationCheck = z.infer<typeof authorizationCheckOut>;
export type OAuthGrantItem = z.infer<typeof oauthGrantItemOut>;

/** What the consent page shows for the request in its address (the client's own parameters), read once. */
export const useAuthorizationCheck = (search: string) =>
  useQuery({
    queryKey: ['oauth-authorization', search],
    queryFn: () => api<AuthorizationCheck>(`/api/oauth/authorization?${new URLSearchParams(search)}`),
    retry: false,
    staleTime: Number.POSITIVE_INFINITY,
  });

const oauthGrantsKey = ['my-oauth-grants'] as const;

/**
 * The user's answer to the request in `search`; resolves (once my grants are read again) to where
 * the browser goes back to the client.
 */
export function useDecideAuthorization(search: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ approve, grantScope }: { approve: boolean; grantScope?: 'read' | 'write' }) =>
      api<{ redirectTo: string }>('/api/oauth/authorization', {
        method: 'POST',
        body: {
          ...Object.fromEntries(new URLSearchParams(search)),
          approve,
          ...(grantScope ? { grantScope } : {}),
        },
      }),
    onSuccess: () => qc.invalidateQueries({ queryKey: oauthGrantsKey }),
  });
}

export const useMyOAuthGrants = () =>
  useQuery({ queryKey: oauthGrantsKey, queryFn: () => api<OAuthGrantItem[]>('/api/me/oauth-grants') });

export function useRevokeMyOAuthGrant() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => api(`/api/me/oauth-grants/${encodeURIComponent(id)}`, { method: 'DELETE' }),
    onSuccess: () => qc.invalidateQueries({ queryKey: oauthGrantsKey }),
  });
}
