import { useMemo, useState } from 'react';
import { useLocation } from 'wouter';
import { NOTIFICATION_TYPES, notificationHeadline } from '../../shared/mentions';
import { errorText } from '../api/client';
import {
  type Notification,
  type NotificationType,
  useMarkRead,
  useNotifications,
} from '../api/notifications';
import { fullTime, relativeTime } from '../components/time';
import { Button, EmptyState, ErrorState, Skeleton } from '../components/ui';
import { PageHeader } from './projects';

export const TYPE_LABELS: Record<NotificationType, string> = {
  mentioned: 'Mentions',
  assigned: 'Assigned',
  commented: 'Comments',
  updated: 'Changes',
  added_to_project: 'Projects',
  sprint_started: 'Sprint started',
  sprint_completed: 'Sprint completed',
  webhook_disabled: 'Webhooks',
};

function Row({ n, onOpen, onRead }: { n: Notification; onOpen: () => void; onRead: () => void }) {
  const unread = !n.readAt;
  return (
    <li
      data-testid="notification"
      data-unread={unread ? 'true' : 'false'}
      className={`flex items-start gap-3 border-b border-line px-4 py-2.5 ${unread ? 'bg-surface' : ''}`}
    >
      <span
        aria-hidden="true"
        className={`mt-1.5 h-2 w-2 shrink-0 rounded-full ${unread ? 'bg-accent' : 'bg-transparent'}`}
      />
      <button type="button" onClick={onOpen} className="min-w-0 flex-1 text-left">
        <span className={`block truncate ${unread ? 'font-medium text-fg' : 'text-muted'}`}>
          {notificationHeadline(n)}
          {n.ticket && (
            <>
              {' · '}
              <span className="text-faint">{n.ticket.key}</span> {n.ticket.title}
            </>
          )}
          {n.count > 1 && <span className="ml-1 text-[11px] text-faint">({n.count} changes)</span>}
        </span>
        {n.excerpt && <span className="block truncate text-[12px] text-muted">{n.excerpt}</span>}
      </button>
      <time className="shrink-0 text-[12px] text-faint" dateTime={n.updatedAt} title={fullTime(n.updatedAt)}>
        {relativeTime(n.updatedAt)}
      </time>
      {unread && (
        <Button
          size="sm"
          variant="ghost"
          onClick={onRead}
          aria-label={`Mark read: ${notificationHeadline(n)}`}
        >
          Mark read
        </Button>
      )}
    </li>
  );
}

/** The inbox: unread first, then the rest, newest activity first in each; filters by type. */
export function InboxPage() {
  const [type, setType] = useState<NotificationType | ''>('');
  const list = useNotifications(type);
  const markRead = useMarkRead().mutate;
  const [, navigate] = useLocation();
  const items = useMemo(() => list.data?.pages.flatMap((p) => p.items) ?? [], [list.data]);
  const unread = items.filter((n) => !n.readAt);
  const read = items.filter((n) => n.readAt);
  const open = (n: Notification) => {
    if (!n.readAt) markRead([n.id]);
    navigate(n.ticket ? `/projects/${n.project.key}/${n.ticket.key}` : `/projects/${n.project.key}`);
  };
  const section = (title: string, rows: Notification[]) =>
    rows.length > 0 && (
      <section aria-label={title}>
        <h2 className="border-b border-line bg-subtle px-4 py-1.5 text-[11px] font-medium tracking-wide text-faint uppercase">
          {title}
        </h2>
        <ul>
          {rows.map((n) => (
            <Row key={n.id} n={n} onOpen={() => open(n)} onRead={() => markRead([n.id])} />
          ))}
        </ul>
      </section>
    );
  return (
    <div className="flex h-full flex-col">
      <PageHeader title="Inbox">
        <Button size="sm" disabled={unread.length === 0} onClick={() => markRead('all')}>
          Mark all read
        </Button>
      </PageHeader>
      <fieldset className="flex flex-wrap gap-1 border-b border-line px-4 py-2">
        <legend className="sr-only">Filter by type</legend>
        {(['', ...NOTIFICATION_TYPES] as const).map((t) => (
          <button
            key={t || 'all'}
            type="button"
            aria-pressed={type === t}
            onClick={() => setType(t)}
            className={`rounded-md px-2 py-1 text-[12px] ${type === t ? 'bg-accent-soft font-medium text-fg' : 'text-muted hover:bg-hover'}`}
          >
            {t ? TYPE_LABELS[t] : 'All'}
          </button>
        ))}
      </fieldset>
      <div className="min-h-0 flex-1 overflow-y-auto" data-testid="inbox">
        {list.isPending && (
          <div className="flex flex-col gap-2 p-4">
            {[0, 1, 2].map((i) => (
              <Skeleton key={i} className="h-10" />
            ))}
          </div>
        )}
        {list.isError && <ErrorState message={errorText(list.error)} onRetry={() => list.refetch()} />}
        {list.isSuccess && items.length === 0 && (
          <EmptyState title="Nothing here">
            You are told here when someone assigns you, mentions you, or changes what you watch.
          </EmptyState>
        )}
        {section('Unread', unread)}
        {section('Earlier', read)}
        {list.hasNextPage && (
          <div className="p-3 text-center">
            <Button size="sm" disabled={list.isFetchingNextPage} onClick={() => list.fetchNextPage()}>
              Show more
            </Button>
          </div>
        )}
      </div>
    </div>
  );
}
