import { Link } from 'wouter';
import { errorText } from '../api/client';
import { useSession } from '../api/session';
import { AdminAudit } from '../components/admin/AdminAudit';
import { AdminDatabase } from '../components/admin/AdminDatabase';
import { AdminSettings } from '../components/admin/AdminSettings';
import { AdminUsers } from '../components/admin/AdminUsers';
import { EmptyState, ErrorState, Skeleton } from '../components/ui';
import { PageHeader } from './projects';

const SECTIONS = [
  { id: 'users', label: 'Users' },
  { id: 'settings', label: 'Settings' },
  { id: 'database', label: 'Database' },
  { id: 'audit', label: 'Security' },
] as const;
type SectionId = (typeof SECTIONS)[number]['id'];

/** The sections of the administration page as tabs: users, system settings, database, security (audit log). */
function AdminTabs({ current }: { current: SectionId }) {
  return (
    <nav aria-label="Administration" className="flex items-center gap-0.5">
      {SECTIONS.map((s) => (
        <Link
          key={s.id}
          href={`/admin/${s.id}`}
          aria-current={current === s.id ? 'page' : undefined}
          className={`rounded-md px-2 py-1 font-normal ${current === s.id ? 'bg-hover font-medium text-fg' : 'text-muted hover:bg-hover hover:text-fg'}`}
        >
          {s.label}
        </Link>
      ))}
    </nav>
  );
}

/**
 * Administration for system administrators (SPEC "Admin"): users, system settings and the database
 * operations. Anyone else gets a plain "not allowed" state; the API refuses them as well.
 */
export function AdminPage({ section }: { section?: string }) {
  const session = useSession();
  const user = session.data?.user;
  const current = (section ?? 'users') as SectionId;
  const known = SECTIONS.some((s) => s.id === current);

  if (session.isPending)
    return (
      <div className="flex flex-col gap-3 p-4" role="status" aria-busy="true" aria-label="Loading">
        <Skeleton className="h-6 w-48" />
        <Skeleton className="h-32" />
      </div>
    );
  if (session.isError)
    return <ErrorState message={errorText(session.error)} onRetry={() => session.refetch()} />;
  if (!user?.isSystemAdmin)
    return (
      <div className="flex h-full flex-col">
        <PageHeader title="Administration" />
        <div data-testid="admin-forbidden">
          <EmptyState
            title="Not allowed"
            action={
              <Link href="/" className="text-accent hover:underline">
                Back to your projects
              </Link>
            }
          >
            Administration is for system administrators. You are signed in as{' '}
            <span className="font-medium text-fg">{user?.username}</span>, who is not one; ask an
            administrator if you need access.
          </EmptyState>
        </div>
      </div>
    );

  return (
    <div className="flex h-full flex-col">
      <header className="flex h-12 shrink-0 items-center gap-3 border-b border-line px-4">
        <h1 className="text-[14px] font-semibold">Administration</h1>
        <AdminTabs current={current} />
      </header>
      <div className="min-h-0 flex-1 overflow-y-auto">
        {!known && (
          <EmptyState
            title="Page not found"
            action={
              <Link href="/admin/users" className="text-accent hover:underline">
                Go to users
              </Link>
            }
          >
            Administration has no section called “{section}”.
          </EmptyState>
        )}
        {current === 'users' && <AdminUsers me={user} />}
        {current === 'settings' && <AdminSettings />}
        {current === 'database' && <AdminDatabase />}
        {current === 'audit' && <AdminAudit />}
      </div>
    </div>
  );
}
