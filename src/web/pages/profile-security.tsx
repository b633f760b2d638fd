/** The profile's security sections: my sessions (issue 19). */
import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useLocation } from 'wouter';
import { errorText } from '../api/client';
import { qk } from '../api/keys';
import {
  endMyOtherSessions,
  endMySession,
  type SessionItem,
  sessionsKey,
  useMySessions,
} from '../api/security';
import { FormError, Section } from '../components/ProjectNav';
import { fullTime, relativeTime } from '../components/time';
import { useToast } from '../components/toast';
import { Button, Skeleton } from '../components/ui';

/** A readable name for a browser from its User-Agent. */
export function browserName(agent: string | null): string {
  if (!agent) return 'Unknown browser';
  const os = /Windows/.test(agent)
    ? 'Windows'
    : /Android/.test(agent)
      ? 'Android'
      : /iPhone|iPad/.test(agent)
        ? 'iOS'
        : /Mac OS X/.test(agent)
          ? 'macOS'
          : /Linux/.test(agent)
            ? 'Linux'
            : null;
  const browser = /Edg\//.test(agent)
    ? 'Edge'
    : /Firefox\//.test(agent)
      ? 'Firefox'
      : /Chrome\//.test(agent)
        ? 'Chrome'
        : /Safari\//.test(agent)
          ? 'Safari'
          : null;
  if (browser) return os ? `${browser} on ${os}` : browser;
  return agent.length > 60 ? `${agent.slice(0, 60)}…` : agent;
}

export function SessionsSection() {
  const qc = useQueryClient();
  const toast = useToast();
  const [, navigate] = useLocation();
  const sessions = useMySessions();
  const [error, setError] = useState<string | null>(null);
  const refresh = () => qc.invalidateQueries({ queryKey: sessionsKey });
  const end = async (s: SessionItem) => {
    setError(null);
    try {
      await endMySession(s.id);
      if (s.current) {
        qc.clear();
        qc.setQueryData(qk.session, {});
        navigate('/sign-in', { replace: true });
        return;
      }
      toast.show('Session ended', 'success');
      await refresh();
    } catch (err) {
      setError(errorText(err));
    }
  };
  const endOthers = async () => {
    setError(null);
    try {
      const res = await endMyOtherSessions();
      toast.show(res.ended === 1 ? '1 session ended' : `${res.ended} sessions ended`, 'success');
      await refresh();
    } catch (err) {
      setError(errorText(err));
    }
  };
  const list = sessions.data ?? [];
  return (
    <Section title="Sessions" description="Where you are signed in. End any session you do not recognise.">
      {sessions.isPending && <Skeleton className="h-16" />}
      {sessions.isError && <FormError error={errorText(sessions.error)} />}
      {sessions.data && (
        <ul className="flex flex-col divide-y divide-line" data-testid="sessions">
          {list.map((s) => (
            <li key={s.id} className="flex items-center gap-3 py-2" data-testid="session">
              <div className="min-w-0 flex-1">
                <div className="font-medium">
                  {browserName(s.userAgent)}
                  {s.current && <span className="ml-2 text-[12px] text-success">This session</span>}
                </div>
                <div className="text-[12px] text-muted">
                  {s.address ?? 'unknown address'} · signed in{' '}
                  <time title={fullTime(s.createdAt)}>{relativeTime(s.createdAt)}</time>
                  {s.lastUsedAt && (
                    <>
                      {' '}
                      · last used <time title={fullTime(s.lastUsedAt)}>{relativeTime(s.lastUsedAt)}</time>
                    </>
                  )}
                </div>
              </div>
              <Button size="sm" variant={s.current ? 'secondary' : 'danger'} onClick={() => end(s)}>
                {s.current ? 'Sign out' : 'End'}
              </Button>
            </li>
          ))}
        </ul>
      )}
      {list.length > 1 && (
        <div className="mt-2">
          <Button onClick={endOthers}>Sign out everywhere else</Button>
        </div>
      )}
      <div className="mt-2">
        <FormError error={error} />
      </div>
    </Section>
  );
}
