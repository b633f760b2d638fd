import { type FormEvent, type ReactNode, useState } from 'react';
import { Link, useLocation, useSearch } from 'wouter';
import { PASSWORD_RULES } from '../../shared/accounts';
import { ERR } from '../../shared/errors';
import { ApiError, errorText, url } from '../api/client';
import { useAuthOptions, useForgotPassword, useRegister, useResetPassword, useSignIn } from '../api/session';
import { Button, Field, Input } from '../components/ui';
import { useDocumentTitle } from '../hooks/title';

/** The path to return to after signing in: only a path on this site. */
export function nextPath(search: string): string {
  const next = new URLSearchParams(search).get('next');
  return next?.startsWith('/') && !next.startsWith('//') && !next.includes('\\') ? next : '/';
}

/** An error under a sign-in form, in the API's words. */
function FormAlert({ children, className = '' }: { children: ReactNode; className?: string }) {
  return (
    <p role="alert" className={`rounded-md bg-danger-soft px-3 py-2 text-danger ${className}`}>
      {children}
    </p>
  );
}

export function AuthFrame({
  title,
  children,
  footer,
}: {
  title: string;
  children: ReactNode;
  footer: ReactNode;
}) {
  useDocumentTitle(title);
  return (
    <main className="flex min-h-full items-start justify-center bg-subtle px-4 pt-[12vh]">
      <div className="w-full max-w-[360px]">
        <div className="mb-6 flex items-center gap-2">
          <span
            aria-hidden="true"
            className="inline-flex h-6 w-6 items-center justify-center rounded-md bg-accent text-[13px] font-bold text-accent-fg"
          >
            D
          </span>
          <span className="text-[15px] font-semibold">Docket</span>
        </div>
        <div className="rounded-lg border border-line bg-surface p-6">
          <h1 className="mb-4 text-[16px] font-semibold">{title}</h1>
          {children}
        </div>
        <div className="mt-4 text-center text-muted">{footer}</div>
      </div>
    </main>
  );
}

/** Why a single sign-on came back refused (`/sign-in?sso=<reason>`), in the API's words. */
const SSO_REFUSALS: Record<string, string> = {
  failed: ERR.ssoFailed,
  'no-account': ERR.ssoNoAccount,
  domain: ERR.ssoDomain,
  unverified: ERR.ssoUnverified,
  disabled: ERR.accountDisabled,
};

/** The single sign-on button, when the server has a provider configured. */
function SsoButton({ next }: { next: string }) {
  const options = useAuthOptions();
  const sso = options.data?.sso;
  if (!sso) return null;
  return (
    <>
      <a
        href={`${url('/api/auth/oidc/start')}?callbackUrl=${encodeURIComponent(url(next))}`}
        className="flex h-8 w-full items-center justify-center rounded-md border border-line bg-surface px-3 font-medium hover:bg-surface-2 focus-visible:outline-2 focus-visible:outline-accent"
      >
        Sign in with {sso.name}
      </a>
      <div className="my-3 flex items-center gap-2 text-[12px] text-faint" aria-hidden="true">
        <span className="h-px flex-1 bg-line" />
        or with a password
        <span className="h-px flex-1 bg-line" />
      </div>
    </>
  );
}

export function SignInPage() {
  const signIn = useSignIn();
  const search = useSearch();
  const [, navigate] = useLocation();
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  // Two-factor sign-in: after the password, the server asks for a code.
  const [needCode, setNeedCode] = useState(false);
  const [code, setCode] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const expired = new URLSearchParams(search).get('expired') === '1';
  const ssoRefusal = SSO_REFUSALS[new URLSearchParams(search).get('sso') ?? ''];
  const reset = new URLSearchParams(search).get('reset') === '1';
  const options = useAuthOptions();

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await signIn.mutateAsync({ username, password, code: needCode ? code : undefined });
      navigate(nextPath(search), { replace: true });
    } catch (err) {
      if (err instanceof ApiError && err.body.twoFactor === true && !needCode) {
        setNeedCode(true);
      } else {
        setError(errorText(err));
      }
      setBusy(false);
    }
  };

  return (
    <AuthFrame
      title="Sign in"
      footer={
        options.data?.registration === 'closed' ? null : (
          <>
            New here?{' '}
            <Link href={`/register${search ? `?${search}` : ''}`} className="text-accent hover:underline">
              Create an account
            </Link>
          </>
        )
      }
    >
      {expired && !error && (
        <p role="status" className="mb-3 rounded-md bg-surface-2 px-3 py-2 text-muted">
          Your session has ended. Sign in again to continue.
        </p>
      )}
      {reset && !error && (
        <p role="status" className="mb-3 rounded-md bg-surface-2 px-3 py-2 text-muted">
          Your password is changed and every session has ended. Sign in with the new password.
        </p>
      )}
      {ssoRefusal && <FormAlert className="mb-3">{ssoRefusal}</FormAlert>}
      <SsoButton next={nextPath(search)} />
      {options.data?.passwordSignIn === 'admins' && (
        <p className="mb-3 text-[12px] text-muted">Password sign-in is for administrators only.</p>
      )}
      <form onSubmit={submit} className="flex flex-col gap-3" noValidate>
        <Field label="Username or e-mail">
          {(id) => (
            <Input
              id={id}
              name="username"
              autoComplete="username"
              autoFocus
              required
              value={username}
              onChange={(e) => setUsername(e.target.value)}
            />
          )}
        </Field>
        <Field label="Password">
          {(id) => (
            <Input
              id={id}
              name="password"
              type="password"
              autoComplete="current-password"
              required
              value={password}
              onChange={(e) => setPassword(e.target.value)}
            />
          )}
        </Field>
        {needCode && (
          <Field label="Two-factor code" hint="From your authenticator app, or one of your recovery codes.">
            {(id) => (
              <Input
                id={id}
                name="code"
                autoComplete="one-time-code"
                inputMode="text"
                autoFocus
                value={code}
                onChange={(e) => setCode(e.target.value)}
              />
            )}
          </Field>
        )}
        {error && <FormAlert>{error}</FormAlert>}
        <Button
          type="submit"
          variant="primary"
          disabled={busy || !username || !password || (needCode && !code.trim())}
        >
          {busy ? 'Signing in…' : 'Sign in'}
        </Button>
        {options.data?.passwordReset && (
          <Link href="/forgot-password" className="self-center text-[12px] text-accent hover:underline">
            Forgot your password?
          </Link>
        )}
      </form>
    </AuthFrame>
  );
}

/** Asks for a reset link by e-mail address or username; the answer is the same either way. */
export function ForgotPasswordPage() {
  const forgotPassword = useForgotPassword();
  const [login, setLogin] = useState('');
  const [sent, setSent] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const value = login.trim();
      await forgotPassword.mutateAsync(value.includes('@') ? { email: value } : { username: value });
      setSent(true);
    } catch (err) {
      setError(errorText(err));
    }
    setBusy(false);
  };

  return (
    <AuthFrame
      title="Forgot your password?"
      footer={
        <Link href="/sign-in" className="text-accent hover:underline">
          Back to sign-in
        </Link>
      }
    >
      {sent ? (
        <p role="status" className="text-muted">
          If an account matches <strong className="text-fg">{login.trim()}</strong> and has an e-mail address,
          a link to choose a new password is on its way. It works once, for one hour.
        </p>
      ) : (
        <form onSubmit={submit} className="flex flex-col gap-3" noValidate>
          <Field label="E-mail or username" hint="We send a reset link to the account's e-mail address.">
            {(id) => (
              <Input
                id={id}
                name="login"
                autoComplete="username"
                autoFocus
                value={login}
                onChange={(e) => setLogin(e.target.value)}
              />
            )}
          </Field>
          {error && <FormAlert>{error}</FormAlert>}
          <Button type="submit" variant="primary" disabled={busy || !login.trim()}>
            {busy ? 'Sending…' : 'Send reset link'}
          </Button>
        </form>
      )}
    </AuthFrame>
  );
}

/** Sets a new password with the token from the e-mail's link (`/reset-password#token=…`). */
export function ResetPasswordPage() {
  const [, navigate] = useLocation();
  const resetPassword = useResetPassword();
  const token = new URLSearchParams(typeof window === 'undefined' ? '' : window.location.hash.slice(1)).get(
    'token',
  );
  const [password, setPassword] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const passwordOk = PASSWORD_RULES.every((r) => r.test(password));

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (!token) return;
    setBusy(true);
    setError(null);
    try {
      await resetPassword.mutateAsync({ token, password });
      navigate('/sign-in?reset=1', { replace: true });
    } catch (err) {
      setError(errorText(err));
      setBusy(false);
    }
  };

  return (
    <AuthFrame
      title="Choose a new password"
      footer={
        <Link href="/forgot-password" className="text-accent hover:underline">
          Ask for a new link
        </Link>
      }
    >
      {!token ? (
        <FormAlert>{ERR.invalidResetLink}</FormAlert>
      ) : (
        <form onSubmit={submit} className="flex flex-col gap-3" noValidate>
          <Field label="New password" hint={<PasswordRules password={password} />}>
            {(id) => (
              <Input
                id={id}
                name="password"
                type="password"
                autoComplete="new-password"
                autoFocus
                value={password}
                onChange={(e) => setPassword(e.target.value)}
              />
            )}
          </Field>
          <p className="text-[12px] text-muted">
            Every session of the account ends when the password changes.
          </p>
          {error && <FormAlert>{error}</FormAlert>}
          <Button type="submit" variant="primary" disabled={busy || !passwordOk}>
            {busy ? 'Saving…' : 'Set new password'}
          </Button>
        </form>
      )}
    </AuthFrame>
  );
}

export function PasswordRules({ password }: { password: string }) {
  return (
    <ul
      className="flex flex-col gap-0.5 text-[12px]"
      aria-label="Password rules"
      data-testid="password-rules"
    >
      {PASSWORD_RULES.map((rule) => {
        const ok = rule.test(password);
        return (
          <li key={rule.id} data-ok={ok} className={ok ? 'text-success' : 'text-faint'}>
            <span aria-hidden="true">{ok ? '✓' : '○'}</span> {rule.label}
            <span className="sr-only">{ok ? ' (met)' : ' (not met yet)'}</span>
          </li>
        );
      })}
    </ul>
  );
}

export function RegisterPage() {
  const register = useRegister();
  const signIn = useSignIn();
  const search = useSearch();
  const [, navigate] = useLocation();
  const [form, setForm] = useState({ username: '', name: '', email: '', password: '' });
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const set = (k: keyof typeof form) => (e: { target: { value: string } }) =>
    setForm((f) => ({ ...f, [k]: e.target.value }));
  const passwordOk = PASSWORD_RULES.every((r) => r.test(form.password));

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await register.mutateAsync({
        username: form.username,
        password: form.password,
        email: form.email || undefined,
        name: form.name || undefined,
      });
      await signIn.mutateAsync({ username: form.username, password: form.password });
      navigate(nextPath(search), { replace: true });
    } catch (err) {
      setError(errorText(err));
      setBusy(false);
    }
  };

  return (
    <AuthFrame
      title="Create your account"
      footer={
        <>
          Already have an account?{' '}
          <Link href={`/sign-in${search ? `?${search}` : ''}`} className="text-accent hover:underline">
            Sign in
          </Link>
        </>
      }
    >
      <form onSubmit={submit} className="flex flex-col gap-3" noValidate>
        <Field label="Username" hint="3-30 letters, digits, dashes or underscores">
          {(id) => (
            <Input
              id={id}
              name="username"
              autoComplete="username"
              autoFocus
              value={form.username}
              onChange={set('username')}
            />
          )}
        </Field>
        <Field label="Display name (optional)">
          {(id) => <Input id={id} name="name" autoComplete="name" value={form.name} onChange={set('name')} />}
        </Field>
        <Field label="E-mail (optional)">
          {(id) => (
            <Input
              id={id}
              name="email"
              type="email"
              autoComplete="email"
              value={form.email}
              onChange={set('email')}
            />
          )}
        </Field>
        <Field label="Password" hint={<PasswordRules password={form.password} />}>
          {(id) => (
            <Input
              id={id}
              name="password"
              type="password"
              autoComplete="new-password"
              value={form.password}
              onChange={set('password')}
            />
          )}
        </Field>
        {error && <FormAlert>{error}</FormAlert>}
        <Button type="submit" variant="primary" disabled={busy || !form.username || !passwordOk}>
          {busy ? 'Creating account…' : 'Create account'}
        </Button>
      </form>
    </AuthFrame>
  );
}
