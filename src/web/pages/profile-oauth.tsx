import { useState } from 'react';
import { errorText } from '../api/client';
import { type OAuthGrantItem, useMyOAuthGrants, useRevokeMyOAuthGrant } from '../api/oauth';
import { FormError, Section } from '../components/ProjectNav';
import { fullTime, relativeTime } from '../components/time';
import { useToast } from '../components/toast';
import { Button, Skeleton } from '../components/ui';

/** The MCP clients I signed in with OAuth, beside the API keys: each can be revoked at once. */
export function OAuthGrantsSection() {
  const toast = useToast();
  const grants = useMyOAuthGrants();
  const revokeMyOAuthGrant = useRevokeMyOAuthGrant();
  const [error, setError] = useState<string | null>(null);
  const revoke = async (g: OAuthGrantItem) => {
    setError(null);
    try {
      await revokeMyOAuthGrant.mutateAsync(g.id);
      toast.show(`Access of “${g.clientName}” revoked`, 'success');
    } catch (err) {
      setError(errorText(err));
    }
  };
  return (
    <Section
      title="Connected apps"
      description="Assistants you let in with OAuth sign-in. Revoking one stops its access at once."
    >
      {grants.isPending && <Skeleton className="h-12" />}
      {grants.isError && <FormError error={errorText(grants.error)} />}
      {grants.data?.length === 0 && <p className="text-muted">No app is connected.</p>}
      {grants.data && grants.data.length > 0 && (
        <ul className="flex flex-col divide-y divide-line" data-testid="oauth-grants">
          {grants.data.map((g) => (
            <li key={g.id} className="flex items-center gap-3 py-2" data-testid="oauth-grant">
              <div className="min-w-0 flex-1">
                <div className="font-medium">
                  {g.clientName}{' '}
                  <span className="text-[12px] text-muted">
                    ({g.scope === 'read' ? 'read' : 'read and write'})
                  </span>
                </div>
                <div className="text-[12px] text-muted">
                  allowed <time title={fullTime(g.createdAt)}>{relativeTime(g.createdAt)}</time> ·{' '}
                  {g.lastUsedAt ? (
                    <>
                      last used <time title={fullTime(g.lastUsedAt)}>{relativeTime(g.lastUsedAt)}</time>
                    </>
                  ) : (
                    'never used'
                  )}
                </div>
              </div>
              <Button size="sm" variant="danger" onClick={() => revoke(g)}>
                Revoke
              </Button>
            </li>
          ))}
        </ul>
      )}
      <FormError error={error} />
    </Section>
  );
}
