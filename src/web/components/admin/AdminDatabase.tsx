import { type FormEvent, useRef, useState } from 'react';
import { useLocation } from 'wouter';
import { WIPE_CONFIRMATION } from '../../../shared/database-admin';
import { useExportBackup, useImportBackup, useWipeDatabase, useWipeProjects } from '../../api/admin';
import { errorText } from '../../api/client';
import { formatBytes } from '../../api/upload';
import { ConfirmDialog } from '../ConfirmDialog';
import { DangerZone } from '../DangerZone';
import { FormError, Section } from '../ProjectNav';
import { useToast } from '../toast';
import { Button, Field, Input } from '../ui';
import { showLastingNotice } from './notice';

/** Typed confirmations for the two operations whose API asks only for the password. */
const IMPORT_CONFIRMATION = 'replace all data';
const WIPE_PROJECTS_CONFIRMATION = 'wipe projects';
/** "1 project", "2 projects". */
export const count = (n: number, noun: string) => `${n} ${noun}${n === 1 ? '' : 's'}`;

/** Larger backups are not read in the browser for a preview; the server still checks them in full. */
const PREVIEW_MAX_BYTES = 256 * 1024 * 1024;

/** Hands a finished download to the browser as a file to save. */
function saveBlob(blob: Blob, name: string) {
  const href = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = href;
  a.download = name;
  a.rel = 'noopener';
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(href), 60_000);
}

/** After an import or a full wipe the server has ended every session, this one too: to the sign-in page. */
function useToSignIn() {
  const [, navigate] = useLocation();
  return () => navigate('/sign-in', { replace: true });
}

export function AdminDatabase() {
  return (
    <div className="flex max-w-3xl flex-col gap-4 p-4">
      <ExportSection />
      <ImportSection />
      <WipeProjectsSection />
      <WipeAllSection />
    </div>
  );
}

interface ExportState {
  phase: 'running' | 'done';
  received: number;
  total: number | null;
  name?: string;
}

function ExportSection() {
  const exportBackup = useExportBackup();
  const [password, setPassword] = useState('');
  const [state, setState] = useState<ExportState | null>(null);
  const [error, setError] = useState<string | null>(null);
  const abort = useRef<AbortController | null>(null);
  const running = state?.phase === 'running';

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setError(null);
    const ctrl = new AbortController();
    abort.current = ctrl;
    setState({ phase: 'running', received: 0, total: null });
    try {
      const { blob, name, received, total } = await exportBackup.mutateAsync({
        confirmPassword: password,
        signal: ctrl.signal,
        onProgress: (received, total) => setState({ phase: 'running', received, total }),
      });
      saveBlob(blob, name);
      setState({ phase: 'done', received, total, name });
      setPassword('');
    } catch (err) {
      setState(null);
      setError((err as Error).name === 'AbortError' ? 'Export cancelled.' : errorText(err));
    } finally {
      abort.current = null;
    }
  };

  return (
    <Section
      title="Export"
      description="Downloads every user, project, ticket, sprint, setting and stored file as one JSON file. Keep it safe: it holds password hashes."
    >
      <form onSubmit={submit} className="flex flex-wrap items-end gap-2">
        <div className="w-64">
          <Field label="Your password">
            {(id) => (
              <Input
                id={id}
                type="password"
                autoComplete="current-password"
                value={password}
                disabled={running}
                onChange={(e) => setPassword(e.target.value)}
              />
            )}
          </Field>
        </div>
        <Button type="submit" variant="primary" disabled={running || !password}>
          {running ? 'Exporting…' : 'Download backup'}
        </Button>
        {running && <Button onClick={() => abort.current?.abort()}>Cancel</Button>}
      </form>
      {state && (
        <div className="mt-3 flex flex-col gap-1" data-testid="export-progress">
          {state.phase === 'running' ? (
            <progress
              className="h-2 w-full"
              aria-label="Export progress"
              max={state.total ?? undefined}
              value={state.total ? state.received : undefined}
            />
          ) : null}
          <p className="text-muted" aria-live="polite">
            {state.phase === 'running'
              ? `Received ${formatBytes(state.received)}${state.total ? ` of ${formatBytes(state.total)}` : ''}…`
              : `Saved ${state.name} (${formatBytes(state.received)}).`}
          </p>
        </div>
      )}
      <div className="mt-2">
        <FormError error={error} />
      </div>
    </Section>
  );
}

interface Preview {
  exportedAt: string | null;
  version: number;
  counts: { label: string; n: number }[];
}

/** Reads a backup in the browser to show what it holds; throws a readable reason when it is not one. */
async function previewBackup(file: File): Promise<Preview> {
  let doc: any;
  try {
    doc = JSON.parse(await file.text());
  } catch {
    throw new Error('This file is not JSON, so it is not a Docket backup.');
  }
  if (!doc || typeof doc !== 'object' || doc.format !== 'docket-backup')
    throw new Error('This file is not a Docket backup (its format is not "docket-backup").');
  if (typeof doc.version !== 'number') throw new Error('This backup has no version number.');
  const data = doc.data && typeof doc.data === 'object' ? doc.data : {};
  const rows = (table: string) => (Array.isArray(data[table]) ? data[table].length : 0);
  const files = doc.files && typeof doc.files === 'object' ? doc.files : {};
  const fileCount = Object.values(files).reduce<number>(
    (n, kind) => n + (kind && typeof kind === 'object' ? Object.keys(kind).length : 0),
    0,
  );
  return {
    exportedAt: typeof doc.exportedAt === 'string' ? doc.exportedAt : null,
    version: doc.version,
    counts: [
      { label: 'Users', n: rows('users') },
      { label: 'Projects', n: rows('projects') },
      { label: 'Tickets', n: rows('tickets') },
      { label: 'Sprints', n: rows('sprints') },
      { label: 'Comments', n: rows('comments') },
      { label: 'Stored files', n: fileCount },
    ],
  };
}

function ImportSection() {
  const toSignIn = useToSignIn();
  const importBackup = useImportBackup();
  const input = useRef<HTMLInputElement>(null);
  const [file, setFile] = useState<File | null>(null);
  const [preview, setPreview] = useState<Preview | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [reading, setReading] = useState(false);
  const [confirming, setConfirming] = useState(false);
  const [progress, setProgress] = useState<number | null>(null);

  const pick = async (f: File | undefined) => {
    setPreview(null);
    setProblem(null);
    setFile(f ?? null);
    if (!f) return;
    if (f.size > PREVIEW_MAX_BYTES) return;
    setReading(true);
    try {
      setPreview(await previewBackup(f));
    } catch (err) {
      setProblem((err as Error).message);
    } finally {
      setReading(false);
    }
  };

  const run = async (confirmPassword: string) => {
    if (!file) return;
    setProgress(0);
    try {
      const res = await importBackup.mutateAsync({ file, confirmPassword, onProgress: setProgress });
      const c = res.imported;
      showLastingNotice('Backup imported', (close) => (
        <>
          <p>
            The backup replaced all data: {count(c.users, 'user')}, {count(c.projects, 'project')},{' '}
            {count(c.tickets, 'ticket')} and {count(c.sprints, 'sprint')}.
          </p>
          <p className="text-muted">
            Everyone has been signed out, you too. Sign in with an account from the backup.
          </p>
          <div className="flex justify-end">
            <Button variant="primary" data-autofocus onClick={close}>
              Sign in
            </Button>
          </div>
        </>
      ));
      toSignIn();
    } finally {
      setProgress(null);
    }
  };

  return (
    <Section
      title="Import"
      description="Replaces all data and files with a backup made by Export. Everyone, you included, is signed out afterwards."
      danger
    >
      <input
        ref={input}
        type="file"
        accept="application/json,.json"
        className="sr-only"
        aria-label="Choose a backup file"
        data-testid="import-input"
        onChange={(e) => {
          pick(e.target.files?.[0]);
          e.target.value = '';
        }}
      />
      <div className="flex flex-wrap items-center gap-2">
        <Button onClick={() => input.current?.click()}>Choose backup file…</Button>
        {file && (
          <span className="min-w-0 truncate text-muted">
            {file.name} · {formatBytes(file.size)}
          </span>
        )}
      </div>
      {reading && <p className="mt-2 text-muted">Reading the backup…</p>}
      {problem && (
        <div className="mt-2">
          <FormError error={problem} />
        </div>
      )}
      {file && !reading && !problem && !preview && (
        <p className="mt-2 text-muted">
          This file is too large to preview here; the server checks all of it before changing anything.
        </p>
      )}
      {preview && (
        <div className="mt-3 rounded-md border border-line bg-surface-2 p-3" data-testid="import-preview">
          <div className="mb-2 text-muted">
            Backup format version {preview.version}
            {preview.exportedAt && <>, exported {new Date(preview.exportedAt).toLocaleString()}</>}. It holds:
          </div>
          <dl className="grid grid-cols-3 gap-2 sm:grid-cols-6">
            {preview.counts.map((c) => (
              <div key={c.label} className="flex flex-col">
                <dt className="text-[12px] text-faint">{c.label}</dt>
                <dd className="text-[16px] font-semibold tabular-nums" data-testid={`preview-${c.label}`}>
                  {c.n}
                </dd>
              </div>
            ))}
          </dl>
        </div>
      )}
      {file && !reading && !problem && (
        <div className="mt-3">
          <Button variant="danger" onClick={() => setConfirming(true)}>
            Import and replace all data…
          </Button>
        </div>
      )}
      {confirming && file && (
        <ConfirmDialog
          title="Replace all data with this backup?"
          confirmLabel="Import backup"
          busyLabel={progress !== null && progress < 1 ? 'Uploading…' : 'Importing…'}
          password
          typeText={IMPORT_CONFIRMATION}
          onClose={() => setConfirming(false)}
          onConfirm={run}
        >
          <p>
            Every user, project, ticket, sprint, setting and file now here is replaced by the contents of{' '}
            <span className="font-medium text-fg">{file.name}</span>. The file is checked in full first; if it
            is not valid, nothing changes. Everyone is signed out afterwards.
          </p>
          {progress !== null && (
            <progress className="mt-3 h-2 w-full" max={1} value={progress} aria-label="Upload progress" />
          )}
        </ConfirmDialog>
      )}
    </Section>
  );
}

function WipeProjectsSection() {
  const toast = useToast();
  const wipeProjects = useWipeProjects();
  return (
    <DangerZone
      title="Wipe projects"
      description="Deletes every project with its tickets, sprints, comments and files. User accounts, passwords and system settings stay."
      action="Wipe all projects…"
      dialogTitle="Delete every project?"
      confirmLabel="Wipe projects"
      busyLabel="Wiping…"
      password
      typeText={WIPE_PROJECTS_CONFIRMATION}
      onConfirm={async (confirmPassword) => {
        const res = await wipeProjects.mutateAsync(confirmPassword);
        const w = res.wiped;
        toast.show(
          `Deleted ${count(w.projects, 'project')}, ${count(w.tickets, 'ticket')} and ${count(w.sprints, 'sprint')}`,
          'success',
        );
      }}
    >
      This cannot be undone; export a backup first if you may need them. Everyone working in a project is sent
      to the home page.
    </DangerZone>
  );
}

function WipeAllSection() {
  const toSignIn = useToSignIn();
  const wipeDatabase = useWipeDatabase();
  return (
    <DangerZone
      title="Wipe all data"
      description="Deletes everything: users, projects, tickets, sprints, settings and files. A new administrator account called admin is created with a temporary password."
      action="Wipe all data…"
      dialogTitle="Delete all data?"
      confirmLabel="Wipe all data"
      busyLabel="Wiping…"
      password
      typeText={WIPE_CONFIRMATION}
      onConfirm={async (confirmPassword) => {
        const res = await wipeDatabase.mutateAsync({ confirmPassword, confirmation: WIPE_CONFIRMATION });
        const cred = res.newAdminCredentials;
        showLastingNotice('All data wiped', (close) => (
          <Credentials username={cred.username} password={cred.temporaryPassword} onDone={close} />
        ));
        toSignIn();
      }}
    >
      This cannot be undone; export a backup first. Every account, yours included, is deleted and everyone is
      signed out.
    </DangerZone>
  );
}

function Credentials({
  username,
  password,
  onDone,
}: {
  username: string;
  password: string;
  onDone: () => void;
}) {
  const [copied, setCopied] = useState(false);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(password);
      setCopied(true);
    } catch {
      setCopied(false);
    }
  };
  return (
    <>
      <p>
        Every account was deleted and everyone signed out. Sign in as the new administrator with this
        temporary password, then choose your own in your profile.{' '}
        <span className="font-medium">It is shown only once.</span>
      </p>
      <dl className="grid grid-cols-[auto_1fr] items-center gap-x-3 gap-y-2 rounded-md border border-line bg-surface-2 p-3">
        <dt className="text-muted">Username</dt>
        <dd className="font-mono" data-testid="new-admin-username">
          {username}
        </dd>
        <dt className="text-muted">Password</dt>
        <dd className="flex items-center gap-2">
          <span className="font-mono break-all select-all" data-testid="new-admin-password">
            {password}
          </span>
        </dd>
      </dl>
      <div className="flex justify-end gap-2">
        <Button onClick={copy} aria-label="Copy the temporary password">
          {copied ? 'Copied' : 'Copy password'}
        </Button>
        <Button variant="primary" data-autofocus onClick={onDone}>
          I have saved it
        </Button>
      </div>
    </>
  );
}
