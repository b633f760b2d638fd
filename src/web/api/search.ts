/** Search (GET /api/search) and saved views: the queries the search page, the palette and the sidebar share. */
import { keepPreviousData, useInfiniteQuery, useQuery } from '@tanstack/react-query';
import type { CreateViewBody, SearchOut, UpdateViewBody, ViewOut } from '../../shared/search.js';
import { api, enc } from './client';
import { qk } from './keys';

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

export const createView = (body: CreateViewBody) => api<View>('/api/views', { method: 'POST', body });
export const updateView = (id: string, body: UpdateViewBody) =>
  api<View>(`/api/views/${enc(id)}`, { method: 'PATCH', body });
export const deleteView = (id: string) => api(`/api/views/${enc(id)}`, { method: 'DELETE' });
