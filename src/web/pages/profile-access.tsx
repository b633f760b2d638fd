/** Profile: e-mail, password, the API key with MCP client configurations, and deleting the account. */
import { type FormEvent, useState } from 'react';
import { useLocation } from 'wouter';
import { PASSWORD_RULES } from '../../shared/accounts';
import { BASE_PATH, errorText } from '../api/client';
import {
  useChangeMyEmail,
  useChangeMyPassword,
  useCreateMcpKey,
  useDeleteMyAccount,
  useKeyStatus,
  useRevokeMcpKey,
} from '../api/me';
import type { Me } from '../api/types';
import { ConfirmDialog } from '../components/ConfirmDialog';
import { DangerZone } from '../components/DangerZone';
import { FormError, Section } from '../components/ProjectNav';
import { fullTime, relativeTime } from '../components/time';
import { useToast } from '../components/toast';
import { Button, Field, Input, Skeleton } from '../components/ui';
import { PasswordRules } from './auth';

export function EmailSection({ me }: { me: Me }) {
  const changeMyEmail = useChangeMyEmail();
  const toast = useToast();
  const [email, setEmail] = useState(me.email ?? '');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await changeMyEmail.mutateAsync({ email: email.trim(), password });
      setPassword('');
      toast.show('E-mail address changed', 'success');
    } catch (err) {
      setError(errorText(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <Section title="E-mail address" description="Changing it needs your current password.">
      <form onSubmit={submit} className="grid gap-3 sm:grid-cols-2">
        <Field label="E-mail">
          {(id) => (
            <Input
              id={id}
              type="email"
              autoComplete="email"
              value={email}
              onChange={(e) => setEmail(e.target.value)}
            />
          )}
        </Field>
        <Field label="Current password">
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
        <div className="flex items-center gap-2 sm:col-span-2">
          <Button
            type="submit"
            variant="primary"
            disabled={busy || !password || !email.trim() || email.trim() === (me.email ?? '')}
          >
            Change e-mail
          </Button>
        </div>
        <div className="sm:col-span-2">
          <FormError error={error} />
        </div>
      </form>
    </Section>
  );
}

export function PasswordSection({ onChanged }: { onChanged?: () => void } = {}) {
  const changeMyPassword = useChangeMyPassword();
  const toast = useToast();
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const [again, setAgain] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const ok = PASSWORD_RULES.every((r) => r.test(next));
  const mismatch = again.length > 0 && again !== next;
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await changeMyPassword.mutateAsync({ currentPassword: current, newPassword: next });
      setCurrent('');
      setNext('');
      setAgain('');
      toast.show('Password changed; your other sessions have been signed out', 'success');
      onChanged?.();
    } catch (err) {
      setError(errorText(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <Section title="Password" description="Changing it signs you out everywhere else.">
      <form onSubmit={submit} className="grid gap-3 sm:grid-cols-2">
        <div className="sm:col-span-2 sm:max-w-[calc(50%-6px)]">
          <Field label="Current password">
            {(id) => (
              <Input
                id={id}
                type="password"
                autoComplete="current-password"
                value={current}
                onChange={(e) => setCurrent(e.target.value)}
              />
            )}
          </Field>
        </div>
        <Field label="New password" hint={<PasswordRules password={next} />}>
          {(id) => (
            <Input
              id={id}
              type="password"
              autoComplete="new-password"
              value={next}
              onChange={(e) => setNext(e.target.value)}
            />
          )}
        </Field>
        <Field label="Repeat new password" error={mismatch ? 'The passwords differ' : null}>
          {(id) => (
            <Input
              id={id}
              type="password"
              autoComplete="new-password"
              value={again}
              onChange={(e) => setAgain(e.target.value)}
            />
          )}
        </Field>
        <div className="sm:col-span-2">
          <Button type="submit" variant="primary" disabled={busy || !current || !ok || again !== next}>
            Change password
          </Button>
        </div>
        <div className="sm:col-span-2">
          <FormError error={error} />
        </div>
      </form>
    </Section>
  );
}

export const MCP_PATH_KEY = 'docket-mcp-path';

/** Client configurations for the stdio tool server and for the HTTP endpoint. */
export function mcpConfigs(apiKey: string, folder: string) {
  const site = `${window.location.origin}${BASE_PATH}`;
  const dir = folder.replace(/\/+$/, '') || '/path/to/docket';
  const stdio = {
    mcpServers: {
      docket: {
        command: 'node',
        args: [`${dir}/bin/docket-mcp.js`],
        env: { MCP_API_KEY: apiKey, DOCKET_URL: site },
      },
    },
  };
  const http = {
    mcpServers: {
      docket: {
        type: 'http',
        url: `${site}/api/mcp`,
        headers: { Authorization: `Bearer ${apiKey}` },
      },
    },
  };
  return { stdio: JSON.stringify(stdio, null, 2), http: JSON.stringify(http, null, 2) };
}

export function CopyBlock({ label, text }: { label: string; text: string }) {
  const [copied, setCopied] = useState(false);
  const toast = useToast();
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text);
      setCopied(true);
      setTimeout(() => setCopied(false), 1500);
    } catch {
      toast.error('Copying is not allowed here: select the text and copy it yourself.');
    }
  };
  return (
    <div className="flex flex-col gap-1">
      <div className="flex items-center justify-between">
        <span className="text-[12px] font-medium text-muted">{label}</span>
        <Button size="sm" onClick={copy} aria-label={`Copy ${label}`}>
          {copied ? 'Copied' : 'Copy'}
        </Button>
      </div>
      <pre
        className="max-h-64 overflow-auto rounded-md border border-line bg-surface-2 p-2 font-mono text-[12px] whitespace-pre text-fg"
        data-testid={`copy-${label}`}
      >
        {text}
      </pre>
    </div>
  );
}

export function ApiKeySection() {
  const createMcpKey = useCreateMcpKey();
  const revokeMcpKey = useRevokeMcpKey();
  const toast = useToast();
  const status = useKeyStatus();
  const [created, setCreated] = useState<string | null>(null);
  const [confirm, setConfirm] = useState<'replace' | 'revoke' | null>(null);
  const [folder, setFolder] = useState(() => localStorage.getItem(MCP_PATH_KEY) ?? '/path/to/docket');
  const [error, setError] = useState<string | null>(null);
  const create = async () => {
    setError(null);
    try {
      const res = await createMcpKey.mutateAsync();
      setCreated(res.apiKey);
    } catch (err) {
      setError(errorText(err));
    }
  };
  const revoke = async () => {
    await revokeMcpKey.mutateAsync();
    setCreated(null);
    toast.show('API key revoked', 'success');
  };
  const s = status.data;
  const configs = created ? mcpConfigs(created, folder) : null;
  return (
    <Section
      title="API key for AI assistants"
      description="The write key named MCP lets an assistant act as you through the tool server. It is shown once."
    >
      {status.isPending && <Skeleton className="h-6 w-64" />}
      {status.isError && <FormError error={errorText(status.error)} />}
      {s && (
        <div className="flex flex-wrap items-center gap-2" data-testid="key-status">
          {s.hasKey ? (
            <span>
              <span className="font-medium text-success">Active key</span>
              <span className="text-muted">
                {' '}
                · created <time title={fullTime(s.createdAt!)}>{relativeTime(s.createdAt!)}</time> ·{' '}
                {s.lastUsedAt ? (
                  <>
                    last used <time title={fullTime(s.lastUsedAt)}>{relativeTime(s.lastUsedAt)}</time>
                  </>
                ) : (
                  'never used'
                )}
              </span>
            </span>
          ) : (
            <span className="text-muted">No key yet.</span>
          )}
          <span className="flex-1" />
          {s.hasKey ? (
            <>
              <Button onClick={() => setConfirm('replace')}>Create a new key</Button>
              <Button variant="danger" onClick={() => setConfirm('revoke')}>
                Revoke key
              </Button>
            </>
          ) : (
            <Button variant="primary" onClick={create}>
              Create API key
            </Button>
          )}
        </div>
      )}
      <div className="mt-2">
        <FormError error={error} />
      </div>
      {created && configs && (
        <div
          className="mt-3 flex flex-col gap-3 rounded-md border border-accent/50 bg-accent-soft/40 p-3"
          data-testid="new-key"
        >
          <p className="font-medium">Copy your key now: it will not be shown again.</p>
          <CopyBlock label="API key" text={created} />
          <Field
            label="Folder of Docket on the machine that runs the assistant"
            hint="Used in the stdio configuration below."
          >
            {(id) => (
              <Input
                id={id}
                value={folder}
                onChange={(e) => {
                  setFolder(e.target.value);
                  localStorage.setItem(MCP_PATH_KEY, e.target.value);
                }}
              />
            )}
          </Field>
          <CopyBlock label="Configuration for the stdio tool server" text={configs.stdio} />
          <CopyBlock label="Configuration for the HTTP endpoint" text={configs.http} />
        </div>
      )}
      {confirm === 'replace' && (
        <ConfirmDialog
          title="Create a new API key?"
          confirmLabel="Create new key"
          danger={false}
          onClose={() => setConfirm(null)}
          onConfirm={create}
        >
          The current key stops working at once; assistants using it need the new one.
        </ConfirmDialog>
      )}
      {confirm === 'revoke' && (
        <ConfirmDialog
          title="Revoke the API key?"
          confirmLabel="Revoke key"
          onClose={() => setConfirm(null)}
          onConfirm={revoke}
        >
          Assistants using this key lose access at once.
        </ConfirmDialog>
      )}
    </Section>
  );
}

export function DeleteAccountSection() {
  const deleteMyAccount = useDeleteMyAccount();
  const [, navigate] = useLocation();
  return (
    <DangerZone
      title="Delete account"
      description="Removes your profile, avatar, key and memberships. Tickets and comments you wrote stay, shown as by a deleted user. Projects you own pass to their first admin or member; a project with no other member is deleted."
      action="Delete my account…"
      dialogTitle="Delete your account?"
      confirmLabel="Delete my account"
      busyLabel="Deleting…"
      password
      typeText="delete my account"
      onConfirm={async (password) => {
        await deleteMyAccount.mutateAsync({ password, confirmation: 'delete my account' });
        navigate('/sign-in', { replace: true });
      }}
    >
      This cannot be undone.
    </DangerZone>
  );
}
