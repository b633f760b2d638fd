import { type FormEvent, useState } from 'react';
import { errorText } from '../../api/client';
import {
  type AuditEntry,
  useAuditLog,
  useSecuritySettings,
  useSetRequireTwoFactor,
} from '../../api/security';
import { FormError, Section } from '../ProjectNav';
import { fullTime, relativeTime } from '../time';
import { Button, ErrorState, Field, Input, Skeleton } from '../ui';

/** What an entry did to what, in a line. */
function describe(e: AuditEntry): string {
  const d = e.details ?? {};
  const parts: string[] = [];
  for (const key of [
    'login',
    'reason',
    'username',
    'key',
    'title',
    'project',
    'name',
    'scope',
    'role',
    'from',
    'to',
  ]) {
    const v = d[key];
    if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') parts.push(`${key}: ${v}`);
  }
  if (parts.length === 0 && e.target) parts.push(`${e.target.type} ${e.target.id ?? ''}`.trim());
  return parts.join(' · ');
}

/** The security setting: require two-factor sign-in of everyone. */
function RequireTwoFactor() {
  const settings = useSecuritySettings();
  const setRequireTwoFactor = useSetRequireTwoFactor();
  const [error, setError] = useState<string | null>(null);
  const toggle = async (on: boolean) => {
    setError(null);
    try {
      await setRequireTwoFactor.mutateAsync(on);
    } catch (err) {
      setError(errorText(err));
    }
  };
  return (
    <Section
      title="Two-factor sign-in"
      description="Required of everyone: users without it can only turn it on; their API keys stop working until they do."
    >
      {settings.data && (
        <label className="flex items-center gap-2">
          <input
            type="checkbox"
            checked={settings.data.requireTwoFactor}
            onChange={(e) => toggle(e.target.checked)}
          />
          Require two-factor sign-in for every account
        </label>
      )}
      <div className="mt-2">
        <FormError error={error} />
      </div>
    </Section>
  );
}

/** The audit log (issue 19): newest first, filtered by actor and action, loaded page by page. */
export function AdminAudit() {
  const [actor, setActor] = useState('');
  const [action, setAction] = useState('');
  const [filters, setFilters] = useState<{ actor?: string; action?: string }>({});
  const log = useAuditLog(filters);
  const apply = (e: FormEvent) => {
    e.preventDefault();
    setFilters({ actor: actor.trim() || undefined, action: action.trim() || undefined });
  };
  const items = log.data?.pages.flatMap((p) => p.items) ?? [];
  return (
    <div className="flex max-w-4xl flex-col gap-4 p-4">
      <RequireTwoFactor />
      <Section
        title="Audit log"
        description="Sign-ins, account and key changes, administrators' actions and deletions, newest first."
      >
        <form onSubmit={apply} className="mb-3 flex flex-wrap items-end gap-2">
          <Field label="Actor (username)">
            {(id) => <Input id={id} value={actor} onChange={(e) => setActor(e.target.value)} />}
          </Field>
          <Field label="Action (admin.* for a prefix)">
            {(id) => <Input id={id} value={action} onChange={(e) => setAction(e.target.value)} />}
          </Field>
          <Button type="submit">Filter</Button>
        </form>
        {log.isPending && <Skeleton className="h-32" />}
        {log.isError && <ErrorState message={errorText(log.error)} onRetry={() => log.refetch()} />}
        {log.data && items.length === 0 && <p className="text-muted">No entries.</p>}
        {items.length > 0 && (
          <table className="w-full text-left text-[13px]" data-testid="audit-log">
            <thead className="text-[12px] text-muted">
              <tr>
                <th className="py-1 pr-2 font-normal">When</th>
                <th className="py-1 pr-2 font-normal">Who</th>
                <th className="py-1 pr-2 font-normal">Action</th>
                <th className="py-1 pr-2 font-normal">What</th>
                <th className="py-1 font-normal">Address</th>
              </tr>
            </thead>
            <tbody>
              {items.map((e) => (
                <tr key={e.id} className="border-t border-line align-top" data-testid="audit-entry">
                  <td className="py-1 pr-2 whitespace-nowrap">
                    <time title={fullTime(e.at)}>{relativeTime(e.at)}</time>
                  </td>
                  <td className="py-1 pr-2">{e.actor ? (e.actor.username ?? e.actor.id) : '—'}</td>
                  <td className="py-1 pr-2 font-mono text-[12px]">{e.action}</td>
                  <td className="py-1 pr-2 break-all">{describe(e)}</td>
                  <td className="py-1 text-muted">{e.address ?? ''}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
        {log.hasNextPage && (
          <div className="mt-3">
            <Button onClick={() => log.fetchNextPage()} disabled={log.isFetchingNextPage}>
              {log.isFetchingNextPage ? 'Loading…' : 'Older entries'}
            </Button>
          </div>
        )}
      </Section>
    </div>
  );
}
