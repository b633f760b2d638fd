/** Signing in, registering and out, and the current session. */
import { type QueryClient, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import type { z } from 'zod';
import type {
  authOptionsOut,
  forgotPasswordBody,
  registerBody,
  resetPasswordBody,
} from '../../shared/accounts.js';
import { api, onUnauthorized } from './client';
import { qk } from './keys';
import type { Session } from './types';

const fetchSession = () => api<Session>('/api/auth/session', { quiet401: true });

export const useSession = () => useQuery({ queryKey: qk.session, queryFn: fetchSession, staleTime: 60_000 });

/** What the sign-in page offers: single sign-on, forgotten passwords, registration. */
export const useAuthOptions = () =>
  useQuery({
    queryKey: qk.authOptions,
    queryFn: () => api<z.infer<typeof authOptionsOut>>('/api/auth/options'),
    staleTime: 5 * 60_000,
  });

/**
 * This browser's session has ended (signed out, the account deleted, the database replaced): nothing
 * of the last user stays in the cache, the writes still queued are dropped, and the app shows the
 * sign-in page.
 */
export function sessionEnded(qc: QueryClient) {
  qc.clear();
  qc.setQueryData(qk.session, {});
}

/** A new session: the cache starts empty and holds the new session before the app goes on. */
async function sessionStarted(qc: QueryClient) {
  qc.clear();
  await qc.fetchQuery({ queryKey: qk.session, queryFn: fetchSession });
}

/** Signs in with a password (and the two-factor code when the server asked for one). */
export function useSignIn() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ username, password, code }: { username: string; password: string; code?: string }) =>
      api('/api/auth/callback/credentials', {
        method: 'POST',
        body: { username, password, ...(code ? { code } : {}) },
        quiet401: true,
      }),
    onSuccess: () => sessionStarted(qc),
  });
}

export function useRegister() {
  return useMutation({
    mutationFn: (body: z.input<typeof registerBody>) => api('/api/auth/register', { method: 'POST', body }),
  });
}

/** Signs out; the session ends here even when the server had ended it already. */
export function useSignOut() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: () => api('/api/auth/signout', { method: 'POST', body: {} }),
    onSettled: () => sessionEnded(qc),
  });
}

export function useForgotPassword() {
  return useMutation({
    mutationFn: (body: z.input<typeof forgotPasswordBody>) =>
      api('/api/auth/forgot', { method: 'POST', body }),
  });
}

/** Sets a new password from an e-mailed link; every session of the account ends. */
export function useResetPassword() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (body: z.input<typeof resetPasswordBody>) => api('/api/auth/reset', { method: 'POST', body }),
    onSuccess: () => qc.clear(),
  });
}

/**
 * Any request answered 401 means the session is gone: the app shows the sign-in page, saying that
 * the session expired when someone was signed in.
 */
export function useSignedOutOn401() {
  const qc = useQueryClient();
  useEffect(
    () =>
      onUnauthorized(() => {
        const s = qc.getQueryData<{ user?: unknown }>(qk.session);
        if (s?.user) sessionStorage.setItem('docket-expired', '1');
        qc.setQueryData(qk.session, {});
      }),
    [qc],
  );
}
