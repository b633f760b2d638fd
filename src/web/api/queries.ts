import { type QueryClient, useQuery } from '@tanstack/react-query';
import { api, enc, listAll } from './client';
import type {
  Attachment,
  Column,
  Comment,
  FullTicket,
  HistoryEntry,
  Label,
  Member,
  Project,
  Session,
  Sprint,
  Ticket,
  UploadConfig,
  UserSummary,
} from './types';

/** Query keys, in one place so that event handlers and mutations address the same cache entries. */
export const qk = {
  session: ['session'] as const,
  projects: ['projects'] as const,
  project: (ref: string) => ['project', ref.toUpperCase()] as const,
  columns: (projectId: string) => ['columns', projectId] as const,
  tickets: (projectId: string) => ['tickets', projectId] as const,
  members: (projectId: string) => ['members', projectId] as const,
  labels: (projectId: string) => ['labels', projectId] as const,
  sprints: (projectId: string) => ['sprints', projectId] as const,
  ticket: (projectId: string, ref: string) => ['ticket', projectId, ref.toUpperCase()] as const,
  comments: (ticketId: string) => ['comments', ticketId] as const,
  attachments: (ticketId: string) => ['attachments', ticketId] as const,
  history: (ticketId: string) => ['history', ticketId] as const,
  uploadConfig: ['upload-config'] as const,
  users: (search: string) => ['users', search] as const,
};

export const useSession = () =>
  useQuery({
    queryKey: qk.session,
    queryFn: () => api<Session>('/api/auth/session', { quiet401: true }),
    staleTime: 60_000,
  });

export const useProjects = (enabled = true) =>
  useQuery({
    queryKey: qk.projects,
    queryFn: ({ signal }) => listAll<Project>('/api/projects', signal),
    enabled,
  });

/** A project by key or id: from the list when it is there, else read on its own (404 for non-members). */
export function useProject(ref: string, qc: QueryClient) {
  return useQuery({
    queryKey: qk.project(ref),
    queryFn: () => api<Project>(`/api/projects/${enc(ref)}`),
    initialData: () =>
      qc
        .getQueryData<Project[]>(qk.projects)
        ?.find((p) => p.key.toUpperCase() === ref.toUpperCase() || p.id === ref),
    staleTime: 30_000,
  });
}

export const useColumns = (projectId: string | undefined) =>
  useQuery({
    queryKey: qk.columns(projectId ?? ''),
    queryFn: async ({ signal }) =>
      (await listAll<Column>(`/api/projects/${enc(projectId!)}/columns`, signal)).sort(
        (a, b) => a.order - b.order,
      ),
    enabled: !!projectId,
  });

export const useTickets = (projectId: string | undefined) =>
  useQuery({
    queryKey: qk.tickets(projectId ?? ''),
    queryFn: ({ signal }) => listAll<Ticket>(`/api/projects/${enc(projectId!)}/tickets`, signal),
    enabled: !!projectId,
  });

export const useMembers = (projectId: string | undefined) =>
  useQuery({
    queryKey: qk.members(projectId ?? ''),
    queryFn: ({ signal }) => listAll<Member>(`/api/projects/${enc(projectId!)}/members`, signal),
    enabled: !!projectId,
  });

export const useLabels = (projectId: string | undefined) =>
  useQuery({
    queryKey: qk.labels(projectId ?? ''),
    queryFn: ({ signal }) => listAll<Label>(`/api/projects/${enc(projectId!)}/labels`, signal),
    enabled: !!projectId,
  });

/** Sprints; a project whose sprint endpoints are unavailable simply has none to filter by. */
export const useSprints = (projectId: string | undefined) =>
  useQuery({
    queryKey: qk.sprints(projectId ?? ''),
    queryFn: ({ signal }) => listAll<Sprint>(`/api/projects/${enc(projectId!)}/sprints`, signal),
    enabled: !!projectId,
    retry: false,
  });

export const useTicket = (projectId: string | undefined, ref: string | undefined) =>
  useQuery({
    queryKey: qk.ticket(projectId ?? '', ref ?? ''),
    queryFn: () => api<FullTicket>(`/api/projects/${enc(projectId!)}/tickets/${enc(ref!)}`),
    enabled: !!projectId && !!ref,
  });

export const useComments = (projectId: string, ticketId: string | undefined) =>
  useQuery({
    queryKey: qk.comments(ticketId ?? ''),
    queryFn: ({ signal }) =>
      listAll<Comment>(`/api/projects/${enc(projectId)}/tickets/${enc(ticketId!)}/comments`, signal),
    enabled: !!ticketId,
  });

export const useAttachments = (projectId: string, ticketId: string | undefined) =>
  useQuery({
    queryKey: qk.attachments(ticketId ?? ''),
    queryFn: ({ signal }) =>
      listAll<Attachment>(`/api/projects/${enc(projectId)}/tickets/${enc(ticketId!)}/attachments`, signal),
    enabled: !!ticketId,
  });

export const useHistory = (projectId: string, ticketId: string | undefined) =>
  useQuery({
    queryKey: qk.history(ticketId ?? ''),
    queryFn: ({ signal }) =>
      listAll<HistoryEntry>(`/api/projects/${enc(projectId)}/tickets/${enc(ticketId!)}/history`, signal),
    enabled: !!ticketId,
  });

export const useUploadConfig = () =>
  useQuery({
    queryKey: qk.uploadConfig,
    queryFn: () => api<UploadConfig>('/api/upload'),
    staleTime: 300_000,
  });

export const useUserSearch = (search: string, enabled: boolean) =>
  useQuery({
    queryKey: qk.users(search),
    queryFn: () => api<UserSummary[]>(`/api/users?limit=20&search=${enc(search)}`),
    enabled,
  });
