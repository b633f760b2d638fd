import { type QueryClient, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef } from 'react';
import { useLocation } from 'wouter';
import type { AnyEvent } from '../../shared/events';
import { removeTicket, upsertTicket } from './cache';
import { api, reportSignedOut, TAB_ID, url } from './client';
import { planningKeys, qk } from './keys';
import { applyNotificationEvent } from './notifications';
import type { FullTicket, Project, Session, Ticket } from './types';

type Handler = (ev: AnyEvent) => void;

/** Open streams, listed on <html data-streams> so that tests (and curious people) can see what is live. */
const openStreams = new Set<string>();
function markStream(path: string, open: boolean) {
  if (open) openStreams.add(path);
  else openStreams.delete(path);
  document.documentElement.dataset.streams = [...openStreams].join(' ');
}

/**
 * One server-sent event stream. The browser's EventSource reconnects by itself and resends
 * Last-Event-ID, so missed events are replayed. When the server refuses the stream (the session
 * ended, or access was lost) the source closes: then the session is checked, and the stream is
 * opened again after a pause with a full refresh (`onResync`), since the replay position is lost.
 */
export function useEventStream(
  path: string | null,
  onEvent: Handler,
  onResync: () => void,
  onSignedOut: () => void,
) {
  const handlers = useRef({ onEvent, onResync, onSignedOut });
  handlers.current = { onEvent, onResync, onSignedOut };
  useEffect(() => {
    if (!path || typeof EventSource === 'undefined') return;
    let source: EventSource | null = null;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let stopped = false;
    let attempt = 0;

    // Every frame is a plain `data:` line holding the whole envelope (no `event:` line).
    const dispatch = (msg: MessageEvent) => {
      let env: AnyEvent;
      try {
        env = JSON.parse(msg.data);
      } catch {
        return;
      }
      if (!env || typeof env !== 'object' || typeof env.type !== 'string') return;
      if (env.type === 'resync') return handlers.current.onResync();
      if (env.tabId && env.tabId === TAB_ID && !env.type.startsWith('database.')) return;
      handlers.current.onEvent(env);
    };

    const open = () => {
      source = new EventSource(url(path), { withCredentials: true });
      source.onopen = () => {
        markStream(path, true);
        if (attempt > 0) handlers.current.onResync();
        attempt = 0;
      };
      source.onmessage = dispatch;
      source.onerror = () => {
        markStream(path, false);
        if (!source || source.readyState !== EventSource.CLOSED || stopped) return;
        source.close();
        attempt++;
        api<Session>('/api/auth/session', { quiet401: true })
          .then((s) => {
            if (stopped) return;
            if (!s.user) return handlers.current.onSignedOut();
            timer = setTimeout(open, Math.min(30_000, 1000 * 2 ** Math.min(attempt, 5)));
          })
          .catch(() => {
            if (!stopped) timer = setTimeout(open, Math.min(30_000, 1000 * 2 ** Math.min(attempt, 5)));
          });
      };
    };
    open();
    return () => {
      stopped = true;
      clearTimeout(timer);
      source?.close();
      markStream(path, false);
    };
  }, [path]);
}

const ticketIdOf = (data: any): string | undefined => data?.ticketId ?? data?.ticket?.id;

function invalidateTicketDetail(qc: QueryClient, projectId: string, ticketId?: string) {
  qc.invalidateQueries({
    queryKey: ['ticket', projectId],
    predicate: (q) => !ticketId || (q.state.data as FullTicket | undefined)?.id === ticketId,
  });
}

/** Applies one project-stream event to the cache. */
export function applyProjectEvent(qc: QueryClient, projectId: string, ev: AnyEvent) {
  const d: any = ev.data ?? {};
  // The reports are computed from the sprints and their tickets.
  if (ev.type.startsWith('sprint.') || ev.type.startsWith('ticket.')) {
    qc.invalidateQueries({ queryKey: ['burndown', projectId] });
    qc.invalidateQueries({ queryKey: qk.velocity(projectId) });
  }
  // The planning pages count tickets by column and place them by date.
  if (ev.type.startsWith('ticket.') || ev.type.startsWith('column.') || ev.type === 'sprint.updated') {
    for (const key of planningKeys(projectId)) qc.invalidateQueries({ queryKey: key });
  }
  if (ev.type === 'sprint.updated') qc.invalidateQueries({ queryKey: qk.sprintSettings(projectId) });
  // A deletion fills the trash; a restore (sent as ticket.created) empties it (decision 048).
  if (ev.type === 'ticket.deleted' || ev.type === 'ticket.created')
    qc.invalidateQueries({ queryKey: ['trash', projectId] });
  switch (ev.type) {
    case 'ticket.created':
    case 'ticket.updated':
    case 'ticket.moved': {
      if (d.id)
        qc.setQueryData<Ticket[]>(qk.tickets(projectId), (list) => (list ? upsertTicket(list, d) : list));
      if (ev.type !== 'ticket.created') {
        qc.setQueriesData<FullTicket>({ queryKey: ['ticket', projectId] }, (t) => {
          if (!t || t.id !== d.id) return t;
          const { labels, assignee, watchers, column, sprint, ...plain } = d;
          return { ...t, ...plain };
        });
        invalidateTicketDetail(qc, projectId, d.id);
        if (d.id) qc.invalidateQueries({ queryKey: qk.history(d.id) });
      }
      // A subtask's parent shows it, so the parent's view refreshes too.
      if (d.parentId) invalidateTicketDetail(qc, projectId, d.parentId);
      return;
    }
    case 'ticket.deleted':
      if (d.id)
        qc.setQueryData<Ticket[]>(qk.tickets(projectId), (list) => (list ? removeTicket(list, d.id) : list));
      qc.invalidateQueries({ queryKey: ['ticket', projectId] });
      return;
    case 'label.created':
    case 'label.updated':
    case 'label.deleted':
      qc.invalidateQueries({ queryKey: qk.labels(projectId) });
      if (ev.type !== 'label.created') {
        qc.invalidateQueries({ queryKey: qk.tickets(projectId) });
        qc.invalidateQueries({ queryKey: ['ticket', projectId] });
      }
      return;
    case 'template.created':
    case 'template.updated':
    case 'template.deleted':
      qc.invalidateQueries({ queryKey: qk.templates(projectId) });
      return;
    case 'column.created':
    case 'column.updated':
    case 'column.deleted':
      qc.invalidateQueries({ queryKey: qk.columns(projectId) });
      if (ev.type === 'column.deleted') qc.invalidateQueries({ queryKey: qk.tickets(projectId) });
      return;
    case 'member.added':
    case 'member.updated':
    case 'member.removed':
      qc.invalidateQueries({ queryKey: qk.members(projectId) });
      return;
    case 'comment.created':
    case 'comment.updated':
    case 'comment.deleted': {
      const tid = ticketIdOf(d);
      qc.invalidateQueries({ queryKey: tid ? qk.comments(tid) : ['comments'] });
      invalidateTicketDetail(qc, projectId, tid);
      return;
    }
    case 'attachment.added':
    case 'attachment.deleted': {
      const tid = ticketIdOf(d);
      qc.invalidateQueries({ queryKey: tid ? qk.attachments(tid) : ['attachments'] });
      invalidateTicketDetail(qc, projectId, tid);
      return;
    }
    case 'link.created':
    case 'link.deleted':
      invalidateTicketDetail(qc, projectId);
      return;
    case 'project.imported':
      // An import writes many tickets at once: read the board again.
      for (const key of [
        qk.tickets(projectId),
        qk.columns(projectId),
        qk.labels(projectId),
        qk.sprints(projectId),
      ])
        qc.invalidateQueries({ queryKey: key });
      qc.invalidateQueries({ queryKey: ['ticket', projectId] });
      return;
    default:
      if (ev.type.startsWith('sprint.')) {
        qc.invalidateQueries({ queryKey: qk.sprints(projectId) });
        if (ev.type === 'sprint.completed' || ev.type === 'sprint.deleted')
          qc.invalidateQueries({ queryKey: qk.tickets(projectId) });
      } else if (ev.type === 'project.updated' || ev.type === 'project.deleted') {
        applyProjectListEvent(qc, ev);
      }
  }
}

/** Applies one project-list event to the cache. */
export function applyProjectListEvent(qc: QueryClient, ev: AnyEvent) {
  const d: any = ev.data ?? {};
  const sortByName = (a: Project, b: Project) => a.name.localeCompare(b.name);
  if (ev.type === 'project.created' && d.id) {
    qc.setQueryData<Project[]>(qk.projects, (list) =>
      list && !list.some((p) => p.id === d.id) ? [...list, d].sort(sortByName) : list,
    );
  } else if (ev.type === 'project.updated' && d.id) {
    qc.setQueryData<Project[]>(qk.projects, (list) =>
      list?.map((p) => (p.id === d.id ? { ...p, ...d } : p)).sort(sortByName),
    );
    qc.invalidateQueries({ queryKey: ['project'] });
  } else if (ev.type === 'project.deleted' && d.id) {
    qc.setQueryData<Project[]>(qk.projects, (list) => list?.filter((p) => p.id !== d.id));
    qc.removeQueries({ queryKey: ['project'] });
  } else if (ev.type.startsWith('member.')) {
    qc.invalidateQueries({ queryKey: qk.projects });
  }
}

const handledDatabaseEvents = new Set<string>();

/** Handles the two database events, which every stream carries. Returns true when it handled one. */
export function useDatabaseEvents(onWiped: () => void, onProjectsWiped: () => void) {
  const qc = useQueryClient();
  return (ev: AnyEvent): boolean => {
    if (!ev.type.startsWith('database.')) return false;
    // Every stream carries the database events: act on each once.
    const id = `${ev.type}|${ev.timestamp}`;
    if (handledDatabaseEvents.has(id)) return true;
    handledDatabaseEvents.add(id);
    if (ev.type === 'database.wiped') {
      qc.clear();
      onWiped();
      return true;
    }
    if (ev.type === 'database.projects.wiped') {
      onProjectsWiped();
      // Refetch what is on screen, drop the rest: no project, ticket or sprint survived.
      qc.resetQueries({ predicate: (q) => q.queryKey[0] !== 'session' });
      return true;
    }
    return false;
  };
}

/**
 * The live event stream of a project, applied to the cache: every project page (board, backlog,
 * reports, settings) uses it. A deleted project or a wiped database leaves the page; a resync
 * refetches everything of the project.
 */
export function useProjectEvents(projectId: string | undefined) {
  const qc = useQueryClient();
  const [, navigate] = useLocation();
  const onDatabaseEvent = useDatabaseEvents(
    () => navigate('/sign-in', { replace: true }),
    () => navigate('/', { replace: true }),
  );
  useEventStream(
    projectId ? `/api/projects/${projectId}/events` : null,
    (ev) => {
      if (!projectId || onDatabaseEvent(ev)) return;
      if (ev.type === 'project.deleted') {
        navigate('/', { replace: true });
        return;
      }
      applyProjectEvent(qc, projectId, ev);
    },
    () => {
      if (!projectId) return;
      for (const key of [
        qk.tickets(projectId),
        qk.ticketsOf(projectId),
        qk.columns(projectId),
        qk.labels(projectId),
        qk.members(projectId),
        qk.sprints(projectId),
        qk.sprintSettings(projectId),
        ...planningKeys(projectId),
      ])
        qc.invalidateQueries({ queryKey: key });
    },
    reportSignedOut,
  );
}

/**
 * The streams every signed-in page follows: the project list (created, renamed, deleted projects,
 * memberships) and people's profiles (names and avatars shown on boards, tickets and comments).
 * `currentProjectId` is the project on screen, left when it is deleted.
 */
export function useAccountEvents(currentProjectId: string | undefined) {
  const qc = useQueryClient();
  const [, navigate] = useLocation();
  const onDatabaseEvent = useDatabaseEvents(
    () => navigate('/sign-in', { replace: true }),
    () => navigate('/', { replace: true }),
  );
  useEventStream(
    '/api/projects/events',
    (ev) => {
      if (onDatabaseEvent(ev)) return;
      if (ev.type === 'project.deleted' && ev.data?.id && ev.data.id === currentProjectId)
        navigate('/', { replace: true });
      applyProjectListEvent(qc, ev);
    },
    () => qc.invalidateQueries({ queryKey: qk.projects }),
    reportSignedOut,
  );
  // Profile changes (names, avatars) of people shown on boards, tickets and comments; my notifications.
  useEventStream(
    '/api/users/events',
    (ev) => {
      if (ev.type === 'notification.created' || ev.type === 'notification.read')
        return applyNotificationEvent(qc, ev.type, ev.data);
      if (onDatabaseEvent(ev) || ev.type !== 'user.updated') return;
      if (ev.data?.id === qc.getQueryData<{ user?: { id: string } }>(qk.session)?.user?.id)
        qc.invalidateQueries({ queryKey: qk.session });
      for (const key of ['members', 'ticket', 'comments', 'users']) qc.invalidateQueries({ queryKey: [key] });
    },
    () => {
      qc.invalidateQueries({ queryKey: ['members'] });
      qc.invalidateQueries({ queryKey: qk.notifications });
      qc.invalidateQueries({ queryKey: qk.unreadCount });
    },
    reportSignedOut,
  );
}
