import { useQueryClient } from '@tanstack/react-query';
import { type FormEvent, type ReactNode, useState } from 'react';
import { Link, useLocation, useSearch } from 'wouter';
import { PASSWORD_RULES } from '../../shared/accounts';
import { ApiError, errorText } from '../api/client';
import { qk } from '../api/keys';
import { fetchSession, register, signIn } from '../api/session';
import { Button, Field, Input } from '../components/ui';
import { useDocumentTitle } from '../hooks/title';

/** The path to return to after signing in: only a path on this site. */
export function nextPath(search: string): string {
  const next = new URLSearchParams(search).get('next');
  return next?.startsWith('/') && !next.startsWith('//') && !next.includes('\\') ? next : '/';
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

export function SignInPage() {
  const qc = useQueryClient();
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

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await signIn(username, password, needCode ? code : undefined);
      qc.clear();
      await qc.fetchQuery({ queryKey: qk.session, queryFn: fetchSession });
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
        <>
          New here?{' '}
          <Link href={`/register${search ? `?${search}` : ''}`} className="text-accent hover:underline">
            Create an account
          </Link>
        </>
      }
    >
      {expired && !error && (
        <p role="status" className="mb-3 rounded-md bg-surface-2 px-3 py-2 text-muted">
          Your session has ended. Sign in again to continue.
        </p>
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
        {error && (
          <p role="alert" className="rounded-md bg-danger-soft px-3 py-2 text-danger">
            {error}
          </p>
        )}
        <Button
          type="submit"
          variant="primary"
          disabled={busy || !username || !password || (needCode && !code.trim())}
        >
          {busy ? 'Signing in…' : 'Sign in'}
        </Button>
      </form>
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
  const qc = useQueryClient();
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
      await register({
        username: form.username,
        password: form.password,
        email: form.email || undefined,
        name: form.name || undefined,
      });
      await signIn(form.username, form.password);
      qc.clear();
      await qc.fetchQuery({ queryKey: qk.session, queryFn: fetchSession });
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
        {error && (
          <p role="alert" className="rounded-md bg-danger-soft px-3 py-2 text-danger">
            {error}
          </p>
        )}
        <Button type="submit" variant="primary" disabled={busy || !form.username || !passwordOk}>
          {busy ? 'Creating account…' : 'Create account'}
        </Button>
      </form>
    </AuthFrame>
  );
}
