import { Link } from 'wouter';
import { errorText } from '../api/client';
import { useProjects } from '../api/projects';
import { PlusIcon } from '../components/icons';
import { useShell } from '../components/shell-context';
import { Button, ColorDot, EmptyState, ErrorState, Skeleton } from '../components/ui';
import { useDocumentTitle } from '../hooks/title';

export function PageHeader({ title, children }: { title: React.ReactNode; children?: React.ReactNode }) {
  useDocumentTitle(typeof title === 'string' ? title : null);
  return (
    <header className="flex h-12 shrink-0 items-center gap-3 border-b border-line px-4">
      <h1 className="min-w-0 flex-1 truncate text-[14px] font-semibold">{title}</h1>
      {children}
    </header>
  );
}

export function ProjectsPage() {
  const projects = useProjects();
  const shell = useShell();
  return (
    <div className="flex h-full flex-col">
      <PageHeader title="Projects">
        <Button variant="primary" size="sm" onClick={shell.createProject}>
          <PlusIcon /> New project
        </Button>
      </PageHeader>
      <div className="min-h-0 flex-1 overflow-y-auto p-4">
        {projects.isPending && (
          <div className="grid gap-2 sm:grid-cols-2 xl:grid-cols-3">
            {[0, 1, 2].map((i) => (
              <Skeleton key={i} className="h-20" />
            ))}
          </div>
        )}
        {projects.isError && (
          <ErrorState message={errorText(projects.error)} onRetry={() => projects.refetch()} />
        )}
        {projects.data?.length === 0 && (
          <EmptyState
            title="No projects yet"
            action={
              <Button variant="primary" onClick={shell.createProject}>
                Create your first project
              </Button>
            }
          >
            A project holds a board of tickets, its members and its sprints.
          </EmptyState>
        )}
        {!!projects.data?.length && (
          <ul className="grid gap-2 sm:grid-cols-2 xl:grid-cols-3" data-testid="project-list">
            {projects.data.map((p) => (
              <li key={p.id}>
                <Link
                  href={`/projects/${p.key}`}
                  className="flex h-full flex-col gap-1 rounded-lg border border-line bg-surface p-3 hover:border-line-strong"
                >
                  <span className="flex items-center gap-2">
                    <ColorDot color={p.color} />
                    <span className="min-w-0 flex-1 truncate font-medium">{p.name}</span>
                    <span className="font-mono text-[11px] text-faint">{p.key}</span>
                  </span>
                  <span className="line-clamp-2 text-muted">{p.description || 'No description'}</span>
                </Link>
              </li>
            ))}
          </ul>
        )}
      </div>
    </div>
  );
}
