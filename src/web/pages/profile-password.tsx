/**
 * The password change's two sides of what ends with it (docs/security.md): before, a dialog that
 * lists my API keys, each with a box to keep it working, and the connected apps that will be
 * disconnected; after, what was ended and what was kept.
 */
import { type FormEvent, useState } from 'react';
import type { PasswordChangedOut } from '../../shared/security.js';
import type { OAuthGrantItem } from '../api/oauth';
import type { ApiKeyItem } from '../api/security';
import { Button, Dialog } from '../components/ui';

const quoted = (names: string[]) => names.map((n) => `“${n}”`).join(', ');

/** Asks which API keys to keep; `onConfirm` gets their ids. */
export function EndCredentialsDialog({
  keys,
  grants,
  busy,
  onConfirm,
  onClose,
}: {
  keys: ApiKeyItem[];
  grants: OAuthGrantItem[];
  busy: boolean;
  onConfirm: (keep: string[]) => void;
  onClose: () => void;
}) {
  const [keep, setKeep] = useState<Set<string>>(() => new Set());
  const toggle = (id: string, on: boolean) =>
    setKeep((k) => {
      const next = new Set(k);
      if (on) next.add(id);
      else next.delete(id);
      return next;
    });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    onConfirm(keys.filter((k) => keep.has(k.id)).map((k) => k.id));
  };
  return (
    <Dialog title="Change your password?" onClose={onClose}>
      <form onSubmit={submit} className="flex flex-col gap-3">
        <p className="text-muted">
          Your other sessions are signed out. Your API keys stop working, unless you keep them here, and
          connected apps are disconnected: whoever may have had your password loses what they made with it.
        </p>
        {keys.length > 0 && (
          <fieldset className="flex flex-col gap-1" data-testid="keep-keys">
            <legend className="mb-1 font-medium">API keys to keep</legend>
            {keys.map((k) => (
              <label key={k.id} className="flex items-center gap-2">
                <input
                  type="checkbox"
                  checked={keep.has(k.id)}
                  onChange={(e) => toggle(k.id, e.target.checked)}
                />
                <span>
                  Keep “{k.name}”{' '}
                  <span className="text-faint">({k.scope === 'read' ? 'read-only' : 'read and write'})</span>
                </span>
              </label>
            ))}
          </fieldset>
        )}
        {grants.length > 0 && (
          <div>
            <p className="mb-1 font-medium">Connected apps to disconnect</p>
            <ul className="list-inside list-disc text-muted" data-testid="ending-grants">
              {grants.map((g) => (
                <li key={g.id}>{g.clientName}</li>
              ))}
            </ul>
          </div>
        )}
        <div className="flex justify-end gap-2">
          <Button onClick={onClose}>Cancel</Button>
          <Button type="submit" variant="primary" disabled={busy}>
            {busy ? 'Changing…' : 'Change password'}
          </Button>
        </div>
      </form>
    </Dialog>
  );
}

/** One sentence per kind of what a password change ended, and the keys it kept. */
export function endedLines(r: PasswordChangedOut): string[] {
  const { sessions, apiKeys, oauthGrants } = r.ended;
  const lines = [
    sessions === 0
      ? 'No other session was open.'
      : `${sessions} other ${sessions === 1 ? 'session was' : 'sessions were'} signed out.`,
  ];
  if (apiKeys.length > 0)
    lines.push(
      `${apiKeys.length === 1 ? 'API key' : 'API keys'} ended: ${quoted(apiKeys.map((k) => k.name))}.`,
    );
  if (oauthGrants.length > 0)
    lines.push(`Apps disconnected: ${quoted(oauthGrants.map((g) => g.clientName))}.`);
  if (r.keptApiKeys.length > 0)
    lines.push(
      `${r.keptApiKeys.length === 1 ? 'API key' : 'API keys'} kept: ${quoted(r.keptApiKeys.map((k) => k.name))}.`,
    );
  return lines;
}

export function EndedSummary({ result }: { result: PasswordChangedOut }) {
  return (
    <div
      role="status"
      className="rounded-md border border-line bg-surface-2 p-3 text-[13px]"
      data-testid="password-ended"
    >
      <p className="font-medium">What ended with the old password</p>
      {endedLines(result).map((line) => (
        <p key={line} className="text-muted">
          {line}
        </p>
      ))}
    </div>
  );
}
