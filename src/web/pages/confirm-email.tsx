import { useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { Link, useLocation } from 'wouter';
import { ERR } from '../../shared/errors';
import { errorText } from '../api/client';
import { qk } from '../api/keys';
import { confirmRegistration, fetchSession, signIn } from '../api/session';
import { Button, Field, Input } from '../components/ui';
import { AuthFrame, FormAlert } from './auth';

/**
 * Confirms a new account with the token of the e-mail's link (`/confirm-email#token=…`) and the
 * password chosen when registering, then signs in with it.
 */
export function ConfirmEmailPage() {
  const [, navigate] = useLocation();
  const qc = useQueryClient();
  const token = new URLSearchParams(typeof window === 'undefined' ? '' : window.location.hash.slice(1)).get(
    'token',
  );
  const [password, setPassword] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (!token) return;
    setBusy(true);
    setError(null);
    let username: string;
    try {
      username = (await confirmRegistration({ token, password })).username;
    } catch (err) {
      setError(errorText(err));
      setBusy(false);
      return;
    }
    try {
      await signIn(username, password);
      qc.clear();
      await qc.fetchQuery({ queryKey: qk.session, queryFn: fetchSession });
      navigate('/', { replace: true });
    } catch {
      // The account exists; signing in is left to the sign-in page (a limit, two-factor sign-in…).
      navigate('/sign-in', { replace: true });
    }
  };

  return (
    <AuthFrame
      title="Confirm your account"
      footer={
        <Link href="/sign-in" className="text-accent hover:underline">
          Back to sign-in
        </Link>
      }
    >
      {!token ? (
        <FormAlert>{ERR.invalidConfirmationLink}</FormAlert>
      ) : (
        <form onSubmit={submit} className="flex flex-col gap-3" noValidate>
          <p className="text-muted">Enter the password you chose when you registered to finish.</p>
          <Field label="Password">
            {(id) => (
              <Input
                id={id}
                name="password"
                type="password"
                autoComplete="current-password"
                autoFocus
                value={password}
                onChange={(e) => setPassword(e.target.value)}
              />
            )}
          </Field>
          {error && <FormAlert>{error}</FormAlert>}
          <Button type="submit" variant="primary" disabled={busy || !password}>
            {busy ? 'Confirming…' : 'Confirm account'}
          </Button>
        </form>
      )}
    </AuthFrame>
  );
}
