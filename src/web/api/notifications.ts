/** My notifications (the inbox, the unread badge) and my e-mail preferences (docs/notifications.md). */
import {
  type QueryClient,
  useInfiniteQuery,
  useMutation,
  useQuery,
  useQueryClient,
} from '@tanstack/react-query';
import type { NotificationType } from '../../shared/mentions';
import type {
  NotificationOut,
  NotificationSettingsBody,
  NotificationSettingsOut,
} from '../../shared/notifications';
import { api } from './client';
import { qk } from './keys';
import { optimistic } from './query-client';

export type Notification = NotificationOut;
export type NotificationSettings = NotificationSettingsOut;
export type { NotificationType };

interface Page {
  items: Notification[];
  unreadCount: number;
  nextCursor: string | null;
}

const PAGE = 50;

/** The inbox, newest activity first, optionally one type; pages on with `fetchNextPage`. */
export const useNotifications = (type: NotificationType | '') =>
  useInfiniteQuery({
    queryKey: qk.notificationList(type),
    initialPageParam: '',
    queryFn: ({ pageParam, signal }) => {
      const q = new URLSearchParams({ limit: String(PAGE) });
      if (type) q.set('type', type);
      if (pageParam) q.set('cursor', pageParam);
      return api<Page>(`/api/me/notifications?${q}`, { signal });
    },
    getNextPageParam: (last) => last.nextCursor ?? undefined,
  });

/** The unread count for the badge; kept current by the user stream (useAccountEvents). */
export const useUnreadCount = () =>
  useQuery({
    queryKey: qk.unreadCount,
    queryFn: async ({ signal }) =>
      (await api<Page>('/api/me/notifications?unread=true&limit=1', { signal })).unreadCount,
  });

type Pages = { pages: Page[]; pageParams: unknown[] };

/** Marks read (some notifications, or all) in the lists and the badge at once, then on the server. */
export function useMarkRead() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (ids: string[] | 'all') =>
      api<{ updated: number; unreadCount: number }>('/api/me/notifications/read', {
        method: 'POST',
        body: ids === 'all' ? { all: true } : { ids },
      }),
    onMutate: (ids) => {
      const now = new Date().toISOString();
      let changed = 0;
      qc.setQueriesData<Pages>({ queryKey: qk.notifications }, (data) =>
        data
          ? {
              ...data,
              pages: data.pages.map((p) => ({
                ...p,
                items: p.items.map((n) => {
                  if (n.readAt || (ids !== 'all' && !ids.includes(n.id))) return n;
                  changed++;
                  return { ...n, readAt: now };
                }),
              })),
            }
          : data,
      );
      if (ids === 'all') qc.setQueryData(qk.unreadCount, 0);
      else if (changed > 0)
        qc.setQueryData<number>(qk.unreadCount, (c) => Math.max(0, (c ?? 0) - ids.length));
    },
    onSuccess: (r) => qc.setQueryData(qk.unreadCount, r.unreadCount),
    onSettled: () => {
      qc.invalidateQueries({ queryKey: qk.notifications });
    },
  });
}

/** A notification.created or notification.read event of my user stream. */
export function applyNotificationEvent(qc: QueryClient, type: string, data: { unreadCount?: number }) {
  if (typeof data?.unreadCount === 'number') qc.setQueryData(qk.unreadCount, data.unreadCount);
  if (type === 'notification.created' || type === 'notification.read')
    qc.invalidateQueries({ queryKey: qk.notifications });
}

export const useNotificationSettings = () =>
  useQuery({
    queryKey: qk.notificationSettings,
    queryFn: ({ signal }) => api<NotificationSettings>('/api/me/notification-settings', { signal }),
  });

/** Changes my e-mail preferences, shown at once and put back when the server refuses. */
export function useUpdateNotificationSettings() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (body: NotificationSettingsBody) =>
      api<NotificationSettings>('/api/me/notification-settings', { method: 'PATCH', body }),
    onMutate: (patch) =>
      optimistic<NotificationSettings>(qc, qk.notificationSettings, (before) =>
        before ? { ...before, ...patch, types: { ...before.types, ...patch.types } } : before,
      ),
    onError: (_err, _patch, rollback) => rollback?.(),
    onSuccess: (saved) => qc.setQueryData(qk.notificationSettings, saved),
  });
}
