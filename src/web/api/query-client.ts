/**
 * The app's one query client: the cache every read fills and every mutation hook of `src/web/api`
 * keeps current (docs/decisions/059-writes-as-mutation-hooks.md).
 */
import {
  onlineManager,
  QueryClient,
  type QueryKey,
  useIsMutating,
  useQueryClient,
} from '@tanstack/react-query';
import { useSyncExternalStore } from 'react';
import { ApiError } from './client';

export const queryClient = new QueryClient({
  defaultOptions: {
    queries: {
      staleTime: 15_000,
      refetchOnWindowFocus: false,
      // Client errors (401, 403, 404) do not get better by retrying.
      retry: (count, err) => !(err instanceof ApiError && err.status >= 400 && err.status < 500) && count < 2,
    },
    mutations: {
      // A write someone waits on (a form, a dialog) is sent at once and fails at once when the
      // browser is offline. The optimistic ticket writes opt in to waiting for the connection
      // (`QUEUED_OFFLINE`).
      networkMode: 'always',
    },
  },
});

/**
 * For a write that already shows on the page (optimistic): while the browser is offline it waits in
 * the client's queue and is sent, in order, when the connection is back (the offline indicator
 * counts it).
 */
export const QUEUED_OFFLINE = { networkMode: 'online' } as const;

/** Requests in flight, on <html data-busy>, so that browser tests can wait for a quiet page. */
export function markBusyRequests(client: QueryClient = queryClient) {
  const markBusy = () => {
    document.documentElement.dataset.busy = String(client.isFetching() + client.isMutating());
  };
  client.getQueryCache().subscribe(markBusy);
  client.getMutationCache().subscribe(markBusy);
  markBusy();
}

/** Marks these reads stale, so that the screens showing them read them again. */
export const invalidate = (qc: QueryClient, ...keys: QueryKey[]) =>
  Promise.all(keys.map((queryKey) => qc.invalidateQueries({ queryKey })));

/**
 * The optimistic half of a write: stops the reads of `key` in flight (their answer would bring the
 * old value back), applies `change` to every cached entry under it, and returns what puts them back.
 */
export async function optimistic<T>(
  qc: QueryClient,
  key: QueryKey,
  change: (data: T | undefined) => T | undefined,
): Promise<() => void> {
  await qc.cancelQueries({ queryKey: key });
  const before = qc.getQueriesData<T>({ queryKey: key });
  qc.setQueriesData<T>({ queryKey: key }, change);
  return () => {
    for (const [k, data] of before) qc.setQueryData(k, data);
  };
}

const useOnline = () =>
  useSyncExternalStore(
    (notify) => onlineManager.subscribe(notify),
    () => onlineManager.isOnline(),
  );

/** Whether the browser is online, and how many writes wait in the queue for the connection. */
export function useWritesWaiting(): { online: boolean; waiting: number } {
  const online = useOnline();
  const qc = useQueryClient();
  // Re-render whenever the set of mutations changes; the count of paused ones is read below.
  useIsMutating();
  const waiting = qc
    .getMutationCache()
    .getAll()
    .filter((m) => m.state.isPaused).length;
  return { online, waiting };
}
