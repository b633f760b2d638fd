import { useEffect, useState } from 'react';
import { errorText } from '../api/client';
import { type AuthorizationCheck, useAuthorizationCheck, useDecideAuthorization } from '../api/oauth';
import { useSession } from '../api/session';
import { FormError } from '../components/ProjectNav';
import { Button, Skeleton } from '../components/ui';
import { AuthFrame } from './auth';

const SCOPE_TEXT = {
  read: { label: 'Read only', hint: 'See the projects, tickets and sprints you can see.' },
  write: {
    label: 'Read and write',
    hint: 'Also create, change and delete what you may: tickets, comments, sprints, projects.',
  },
} as const;

/**
 * The consent page of OAuth sign-in (`/oauth/authorize`): a signed-in user lets an MCP client act
 * for them, with a scope they pick, or denies it. The browser then goes back to the client.
 */
export function OAuthConsentPage() {
  const search = window.location.search;
  const session = useSession();
  const check = useAuthorizationCheck(search);
  const decideAuthorization = useDecideAuthorization(search);
  const [scope, setScope] = useState<'read' | 'write' | null>(null);
  const [leaving, setLeaving] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const data = check.data;
  // A request the client can be told about (a fault in it) goes straight back to the client.
  useEffect(() => {
    if (data?.kind !== 'redirect') return;
    setLeaving(data.redirectTo);
    window.location.assign(data.redirectTo);
  }, [data]);
  const consent = data?.kind === 'consent' ? data : null;
  // Least privilege first: read-only unless the user picks more.
  const chosen = scope ?? 'read';

  const decide = async (approve: boolean) => {
    setBusy(true);
    setError(null);
    try {
      const { redirectTo } = await decideAuthorization.mutateAsync({
        approve,
        grantScope: approve ? chosen : undefined,
      });
      setLeaving(redirectTo);
      window.location.assign(redirectTo);
    } catch (err) {
      setError(errorText(err));
      setBusy(false);
    }
  };

  return (
    <AuthFrame
      title={consent ? `Allow ${consent.client.name} to use Docket?` : 'Connect an app'}
      footer="You can revoke access at any time in your profile, under Connected apps."
    >
      {check.isPending && <Skeleton className="h-24" />}
      {check.isError && (
        <div role="alert" className="flex flex-col gap-2">
          <p className="font-medium text-danger">This sign-in request cannot be used.</p>
          <p className="text-muted">{errorText(check.error)}. Start the sign-in again from the app.</p>
        </div>
      )}
      {leaving && <p className="text-muted">Returning to the app…</p>}
      {consent && !leaving && (
        <ConsentForm
          consent={consent}
          username={session.data?.user?.username ?? ''}
          scope={chosen}
          onScope={setScope}
          busy={busy}
          onDecide={decide}
          error={error}
        />
      )}
    </AuthFrame>
  );
}

function ConsentForm({
  consent,
  username,
  scope,
  onScope,
  busy,
  onDecide,
  error,
}: {
  consent: Extract<AuthorizationCheck, { kind: 'consent' }>;
  username: string;
  scope: 'read' | 'write';
  onScope: (s: 'read' | 'write') => void;
  busy: boolean;
  onDecide: (approve: boolean) => void;
  error: string | null;
}) {
  return (
    <div className="flex flex-col gap-4" data-testid="oauth-consent">
      <p>
        <strong>{consent.client.name}</strong> wants to act in Docket as <strong>{username}</strong>, with
        your projects and your rights (never as an administrator).
      </p>
      <dl className="grid grid-cols-[auto_1fr] gap-x-3 gap-y-1 text-[12px]">
        <dt className="text-muted">Returns to</dt>
        <dd className="break-all">{consent.redirectUri}</dd>
        {consent.client.uri && (
          <>
            <dt className="text-muted">Website</dt>
            <dd className="break-all">{consent.client.uri}</dd>
          </>
        )}
      </dl>
      <fieldset className="flex flex-col gap-2">
        <legend className="mb-1 font-medium">Access</legend>
        {consent.scopes.map((s) => (
          <label key={s} className="flex cursor-pointer items-start gap-2">
            <input
              type="radio"
              name="scope"
              value={s}
              checked={scope === s}
              onChange={() => onScope(s)}
              className="mt-1"
            />
            <span>
              <span className="font-medium">{SCOPE_TEXT[s].label}</span>
              <span className="block text-[12px] text-muted">{SCOPE_TEXT[s].hint}</span>
            </span>
          </label>
        ))}
      </fieldset>
      <p className="text-[12px] text-muted">
        The name “{consent.client.name}” is given by the app itself. Allow only an app you started.
      </p>
      <FormError error={error} />
      <div className="flex justify-end gap-2">
        <Button onClick={() => onDecide(false)} disabled={busy}>
          Deny
        </Button>
        <Button variant="primary" onClick={() => onDecide(true)} disabled={busy}>
          Allow
        </Button>
      </div>
    </div>
  );
}
