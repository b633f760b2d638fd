import type { ReactNode } from 'react';
import { Link } from 'wouter';
import { errorText } from '../api/client';
import { useProjectEvents } from '../api/events';
import { useProject } from '../api/projects';
import type { Project } from '../api/types';
import { useDocumentTitle } from '../hooks/title';
import { ColorDot, ErrorState, Skeleton } from './ui';

const TABS = [
  { id: 'board', label: 'Board', path: '' },
  { id: 'backlog', label: 'Backlog', path: '/backlog' },
  { id: 'epics', label: 'Epics', path: '/epics' },
  { id: 'timeline', label: 'Timeline', path: '/timeline' },
  { id: 'reports', label: 'Reports', path: '/reports' },
  { id: 'settings', label: 'Settings', path: '/settings' },
] as const;
export type ProjectTab = (typeof TABS)[number]['id'];

/** The project's pages as tabs: board, backlog, epics, timeline, reports and settings. */
export function ProjectTabs({ project, current }: { project: Project; current: ProjectTab }) {
  useDocumentTitle(`${TABS.find((t) => t.id === current)?.label} · ${project.name}`);
  return (
    <nav aria-label="Project" className="flex shrink-0 items-center gap-0.5">
      {TABS.map((t) => (
        <Link
          key={t.id}
          href={`/projects/${project.key}${t.path}`}
          aria-current={current === t.id ? 'page' : undefined}
          className={`rounded-md px-2 py-1 ${current === t.id ? 'bg-hover font-medium text-fg' : 'text-muted hover:bg-hover hover:text-fg'}`}
        >
          {t.label}
        </Link>
      ))}
    </nav>
  );
}

/**
 * The frame of a project page: the project's name, the tabs, optional actions, then the page, which
 * gets the loaded project. Keeps the project's data live.
 */
export function ProjectFrame({
  projectKey,
  tab,
  actions,
  children,
}: {
  projectKey: string;
  tab: ProjectTab;
  actions?: (project: Project) => ReactNode;
  children: (project: Project) => ReactNode;
}) {
  const project = useProject(projectKey);
  useProjectEvents(project.data?.id);
  if (project.isError)
    return <ErrorState message={errorText(project.error)} onRetry={() => project.refetch()} />;
  const p = project.data;
  return (
    <div className="flex h-full flex-col">
      {/* On a phone the header scrolls sideways rather than squeezing the project's name away. */}
      <header className="flex h-12 shrink-0 items-center gap-3 overflow-x-auto border-b border-line px-3">
        {p ? (
          <Link
            href={`/projects/${p.key}`}
            className="flex shrink-0 items-center gap-2 rounded-md px-1.5 py-1 hover:bg-hover"
          >
            <ColorDot color={p.color} />
            <span className="max-w-[30vw] truncate text-[14px] font-semibold">{p.name}</span>
            <span className="hidden font-mono text-[11px] text-faint sm:inline">{p.key}</span>
          </Link>
        ) : (
          <Skeleton className="h-5 w-40" />
        )}
        {p && <ProjectTabs project={p} current={tab} />}
        <span className="flex-1" />
        {p && actions?.(p)}
      </header>
      <div className="min-h-0 flex-1 overflow-y-auto">
        {p ? (
          children(p)
        ) : (
          <div className="flex flex-col gap-3 p-4" role="status" aria-busy="true" aria-label="Loading">
            <Skeleton className="h-6 w-48" />
            <Skeleton className="h-24" />
            <Skeleton className="h-24" />
          </div>
        )}
      </div>
    </div>
  );
}

/** A titled block of a settings-like page. */
export function Section({
  title,
  description,
  children,
  danger,
  id,
}: {
  title: string;
  description?: ReactNode;
  children: ReactNode;
  danger?: boolean;
  id?: string;
}) {
  return (
    <section
      id={id}
      aria-label={title}
      className={`rounded-lg border bg-surface p-4 ${danger ? 'border-danger/40' : 'border-line'}`}
    >
      <h2 className={`text-[14px] font-semibold ${danger ? 'text-danger' : ''}`}>{title}</h2>
      {description && <p className="mt-0.5 mb-3 text-muted">{description}</p>}
      {!description && <div className="mb-3" />}
      {children}
    </section>
  );
}

/** An error box in the API's words. */
export function FormError({ error }: { error: string | null }) {
  if (!error) return null;
  return (
    <p role="alert" className="rounded-md bg-danger-soft px-3 py-2 text-danger">
      {error}
    </p>
  );
}
