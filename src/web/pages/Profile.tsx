import { useQueryClient } from '@tanstack/react-query';
import { type FormEvent, type PointerEvent, useEffect, useMemo, useRef, useState } from 'react';
import { useLocation } from 'wouter';
import { PASSWORD_RULES } from '../../shared/accounts';
import { BASE_PATH, errorText } from '../api/client';
import { qk } from '../api/keys';
import {
  changeMyEmail,
  changeMyPassword,
  createApiKey,
  deleteMyAccount,
  removeMyAvatar,
  revokeApiKey,
  updateMyName,
  uploadAvatar,
  useKeyStatus,
  useMe,
} from '../api/me';
import type { KeyStatus, Me, Session } from '../api/types';
import { ConfirmDialog } from '../components/ConfirmDialog';
import { FormError, Section } from '../components/ProjectNav';
import { fullTime, relativeTime } from '../components/time';
import { useToast } from '../components/toast';
import { Avatar, Button, Dialog, ErrorState, Field, Input, Skeleton } from '../components/ui';
import { PasswordRules } from './auth';
import { PageHeader } from './projects';

/** Keeps the shell's signed-in user in step with the profile. */
function useSyncMe() {
  const qc = useQueryClient();
  return (me: Partial<Me>) => {
    qc.setQueryData<Me>(qk.me, (m) => (m ? { ...m, ...me } : m));
    qc.setQueryData<Session>(qk.session, (s) => (s?.user ? { ...s, user: { ...s.user, ...me } } : s));
  };
}

export function ProfilePage() {
  const me = useMe();
  return (
    <div className="flex h-full flex-col">
      <PageHeader title="Profile" />
      <div className="min-h-0 flex-1 overflow-y-auto p-4">
        {me.isError && <ErrorState message={errorText(me.error)} onRetry={() => me.refetch()} />}
        {me.isPending && (
          <div className="flex max-w-2xl flex-col gap-4" role="status" aria-busy="true" aria-label="Loading">
            <Skeleton className="h-28" />
            <Skeleton className="h-28" />
          </div>
        )}
        {me.data && (
          <div className="flex max-w-2xl flex-col gap-4">
            <NameSection me={me.data} />
            <AvatarSection me={me.data} />
            <EmailSection me={me.data} />
            <PasswordSection />
            <ApiKeySection />
            <DeleteAccountSection />
          </div>
        )}
      </div>
    </div>
  );
}

function NameSection({ me }: { me: Me }) {
  const sync = useSyncMe();
  const toast = useToast();
  const [name, setName] = useState(me.name ?? '');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const saved = await updateMyName(name.trim() || null);
      sync(saved);
      toast.show('Name saved', 'success');
    } catch (err) {
      setError(errorText(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <Section title="Name" description={`Your username is ${me.username}; it cannot change.`}>
      <form onSubmit={submit} className="flex items-end gap-2">
        <div className="flex-1">
          <Field label="Display name">
            {(id) => <Input id={id} value={name} maxLength={100} onChange={(e) => setName(e.target.value)} />}
          </Field>
        </div>
        <Button type="submit" variant="primary" disabled={busy || name.trim() === (me.name ?? '')}>
          Save name
        </Button>
      </form>
      <div className="mt-2">
        <FormError error={error} />
      </div>
    </Section>
  );
}

const AVATAR_TYPES = ['image/jpeg', 'image/png', 'image/gif', 'image/webp'];
const AVATAR_MAX = 2 * 1024 * 1024;
const CROP_VIEW = 224;

function AvatarSection({ me }: { me: Me }) {
  const sync = useSyncMe();
  const toast = useToast();
  const input = useRef<HTMLInputElement>(null);
  const [file, setFile] = useState<File | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const pick = (f: File | undefined) => {
    setError(null);
    if (!f) return;
    if (!AVATAR_TYPES.includes(f.type)) return setError('Choose a JPEG, PNG, GIF or WebP image.');
    if (f.size > AVATAR_MAX) return setError('The image is larger than 2 MB.');
    setFile(f);
  };
  const remove = async () => {
    setBusy(true);
    setError(null);
    try {
      await removeMyAvatar();
      sync({ avatar: null });
      toast.show('Avatar removed', 'success');
    } catch (err) {
      setError(errorText(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <Section title="Avatar" description="A JPEG, PNG, GIF or WebP image up to 2 MB, cropped to a square.">
      <div className="flex items-center gap-4">
        <Avatar name={me.name ?? me.username} src={me.avatar} size={64} />
        <input
          ref={input}
          type="file"
          accept={AVATAR_TYPES.join(',')}
          className="sr-only"
          aria-label="Choose an avatar image"
          data-testid="avatar-input"
          onChange={(e) => {
            pick(e.target.files?.[0]);
            e.target.value = '';
          }}
        />
        <Button onClick={() => input.current?.click()} disabled={busy}>
          Upload image…
        </Button>
        {me.avatar && (
          <Button variant="danger" onClick={remove} disabled={busy}>
            Remove avatar
          </Button>
        )}
      </div>
      <div className="mt-2">
        <FormError error={error} />
      </div>
      {file && (
        <CropDialog
          file={file}
          onClose={() => setFile(null)}
          onSaved={(avatar) => {
            sync({ avatar });
            toast.show('Avatar updated', 'success');
          }}
        />
      )}
    </Section>
  );
}

/** Square crop with zoom and drag; the crop is drawn to a 256x256 PNG and uploaded. */
function CropDialog({
  file,
  onClose,
  onSaved,
}: {
  file: File;
  onClose: () => void;
  onSaved: (avatar: string | null) => void;
}) {
  const src = useMemo(() => URL.createObjectURL(file), [file]);
  useEffect(() => () => URL.revokeObjectURL(src), [src]);
  const [img, setImg] = useState<HTMLImageElement | null>(null);
  const [zoom, setZoom] = useState(1);
  const [offset, setOffset] = useState({ x: 0, y: 0 });
  const [progress, setProgress] = useState<number | null>(null);
  const [error, setError] = useState<string | null>(null);
  const drag = useRef<{ x: number; y: number; ox: number; oy: number } | null>(null);
  useEffect(() => {
    const i = new Image();
    i.onload = () => {
      // Centred at zoom 1: the image covers the square.
      const b = CROP_VIEW / Math.min(i.naturalWidth, i.naturalHeight);
      setOffset({ x: (CROP_VIEW - i.naturalWidth * b) / 2, y: (CROP_VIEW - i.naturalHeight * b) / 2 });
      setImg(i);
    };
    i.onerror = () => setError('This image cannot be read.');
    i.src = src;
  }, [src]);
  // The image covers the square at zoom 1; offsets are in view pixels, kept inside the image.
  const base = img ? CROP_VIEW / Math.min(img.naturalWidth, img.naturalHeight) : 1;
  const scale = base * zoom;
  const w = img ? img.naturalWidth * scale : CROP_VIEW;
  const h = img ? img.naturalHeight * scale : CROP_VIEW;
  const clamp = (o: { x: number; y: number }) => ({
    x: Math.min(0, Math.max(CROP_VIEW - w, o.x)),
    y: Math.min(0, Math.max(CROP_VIEW - h, o.y)),
  });
  const pos = clamp(offset);
  const setZoomKeepingCentre = (z: number) => {
    if (!img) return;
    const cx = (CROP_VIEW / 2 - pos.x) / scale;
    const cy = (CROP_VIEW / 2 - pos.y) / scale;
    const s = base * z;
    setZoom(z);
    setOffset({ x: CROP_VIEW / 2 - cx * s, y: CROP_VIEW / 2 - cy * s });
  };
  const onDown = (e: PointerEvent) => {
    (e.target as Element).setPointerCapture?.(e.pointerId);
    drag.current = { x: e.clientX, y: e.clientY, ox: pos.x, oy: pos.y };
  };
  const onMove = (e: PointerEvent) => {
    const d = drag.current;
    if (d) setOffset({ x: d.ox + e.clientX - d.x, y: d.oy + e.clientY - d.y });
  };
  const save = async () => {
    if (!img) return;
    setError(null);
    setProgress(0);
    try {
      const canvas = document.createElement('canvas');
      canvas.width = 256;
      canvas.height = 256;
      const c2d = canvas.getContext('2d');
      if (!c2d) throw new Error('This browser cannot crop images.');
      const sx = -pos.x / scale;
      const sy = -pos.y / scale;
      const side = CROP_VIEW / scale;
      c2d.drawImage(img, sx, sy, side, side, 0, 0, 256, 256);
      const blob = await new Promise<Blob | null>((r) => canvas.toBlob(r, 'image/png'));
      if (!blob) throw new Error('The image could not be cropped.');
      const cropped = new File([blob], 'avatar.png', { type: 'image/png' });
      const res = await uploadAvatar(cropped, setProgress);
      onSaved(res.avatar);
      onClose();
    } catch (err) {
      setError(errorText(err));
      setProgress(null);
    }
  };
  const nudge = (dx: number, dy: number) => setOffset({ x: pos.x + dx, y: pos.y + dy });
  return (
    <Dialog title="Crop your avatar" onClose={onClose} width="max-w-sm">
      <div className="flex flex-col items-center gap-3">
        <button
          type="button"
          aria-label="Crop preview: drag to move the image, or use the arrow keys"
          data-testid="crop-preview"
          className="relative cursor-move touch-none overflow-hidden rounded-full border border-line bg-surface-2 focus:outline-2 focus:outline-accent"
          style={{ width: CROP_VIEW, height: CROP_VIEW }}
          onPointerDown={onDown}
          onPointerMove={onMove}
          onPointerUp={() => {
            drag.current = null;
          }}
          onKeyDown={(e) => {
            const step = e.shiftKey ? 20 : 5;
            const moves: Record<string, [number, number]> = {
              ArrowLeft: [step, 0],
              ArrowRight: [-step, 0],
              ArrowUp: [0, step],
              ArrowDown: [0, -step],
            };
            const m = moves[e.key];
            if (m) {
              e.preventDefault();
              nudge(m[0], m[1]);
            }
          }}
        >
          {img && (
            <img
              src={src}
              alt=""
              draggable={false}
              className="pointer-events-none absolute max-w-none select-none"
              style={{ left: pos.x, top: pos.y, width: w, height: h }}
            />
          )}
        </button>
        <label className="flex w-full items-center gap-2 text-[12px] text-muted">
          Zoom
          <input
            type="range"
            min={1}
            max={4}
            step={0.05}
            value={zoom}
            onChange={(e) => setZoomKeepingCentre(Number(e.target.value))}
            className="flex-1 accent-[var(--accent)]"
          />
        </label>
        {progress !== null && (
          <progress className="w-full" max={1} value={progress} aria-label="Upload progress" />
        )}
        <FormError error={error} />
        <div className="flex w-full justify-end gap-2">
          <Button onClick={onClose}>Cancel</Button>
          <Button variant="primary" onClick={save} disabled={!img || progress !== null}>
            {progress !== null ? 'Uploading…' : 'Save avatar'}
          </Button>
        </div>
      </div>
    </Dialog>
  );
}

function EmailSection({ me }: { me: Me }) {
  const sync = useSyncMe();
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
      const saved = await changeMyEmail(email.trim(), password);
      sync(saved);
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

function PasswordSection() {
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
      await changeMyPassword(current, next);
      setCurrent('');
      setNext('');
      setAgain('');
      toast.show('Password changed; your other sessions have been signed out', 'success');
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

const MCP_PATH_KEY = 'docket-mcp-path';

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

function CopyBlock({ label, text }: { label: string; text: string }) {
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

function ApiKeySection() {
  const qc = useQueryClient();
  const toast = useToast();
  const status = useKeyStatus();
  const [created, setCreated] = useState<string | null>(null);
  const [confirm, setConfirm] = useState<'replace' | 'revoke' | null>(null);
  const [folder, setFolder] = useState(() => localStorage.getItem(MCP_PATH_KEY) ?? '/path/to/docket');
  const [error, setError] = useState<string | null>(null);
  const create = async () => {
    setError(null);
    try {
      const res = await createApiKey();
      setCreated(res.apiKey);
      qc.setQueryData<KeyStatus>(qk.keyStatus, { hasKey: true, createdAt: res.createdAt, lastUsedAt: null });
    } catch (err) {
      setError(errorText(err));
    }
  };
  const revoke = async () => {
    await revokeApiKey();
    setCreated(null);
    qc.setQueryData<KeyStatus>(qk.keyStatus, { hasKey: false, createdAt: null, lastUsedAt: null });
    toast.show('API key revoked', 'success');
  };
  const s = status.data;
  const configs = created ? mcpConfigs(created, folder) : null;
  return (
    <Section
      title="API key for AI assistants"
      description="One key per account lets an assistant act as you through the tool server. It is shown once."
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

function DeleteAccountSection() {
  const qc = useQueryClient();
  const [, navigate] = useLocation();
  const [open, setOpen] = useState(false);
  return (
    <Section
      title="Delete account"
      danger
      description="Removes your profile, avatar, key and memberships. Tickets and comments you wrote stay, shown as by a deleted user. Projects you own pass to their first admin or member; a project with no other member is deleted."
    >
      <Button variant="danger" onClick={() => setOpen(true)}>
        Delete my account…
      </Button>
      {open && (
        <ConfirmDialog
          title="Delete your account?"
          confirmLabel="Delete my account"
          busyLabel="Deleting…"
          password
          typeText="delete my account"
          onClose={() => setOpen(false)}
          onConfirm={async (password) => {
            await deleteMyAccount(password, 'delete my account');
            qc.clear();
            qc.setQueryData(qk.session, {});
            navigate('/sign-in', { replace: true });
          }}
        >
          This cannot be undone.
        </ConfirmDialog>
      )}
    </Section>
  );
}
