/** Other users, for the member and assignee pickers; the upload limits. */
import { useQuery } from '@tanstack/react-query';
import { api, enc } from './client';
import { qk } from './keys';
import type { UploadConfig, UserSummary } from './types';

export const useUserSearch = (search: string, enabled: boolean) =>
  useQuery({
    queryKey: qk.users(search),
    queryFn: () => api<UserSummary[]>(`/api/users?limit=20&search=${enc(search)}`),
    enabled,
  });

export const useUploadConfig = () =>
  useQuery({
    queryKey: qk.uploadConfig,
    queryFn: () => api<UploadConfig>('/api/upload'),
    staleTime: 300_000,
  });
