import {
  lazy,
  type ReactNode,
  Suspense,
  useCallback,
  useContext,
  useEffect,
  useMemo,
  useRef,
  useState,
} from 'react';
import { Link, useLocation, useSearch as useSearchString } from 'wouter';
import { useAccountEvents } from '../api/events';
import { useUnreadCount } from '../api/notifications';
import { useProjects } from '../api/projects';
import { useViews } from '../api/search';
import { useSession, useSignOut } from '../api/session';
import type { TicketPatch } from '../api/tickets';
import type { Project } from '../api/types';
import { useEscape, useShortcut } from '../hooks/shortcuts';
import { setTheme, type ThemeChoice, useTheme } from '../hooks/theme';
import { modShortcut } from '../lib/platform';
import { MenuIcon, SearchIcon } from './icons';
import { OfflineIndicator } from './OfflineIndicator';
import { MenuItem, Popover } from './Popover';
import { type ShellApi, ShellContext } from './shell-context';

// The palette and the dialogs load when first opened, not with every page (issue 23).
const CommandPalette = lazy(() => import('./CommandPalette').then((m) => ({ default: m.CommandPalette })));
const CreateProjectDialog = lazy(() =>
  import('./CreateProjectDialog').then((m) => ({ default: m.CreateProjectDialog })),
);
const NewTicketDialog = lazy(() => import('./NewTicketDialog').then((m) => ({ default: m.NewTicketDialog })));
const ShortcutHelp = lazy(() => import('./ShortcutHelp').then((m) => ({ default: m.ShortcutHelp })));

import { Avatar, ColorDot, Kbd, Skeleton } from './ui';

/** The key of the project in the current path, if any. */
export function currentProjectKey(location: string): string | null {
  const m = location.match(/^\/projects\/([^/?#]+)/);
  return m ? decodeURIComponent(m[1]).toUpperCase() : null;
}

function ThemeSwitch() {
  const theme = useTheme();
  const options: { value: ThemeChoice; label: string }[] = [
    { value: 'system', label: 'System' },
    { value: 'light', label: 'Light' },
    { value: 'dark', label: 'Dark' },
  ];
  return (
    <fieldset className="flex gap-1 px-2 py-1.5">
      <legend className="sr-only">Theme</legend>
      {options.map((o) => (
        <button
          key={o.value}
          type="button"
          aria-pressed={theme === o.value}
          onClick={() => setTheme(o.value)}
          className={`flex-1 rounded px-1.5 py-1 text-[12px] ${theme === o.value ? 'bg-accent-soft font-medium text-fg' : 'text-muted hover:bg-hover'}`}
        >
          {o.label}
        </button>
      ))}
    </fieldset>
  );
}

/** The inbox in the sidebar, with the unread count that the user stream keeps current. */
function InboxLink({ active, onNavigate }: { active: boolean; onNavigate?: () => void }) {
  const unread = useUnreadCount().data ?? 0;
  return (
    <Link
      href="/inbox"
      onClick={onNavigate}
      aria-current={active ? 'page' : undefined}
      aria-label={unread > 0 ? `Inbox, ${unread} unread` : 'Inbox'}
      className={`flex h-7 items-center gap-2 rounded-md px-2 ${active ? 'bg-hover font-medium text-fg' : 'text-muted hover:bg-hover hover:text-fg'}`}
    >
      <span className="flex-1">Inbox</span>
      {unread > 0 && (
        <span
          data-testid="inbox-badge"
          className="min-w-5 rounded-full bg-accent px-1.5 text-center text-[11px] font-semibold leading-5 text-accent-fg"
        >
          {unread > 99 ? '99+' : unread}
        </span>
      )}
    </Link>
  );
}

/** Saved views (mine and those shared in my projects), each opening the search page. */
function SavedViews({ active, onNavigate }: { active: string | null; onNavigate?: () => void }) {
  const views = useViews();
  if (!views.data?.length) return null;
  return (
    <>
      <div className="mt-4 px-4 pb-1 text-[11px] font-medium tracking-wide text-faint uppercase">Views</div>
      <ul className="max-h-48 overflow-y-auto px-2" data-testid="sidebar-views">
        {views.data.map((v) => (
          <li key={v.id}>
            <Link
              href={`/search?view=${v.id}`}
              onClick={onNavigate}
              aria-current={active === v.id ? 'page' : undefined}
              className={`flex h-7 items-center gap-2 rounded-md px-2 ${active === v.id ? 'bg-hover font-medium text-fg' : 'text-muted hover:bg-hover hover:text-fg'}`}
            >
              <span className="min-w-0 flex-1 truncate">{v.name}</span>
              {v.shared && <span className="font-mono text-[11px] text-faint">{v.projectKey}</span>}
            </Link>
          </li>
        ))}
      </ul>
    </>
  );
}

function Sidebar({ onNavigate }: { onNavigate?: () => void }) {
  const [location] = useLocation();
  const searchString = useSearchString();
  const viewParam = location === '/search' ? new URLSearchParams(searchString).get('view') : null;
  const projects = useProjects();
  const shell = useContextShell();
  const activeKey = currentProjectKey(location);
  return (
    <nav aria-label="Main" className="flex h-full w-60 flex-col border-r border-line bg-subtle">
      <div className="flex items-center gap-2 px-3 pt-3 pb-2">
        <span
          aria-hidden="true"
          className="inline-flex h-6 w-6 items-center justify-center rounded-md bg-accent text-[12px] font-bold text-accent-fg"
        >
          D
        </span>
        <span className="flex-1 text-[14px] font-semibold">Docket</span>
      </div>
      <div className="px-2 pb-2">
        <button
          type="button"
          onClick={shell.openPalette}
          className="flex h-8 w-full items-center gap-2 rounded-md border border-line bg-surface px-2 text-left text-faint hover:border-line-strong"
          title={`Search and commands (${modShortcut('K')})`}
        >
          <SearchIcon />
          <span className="min-w-0 flex-1 truncate">Search or jump to…</span>
          <Kbd>{modShortcut('K')}</Kbd>
        </button>
      </div>
      <div className="px-2">
        <Link
          href="/"
          onClick={onNavigate}
          className={`flex h-7 items-center gap-2 rounded-md px-2 ${location === '/' || location === '/projects' ? 'bg-hover font-medium text-fg' : 'text-muted hover:bg-hover hover:text-fg'}`}
        >
          All projects
        </Link>
        <InboxLink active={location === '/inbox'} onNavigate={onNavigate} />
        <Link
          href="/search"
          onClick={onNavigate}
          className={`flex h-7 items-center gap-2 rounded-md px-2 ${location === '/search' && !viewParam ? 'bg-hover font-medium text-fg' : 'text-muted hover:bg-hover hover:text-fg'}`}
        >
          Search
        </Link>
      </div>
      <SavedViews active={viewParam} onNavigate={onNavigate} />
      <div className="mt-4 flex items-center justify-between px-4 pb-1 text-[11px] font-medium tracking-wide text-faint uppercase">
        <span>Projects</span>
        <button
          type="button"
          onClick={shell.createProject}
          className="rounded px-1 text-[14px] leading-none text-faint hover:bg-hover hover:text-fg"
          aria-label="Create project"
          title="Create project"
        >
          +
        </button>
      </div>
      <ul className="min-h-0 flex-1 overflow-y-auto px-2 pb-2" data-testid="sidebar-projects">
        {projects.isPending &&
          [0, 1, 2].map((i) => (
            <li key={i} className="px-2 py-1.5">
              <Skeleton className="h-4 w-3/4" />
            </li>
          ))}
        {projects.isError && <li className="px-2 py-1.5 text-danger">Projects could not be loaded</li>}
        {projects.data?.length === 0 && <li className="px-2 py-1.5 text-faint">No projects yet</li>}
        {projects.data?.map((p) => (
          <li key={p.id}>
            <Link
              href={`/projects/${p.key}`}
              onClick={onNavigate}
              aria-current={activeKey === p.key ? 'page' : undefined}
              className={`flex h-7 items-center gap-2 rounded-md px-2 ${activeKey === p.key ? 'bg-hover font-medium text-fg' : 'text-muted hover:bg-hover hover:text-fg'}`}
            >
              <ColorDot color={p.color} />
              <span className="min-w-0 flex-1 truncate">{p.name}</span>
              <span className="font-mono text-[11px] text-faint">{p.key}</span>
            </Link>
          </li>
        ))}
      </ul>
      <UserMenu onNavigate={onNavigate} />
    </nav>
  );
}

/** The signed-in user at the foot of the sidebar, with the profile, administration and sign-out. */
function UserMenu({ onNavigate }: { onNavigate?: () => void }) {
  const [, navigate] = useLocation();
  const user = useSession().data?.user;
  const shell = useContextShell();
  return (
    <div className="border-t border-line p-2">
      <Popover
        label="User menu"
        up
        panelClass="w-56"
        className="flex w-full items-center gap-2 rounded-md px-2 py-1.5 text-left hover:bg-hover"
        button={
          <>
            <Avatar name={user?.name ?? user?.username} src={user?.avatar} size={22} />
            <span className="min-w-0 flex-1 truncate" data-testid="current-user">
              {user?.name ?? user?.username}
            </span>
          </>
        }
      >
        {(close) => (
          <div role="menu">
            <div className="px-2 py-1.5 text-[12px] text-faint">
              Signed in as <span className="text-fg">{user?.username}</span>
            </div>
            <ThemeSwitch />
            <MenuItem
              onSelect={() => {
                close();
                onNavigate?.();
                navigate('/profile');
              }}
            >
              Profile
            </MenuItem>
            {user?.isSystemAdmin && (
              <MenuItem
                onSelect={() => {
                  close();
                  onNavigate?.();
                  navigate('/admin');
                }}
              >
                Administration
              </MenuItem>
            )}
            <MenuItem
              onSelect={() => {
                close();
                shell.openHelp();
              }}
            >
              Keyboard shortcuts{' '}
              <span className="ml-auto">
                <Kbd>?</Kbd>
              </span>
            </MenuItem>
            <MenuItem
              onSelect={() => {
                close();
                shell.signOut();
              }}
            >
              Sign out
            </MenuItem>
          </div>
        )}
      </Popover>
    </div>
  );
}

const useContextShell = () => useContext(ShellContext);

export function Shell({ children }: { children: ReactNode }) {
  const endSession = useSignOut().mutateAsync;
  const [location, navigate] = useLocation();
  const [palette, setPalette] = useState(false);
  const [help, setHelp] = useState(false);
  const [creatingProject, setCreatingProject] = useState(false);
  const [newTicket, setNewTicket] = useState<{ projectId?: string; defaults?: TicketPatch } | null>(null);
  const [mobileNav, setMobileNav] = useState(false);
  const searchFocus = useRef<(() => void) | null>(null);
  const projects = useProjects();

  const signOut = useCallback(async () => {
    try {
      await endSession();
    } catch {
      // Signed out already: go on to the sign-in page.
    }
    navigate('/sign-in', { replace: true });
  }, [endSession, navigate]);

  const projectKey = currentProjectKey(location);
  const currentProject: Project | undefined = projects.data?.find((p) => p.key === projectKey);

  const shell: ShellApi = useMemo(
    () => ({
      openPalette: () => setPalette(true),
      openHelp: () => setHelp(true),
      createProject: () => setCreatingProject(true),
      newTicket: (projectId, defaults) => setNewTicket({ projectId, defaults }),
      setSearchFocus: (fn) => {
        searchFocus.current = fn;
      },
      signOut,
    }),
    [signOut],
  );

  // Ctrl/Cmd+K anywhere, even while typing.
  useKeyK(() => setPalette((p) => !p));
  useShortcut('?', () => {
    setHelp(true);
    return true;
  });
  useShortcut('c', () => {
    if (!currentProject && !projects.data?.length) return false;
    setNewTicket({ projectId: currentProject?.id });
    return true;
  });
  useShortcut('/', () => {
    if (searchFocus.current) searchFocus.current();
    else setPalette(true);
    return true;
  });
  useEscape(() => setMobileNav(false), mobileNav);

  useAccountEvents(currentProject?.id);

  return (
    <ShellContext.Provider value={shell}>
      <div className="flex h-full">
        <div className="hidden md:block">
          <Sidebar />
        </div>
        {mobileNav && (
          <div className="fixed inset-0 z-40 md:hidden">
            <div
              className="absolute inset-0 bg-[var(--overlay)]"
              aria-hidden="true"
              onClick={() => setMobileNav(false)}
            />
            <div className="absolute inset-y-0 left-0">
              <Sidebar onNavigate={() => setMobileNav(false)} />
            </div>
          </div>
        )}
        <div className="flex min-w-0 flex-1 flex-col">
          <div className="flex h-11 items-center gap-2 border-b border-line px-3 md:hidden">
            <button
              type="button"
              aria-label="Open navigation"
              className="rounded p-1 text-muted hover:bg-hover"
              onClick={() => setMobileNav(true)}
            >
              <MenuIcon />
            </button>
            <span className="flex-1 font-semibold">Docket</span>
            <button
              type="button"
              aria-label="Search and commands"
              className="rounded p-1 text-muted hover:bg-hover"
              onClick={() => setPalette(true)}
            >
              <SearchIcon />
            </button>
          </div>
          <main className="min-h-0 flex-1">{children}</main>
          <OfflineIndicator />
        </div>
      </div>
      <Suspense fallback={null}>
        {palette && <CommandPalette onClose={() => setPalette(false)} currentProject={currentProject} />}
        {help && <ShortcutHelp onClose={() => setHelp(false)} />}
        {creatingProject && <CreateProjectDialog onClose={() => setCreatingProject(false)} />}
        {newTicket && (
          <NewTicketDialog
            projectId={newTicket.projectId ?? currentProject?.id ?? projects.data?.[0]?.id}
            defaults={newTicket.defaults}
            onClose={() => setNewTicket(null)}
          />
        )}
      </Suspense>
    </ShellContext.Provider>
  );
}

/** Ctrl+K or Cmd+K toggles the command palette, also from inside inputs. */
function useKeyK(fn: () => void) {
  const ref = useRef(fn);
  ref.current = fn;
  useShortcutRaw((e) => {
    if ((e.ctrlKey || e.metaKey) && !e.altKey && e.key.toLowerCase() === 'k') {
      e.preventDefault();
      ref.current();
    }
  });
}

function useShortcutRaw(handler: (e: KeyboardEvent) => void) {
  const ref = useRef(handler);
  ref.current = handler;
  useEffect(() => {
    const on = (e: KeyboardEvent) => ref.current(e);
    window.addEventListener('keydown', on);
    return () => window.removeEventListener('keydown', on);
  }, []);
}
