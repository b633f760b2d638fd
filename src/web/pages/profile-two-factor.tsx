/** The profile's two-factor sign-in section (TOTP, issue 19). */
import { type FormEvent, useState } from 'react';
import { errorText } from '../api/client';
import { useDisableTwoFactor, useEnableTwoFactor, useMyTwoFactor, useStartTwoFactor } from '../api/security';
import { FormError, Section } from '../components/ProjectNav';
import { useToast } from '../components/toast';
import { Button, Field, Input, Skeleton } from '../components/ui';
import { CopyBlock } from './profile-access';

export function TwoFactorSection({ onEnabled }: { onEnabled?: () => void } = {}) {
  const toast = useToast();
  const status = useMyTwoFactor();
  const startTwoFactor = useStartTwoFactor();
  const enableTwoFactor = useEnableTwoFactor();
  const disableTwoFactor = useDisableTwoFactor();
  const [setup, setSetup] = useState<{ secret: string; otpauthUrl: string } | null>(null);
  const [code, setCode] = useState('');
  const [password, setPassword] = useState('');
  const [recovery, setRecovery] = useState<string[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const run = async (fn: () => Promise<void>) => {
    setBusy(true);
    setError(null);
    try {
      await fn();
    } catch (err) {
      setError(errorText(err));
    } finally {
      setBusy(false);
    }
  };
  const begin = () =>
    run(async () => {
      setRecovery(null);
      setSetup(await startTwoFactor.mutateAsync());
    });
  const enable = (e: FormEvent) => {
    e.preventDefault();
    return run(async () => {
      const res = await enableTwoFactor.mutateAsync(code);
      setRecovery(res.recoveryCodes);
      setSetup(null);
      setCode('');
      toast.show('Two-factor sign-in is on', 'success');
      onEnabled?.();
    });
  };
  const disable = (e: FormEvent) => {
    e.preventDefault();
    return run(async () => {
      await disableTwoFactor.mutateAsync({ password, code });
      setPassword('');
      setCode('');
      setRecovery(null);
      toast.show('Two-factor sign-in is off', 'success');
    });
  };
  const s = status.data;
  return (
    <Section
      title="Two-factor sign-in"
      description="After your password, signing in asks for a code from an authenticator app."
    >
      {status.isPending && <Skeleton className="h-8" />}
      {status.isError && <FormError error={errorText(status.error)} />}
      {s && !s.enabled && !setup && (
        <div className="flex items-center gap-3" data-testid="two-factor-off">
          <span className="text-muted">Off.</span>
          <Button variant="primary" onClick={begin} disabled={busy}>
            Set up two-factor sign-in
          </Button>
        </div>
      )}
      {setup && (
        <form onSubmit={enable} className="flex flex-col gap-3" data-testid="two-factor-setup">
          <p>
            Add this key to your authenticator app (or open the link on the device that has it), then enter
            the code it shows.
          </p>
          <CopyBlock label="Key" text={setup.secret} />
          <CopyBlock label="otpauth link" text={setup.otpauthUrl} />
          <Field label="Code from the app">
            {(id) => (
              <Input
                id={id}
                autoComplete="one-time-code"
                inputMode="numeric"
                value={code}
                onChange={(e) => setCode(e.target.value)}
              />
            )}
          </Field>
          <div>
            <Button type="submit" variant="primary" disabled={busy || !code.trim()}>
              Turn on
            </Button>
          </div>
        </form>
      )}
      {recovery && (
        <div
          className="mt-3 flex flex-col gap-2 rounded-md border border-accent/50 bg-accent-soft/40 p-3"
          data-testid="recovery-codes"
        >
          <p className="font-medium">
            Keep these recovery codes somewhere safe: each signs you in once without the app. They are not
            shown again.
          </p>
          <CopyBlock label="Recovery codes" text={recovery.join('\n')} />
        </div>
      )}
      {s?.enabled && (
        <form onSubmit={disable} className="mt-2 grid gap-3 sm:grid-cols-2" data-testid="two-factor-on">
          <p className="sm:col-span-2">
            <span className="font-medium text-success">On</span>
            <span className="text-muted"> · {s.recoveryCodesLeft} recovery codes left</span>
          </p>
          <Field label="Password">
            {(id) => (
              <Input
                id={id}
                type="password"
                autoComplete="current-password"
                value={password}
                onChange={(e) => setPassword(e.target.value)}
              />
            )}
          </Field>
          <Field label="Code or recovery code">
            {(id) => (
              <Input
                id={id}
                autoComplete="one-time-code"
                value={code}
                onChange={(e) => setCode(e.target.value)}
              />
            )}
          </Field>
          <div className="sm:col-span-2">
            <Button type="submit" variant="danger" disabled={busy || !password || !code.trim()}>
              Turn off
            </Button>
          </div>
        </form>
      )}
      <div className="mt-2">
        <FormError error={error} />
      </div>
    </Section>
  );
}
