/** Signing in, registering and out, and the current session. */
import { useQuery } from '@tanstack/react-query';
import type { z } from 'zod';
import type {
  authOptionsOut,
  confirmRegistrationBody,
  forgotPasswordBody,
  registerBody,
  registerOut,
  registrationQueuedOut,
  resetPasswordBody,
} from '../../shared/accounts.js';
import { api } from './client';
import { qk } from './keys';
import type { Session } from './types';

export const fetchSession = () => api<Session>('/api/auth/session', { quiet401: true });

export const useSession = () => useQuery({ queryKey: qk.session, queryFn: fetchSession, staleTime: 60_000 });

export const signIn = (username: string, password: string, code?: string) =>
  api('/api/auth/callback/credentials', {
    method: 'POST',
    body: { username, password, ...(code ? { code } : {}) },
    quiet401: true,
  });

/** The account (201), or, with e-mail confirmation on, `{confirmationRequired: true}` (202) whatever happened. */
export const register = (body: z.input<typeof registerBody>) =>
  api<z.infer<typeof registerOut> | z.infer<typeof registrationQueuedOut>>('/api/auth/register', {
    method: 'POST',
    body,
  });

/** Creates a registered account with its confirmation link's token and the chosen password. */
export const confirmRegistration = (body: z.input<typeof confirmRegistrationBody>) =>
  api<z.infer<typeof registerOut>>('/api/auth/confirm', { method: 'POST', body });

export const signOut = () => api('/api/auth/signout', { method: 'POST', body: {} });

/** What the sign-in page offers: single sign-on, forgotten passwords, registration. */
export const useAuthOptions = () =>
  useQuery({
    queryKey: qk.authOptions,
    queryFn: () => api<z.infer<typeof authOptionsOut>>('/api/auth/options'),
    staleTime: 5 * 60_000,
  });

export const forgotPassword = (body: z.input<typeof forgotPasswordBody>) =>
  api('/api/auth/forgot', { method: 'POST', body });

export const resetPassword = (body: z.input<typeof resetPasswordBody>) =>
  api('/api/auth/reset', { method: 'POST', body });
