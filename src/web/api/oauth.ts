/** OAuth sign-in of MCP clients: the consent page's requests and my grants (docs/mcp.md). */
import { useQuery } from '@tanstack/react-query';
import type { z } from 'zod';
import type { authorizationCheckOut, oauthGrantItemOut } from '../../shared/oauth.js';
import { api } from './client';

export type AuthorizationCheck = z.infer<typeof authorizationCheckOut>;
export type OAuthGrantItem = z.infer<typeof oauthGrantItemOut>;

/** What the consent page shows for the request in its address (the client's own parameters). */
export const checkAuthorization = (search: string) =>
  api<AuthorizationCheck>(`/api/oauth/authorization?${new URLSearchParams(search)}`);

/** The user's answer; resolves to where the browser goes back to the client. */
export const decideAuthorization = (search: string, approve: boolean, grantScope?: 'read' | 'write') =>
  api<{ redirectTo: string }>('/api/oauth/authorization', {
    method: 'POST',
    body: {
      ...Object.fromEntries(new URLSearchParams(search)),
      approve,
      ...(grantScope ? { grantScope } : {}),
    },
  });

export const oauthGrantsKey = ['my-oauth-grants'] as const;

export const useMyOAuthGrants = () =>
  useQuery({ queryKey: oauthGrantsKey, queryFn: () => api<OAuthGrantItem[]>('/api/me/oauth-grants') });

export const revokeMyOAuthGrant = (id: string) =>
  api(`/api/me/oauth-grants/${encodeURIComponent(id)}`, { method: 'DELETE' });
