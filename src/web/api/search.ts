/**
 * Search (GET /api/search) and saved views: the queries the search page, the palette and the sidebar
 * share, the views' writes and the search page's bulk change.
 */
import {
  keepPreviousData,
  type QueryClient,
  useInfiniteQuery,
  useMutation,
  useQuery,
  useQueryClient,
} from '@tanstack/react-query';
import type { CreateViewBody, SearchOut, UpdateViewBody, ViewOut } from '../../shared/search.js';
import { api, enc } from './client';
import { qk } from './keys';
import { bulkUpdateTickets, type TicketPatch } from './tickets';

export type SearchPage = SearchOut;
export type SearchItem = SearchOut['items'][number];
export type View = ViewOut;

const searchPath = (q: string, limit: number, cursor?: string | null) =>
  `/api/search?q=${enc(q)}&limit=${limit}${cursor ? `&cursor=${enc(cursor)}` : ''}`;

/** One page of results (the palette): the previous answer stays while the next one loads. */
export const useSearchPreview = (q: string, limit = 8, enabled = true) =>
  useQuery({
    queryKey: qk.search(q, limit),
    queryFn: ({ signal }) => api<SearchPage>(searchPath(q, limit), { signal }),
    enabled,
    placeholderData: keepPreviousData,
    staleTime: 5_000,
    retry: false,
  });

/** Every page of a query, following the cursors (the search page's "Load more"). */
export const useSearch = (q: string, limit = 50, enabled = true) =>
  useInfiniteQuery({
    enabled,
    queryKey: [...qk.search(q, limit), 'pages'],
    queryFn: ({ pageParam, signal }) => api<SearchPage>(searchPath(q, limit, pageParam), { signal }),
    initialPageParam: null as string | null,
    getNextPageParam: (last) => last.nextCursor,
    placeholderData: keepPreviousData,
    retry: false,
  });

export const useViews = () =>
  useQuery({ queryKey: qk.views, queryFn: ({ signal }) => api<View[]>('/api/views', { signal }) });

/** A view's writes resolve once the views are read again (the sidebar and the page show the change). */
const refreshViews = (qc: QueryClient) => qc.invalidateQueries({ queryKey: qk.views });

export function useCreateView() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (body: CreateViewBody) => api<View>('/api/views', { method: 'POST', body }),
    onSuccess: () => refreshViews(qc),
  });
}

export function useUpdateView() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ id, body }: { id: string; body: UpdateViewBody }) =>
      api<View>(`/api/views/${enc(id)}`, { method: 'PATCH', body }),
    onSuccess: () => refreshViews(qc),
  });
}

export function useDeleteView() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => api(`/api/views/${enc(id)}`, { method: 'DELETE' }),
    onSuccess: () => refreshViews(qc),
  });
}

/**
 * One change to search results from any projects: one all-or-nothing bulk update per project, in
 * turn. Whether it went through or not, the searches and those projects' boards are read again
 * before it resolves.
 */
export function useBulkUpdateResults() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: async ({ tickets, updates }: { tickets: SearchItem[]; updates: TicketPatch }) => {
      for (const [projectId, ids] of byProject(tickets)) await bulkUpdateTickets(projectId, ids, updates);
    },
    onSettled: async (_data, _err, { tickets }) => {
      await qc.invalidateQueries({ queryKey: ['search'] });
      for (const projectId of byProject(tickets).keys())
        await qc.invalidateQueries({ queryKey: qk.tickets(projectId) });
    },
  });
}

function byProject(tickets: SearchItem[]) {
  const out = new Map<string, string[]>();
  for (const t of tickets) out.set(t.projectId, [...(out.get(t.projectId) ?? []), t.id]);
  return out;
}
