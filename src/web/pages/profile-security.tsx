/** The profile's security sections: my sessions and my API keys (issue 19). */
import { type FormEvent, useState } from 'react';
import { useLocation } from 'wouter';
import { errorText } from '../api/client';
import {
  type ApiKeyItem,
  type CreatedApiKey,
  type SessionItem,
  useCreateMyApiKey,
  useEndMyOtherSessions,
  useEndMySession,
  useMyApiKeys,
  useMySessions,
  useRevokeMyApiKey,
} from '../api/security';
import { FormError, Section } from '../components/ProjectNav';
import { fullTime, relativeTime } from '../components/time';
import { useToast } from '../components/toast';
import { Button, Field, Input, Select, Skeleton } from '../components/ui';
import { CopyBlock } from './profile-access';

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
  const toast = useToast();
  const [, navigate] = useLocation();
  const sessions = useMySessions();
  const endMySession = useEndMySession();
  const endMyOtherSessions = useEndMyOtherSessions();
  const [error, setError] = useState<string | null>(null);
  const end = async (s: SessionItem) => {
    setError(null);
    try {
      await endMySession.mutateAsync(s);
      if (s.current) {
        navigate('/sign-in', { replace: true });
        return;
      }
      toast.show('Session ended', 'success');
    } catch (err) {
      setError(errorText(err));
    }
  };
  const endOthers = async () => {
    setError(null);
    try {
      const res = await endMyOtherSessions.mutateAsync();
      toast.show(res.ended === 1 ? '1 session ended' : `${res.ended} sessions ended`, 'success');
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

const EXPIRY_CHOICES = [
  { label: 'Never', days: 0 },
  { label: '7 days', days: 7 },
  { label: '30 days', days: 30 },
  { label: '90 days', days: 90 },
  { label: '1 year', days: 365 },
];

/** Named API keys: read or write, optionally expiring; each key is shown once. */
export function ApiKeysSection() {
  const toast = useToast();
  const keys = useMyApiKeys();
  const createMyApiKey = useCreateMyApiKey();
  const revokeMyApiKey = useRevokeMyApiKey();
  const [name, setName] = useState('');
  const [scope, setScope] = useState<'read' | 'write'>('read');
  const [days, setDays] = useState(90);
  const [created, setCreated] = useState<CreatedApiKey | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const create = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const k = await createMyApiKey.mutateAsync({
        name,
        scope,
        ...(days > 0 ? { expiresInDays: days } : {}),
      });
      setCreated(k);
      setName('');
    } catch (err) {
      setError(errorText(err));
    } finally {
      setBusy(false);
    }
  };
  const revoke = async (k: ApiKeyItem) => {
    setError(null);
    try {
      await revokeMyApiKey.mutateAsync(k.id);
      if (created?.id === k.id) setCreated(null);
      toast.show(`Key “${k.name}” revoked`, 'success');
    } catch (err) {
      setError(errorText(err));
    }
  };
  return (
    <Section
      title="API keys"
      description="Keys for scripts and assistants. A read key can only read; no key has administrator powers."
    >
      {keys.isPending && <Skeleton className="h-12" />}
      {keys.isError && <FormError error={errorText(keys.error)} />}
      {keys.data && keys.data.length > 0 && (
        <ul className="mb-3 flex flex-col divide-y divide-line" data-testid="api-keys">
          {keys.data.map((k) => (
            <li key={k.id} className="flex items-center gap-3 py-2" data-testid="api-key">
              <div className="min-w-0 flex-1">
                <div className="font-medium">
                  {k.name} <span className="text-[12px] text-muted">({k.scope})</span>
                </div>
                <div className="text-[12px] text-muted">
                  created <time title={fullTime(k.createdAt)}>{relativeTime(k.createdAt)}</time> ·{' '}
                  {k.lastUsedAt ? (
                    <>
                      last used <time title={fullTime(k.lastUsedAt)}>{relativeTime(k.lastUsedAt)}</time>
                    </>
                  ) : (
                    'never used'
                  )}{' '}
                  · {k.expiresAt ? <>expires {fullTime(k.expiresAt)}</> : 'does not expire'}
                </div>
              </div>
              <Button size="sm" variant="danger" onClick={() => revoke(k)}>
                Revoke
              </Button>
            </li>
          ))}
        </ul>
      )}
      <form onSubmit={create} className="grid gap-3 sm:grid-cols-3">
        <Field label="Key name">
          {(id) => <Input id={id} value={name} maxLength={100} onChange={(e) => setName(e.target.value)} />}
        </Field>
        <Field label="Scope">
          {(id) => (
            <Select id={id} value={scope} onChange={(e) => setScope(e.target.value as 'read' | 'write')}>
              <option value="read">Read</option>
              <option value="write">Read and write</option>
            </Select>
          )}
        </Field>
        <Field label="Expires">
          {(id) => (
            <Select id={id} value={String(days)} onChange={(e) => setDays(Number(e.target.value))}>
              {EXPIRY_CHOICES.map((c) => (
                <option key={c.days} value={c.days}>
                  {c.label}
                </option>
              ))}
            </Select>
          )}
        </Field>
        <div className="sm:col-span-3">
          <Button type="submit" variant="primary" disabled={busy || name.trim() === ''}>
            Create key
          </Button>
        </div>
      </form>
      <div className="mt-2">
        <FormError error={error} />
      </div>
      {created && (
        <div
          className="mt-3 flex flex-col gap-2 rounded-md border border-accent/50 bg-accent-soft/40 p-3"
          data-testid="new-api-key"
        >
          <p className="font-medium">Copy the key “{created.name}” now: it will not be shown again.</p>
          <CopyBlock label="API key" text={created.key} />
        </div>
      )}
    </Section>
  );
}
