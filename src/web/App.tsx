import { lazy, Suspense } from 'react';
import { Redirect, Route, Switch, useLocation } from 'wouter';
import { BASE_PATH, errorText } from './api/client';
import { useSession, useSignedOutOn401 } from './api/session';
import { Shell } from './components/Shell';
import { Button, EmptyState, ErrorState, Skeleton } from './components/ui';
import { useDocumentTitle } from './hooks/title';
import { ForgotPasswordPage, RegisterPage, ResetPasswordPage, SignInPage } from './pages/auth';
import { OAuthConsentPage } from './pages/oauth-consent';
import { PasswordSection } from './pages/profile-access';
import { TwoFactorSection } from './pages/profile-two-factor';
import { ProjectsPage } from './pages/projects';

const loadBoard = () => import('./pages/board');
const loadBacklog = () => import('./pages/Backlog');
// The page of the address the app starts on is fetched at once, beside the session, instead of after it.
{
  const path = window.location.pathname.slice(BASE_PATH.length);
  if (/^\/projects\/[^/]+\/backlog\/?$/.test(path)) void loadBacklog();
  else if (/^\/projects\/[^/]+(\/[^/]+)?\/?$/.test(path) && !/\/(reports|settings)\/?$/.test(path))
    void loadBoard();
}
const ProjectPage = lazy(() => loadBoard().then((m) => ({ default: m.ProjectPage })));
const ProjectSettingsPage = lazy(() =>
  import('./pages/ProjectSettings').then((m) => ({ default: m.ProjectSettingsPage })),
);
const ProfilePage = lazy(() => import('./pages/Profile').then((m) => ({ default: m.ProfilePage })));
const BacklogPage = lazy(() => loadBacklog().then((m) => ({ default: m.BacklogPage })));
const ReportsPage = lazy(() => import('./pages/Reports').then((m) => ({ default: m.ReportsPage })));
const EpicsPage = lazy(() => import('./pages/epics').then((m) => ({ default: m.EpicsPage })));
const TimelinePage = lazy(() => import('./pages/timeline').then((m) => ({ default: m.TimelinePage })));
const InboxPage = lazy(() => import('./pages/Inbox').then((m) => ({ default: m.InboxPage })));
const PersonPage = lazy(() => import('./pages/Person').then((m) => ({ default: m.PersonPage })));
const ImportPage = lazy(() => import('./pages/import').then((m) => ({ default: m.ImportPage })));
const SearchPage = lazy(() => import('./pages/search').then((m) => ({ default: m.SearchPage })));
const AdminPage = lazy(() => import('./pages/Admin').then((m) => ({ default: m.AdminPage })));

function PageNotFound() {
  useDocumentTitle('Page not found');
  return (
    <EmptyState title="Page not found" action={<Button onClick={() => history.back()}>Go back</Button>}>
      There is nothing at this address.
    </EmptyState>
  );
}

function BootSkeleton() {
  return (
    <div className="flex h-full" role="status" aria-busy="true" aria-label="Loading">
      <div className="hidden w-60 flex-col gap-3 border-r border-line bg-subtle p-3 md:flex">
        <Skeleton className="h-6 w-24" />
        <Skeleton className="h-8" />
        <Skeleton className="h-4 w-3/4" />
        <Skeleton className="h-4 w-2/3" />
      </div>
      <div className="flex-1 p-4">
        <Skeleton className="mb-4 h-6 w-48" />
        <Skeleton className="h-32" />
      </div>
    </div>
  );
}

/** Signed-in part of the app: a missing or ended session goes to sign-in and comes back after. */
function Authenticated() {
  const session = useSession();
  const [location] = useLocation();
  if (session.isPending) return <BootSkeleton />;
  if (session.isError)
    return <ErrorState message={errorText(session.error)} onRetry={() => session.refetch()} />;
  if (!session.data?.user) {
    const next = location + window.location.search;
    const expired = sessionStorage.getItem('docket-expired') === '1';
    sessionStorage.removeItem('docket-expired');
    const query = new URLSearchParams();
    if (next !== '/') query.set('next', next);
    if (expired) query.set('expired', '1');
    const qs = query.toString();
    return <Redirect to={`/sign-in${qs ? `?${qs}` : ''}`} replace />;
  }
  if (session.data.user.mustChangePassword) {
    // The API refuses everything else until the temporary password is replaced.
    return (
      <main className="mx-auto max-w-2xl p-6">
        <h1 className="mb-2 text-xl font-semibold">Choose a new password</h1>
        <p className="mb-4 text-sm text-muted">
          Your account has a temporary password. Replace it to continue.
        </p>
        <PasswordSection onChanged={() => session.refetch()} />
      </main>
    );
  }
  if (session.data.user.twoFactorSetupRequired) {
    // Administrators require two-factor sign-in: the API refuses everything else until it is on.
    return (
      <main className="mx-auto max-w-2xl p-6">
        <h1 className="mb-2 text-xl font-semibold">Turn on two-factor sign-in</h1>
        <p className="mb-4 text-sm text-muted">
          Your administrators require a code from an authenticator app at sign-in. Set it up to continue.
        </p>
        <TwoFactorSection onEnabled={() => session.refetch()} />
      </main>
    );
  }
  // OAuth sign-in of an MCP client: the consent page, on its own like the sign-in page.
  if (location === '/oauth/authorize') return <OAuthConsentPage />;
  return (
    <Shell>
      <Suspense fallback={<Skeleton className="m-4 h-32" />}>
        <Switch>
          <Route path="/">
            <ProjectsPage />
          </Route>
          <Route path="/projects">
            <ProjectsPage />
          </Route>
          <Route path="/search">
            <SearchPage />
          </Route>
          <Route path="/profile">
            <ProfilePage />
          </Route>
          <Route path="/inbox">
            <InboxPage />
          </Route>
          <Route path="/people/:username">{(p) => <PersonPage username={p.username} />}</Route>
          <Route path="/admin/:section?">{(p) => <AdminPage section={p.section} />}</Route>
          <Route path="/projects/:key/backlog">
            {(p) => <BacklogPage projectKey={p.key.toUpperCase()} />}
          </Route>
          <Route path="/projects/:key/epics">{(p) => <EpicsPage projectKey={p.key.toUpperCase()} />}</Route>
          <Route path="/projects/:key/timeline">
            {(p) => <TimelinePage projectKey={p.key.toUpperCase()} />}
          </Route>
          <Route path="/projects/:key/reports">
            {(p) => <ReportsPage projectKey={p.key.toUpperCase()} />}
          </Route>
          <Route path="/projects/:key/import">{(p) => <ImportPage projectKey={p.key.toUpperCase()} />}</Route>
          <Route path="/projects/:key/settings">
            {(p) => <ProjectSettingsPage projectKey={p.key.toUpperCase()} />}
          </Route>
          <Route path="/projects/:key/:ticket?">
            {(p) => <ProjectPage projectKey={p.key.toUpperCase()} ticketRef={p.ticket?.toUpperCase()} />}
          </Route>
          <Route>
            <PageNotFound />
          </Route>
        </Switch>
      </Suspense>
    </Shell>
  );
}

export function App() {
  useSignedOutOn401();
  return (
    <Switch>
      <Route path="/sign-in">
        <SignInPage />
      </Route>
      <Route path="/register">
        <RegisterPage />
      </Route>
      <Route path="/forgot-password">
        <ForgotPasswordPage />
      </Route>
      <Route path="/reset-password">
        <ResetPasswordPage />
      </Route>
      <Route>
        <Authenticated />
      </Route>
    </Switch>
  );
}
