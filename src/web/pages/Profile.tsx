import { type FormEvent, type PointerEvent, useEffect, useMemo, useRef, useState } from 'react';
import { errorText } from '../api/client';
import { useMe, useRemoveMyAvatar, useUpdateMyName, useUploadAvatar } from '../api/me';
import type { Me } from '../api/types';
import { FormError, Section } from '../components/ProjectNav';
import { useToast } from '../components/toast';
import { Avatar, Button, Dialog, ErrorState, Field, Input, Skeleton } from '../components/ui';
import { ApiKeySection, DeleteAccountSection, EmailSection, PasswordSection } from './profile-access';
import { NotificationsSection } from './profile-notifications';
import { OAuthGrantsSection } from './profile-oauth';
import { ApiKeysSection, SessionsSection } from './profile-security';
import { TwoFactorSection } from './profile-two-factor';
import { PageHeader } from './projects';

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
            <TwoFactorSection />
            <SessionsSection />
            <NotificationsSection />
            <ApiKeySection />
            <ApiKeysSection />
            <OAuthGrantsSection />
            <DeleteAccountSection />
          </div>
        )}
      </div>
    </div>
  );
}

export function NameSection({ me }: { me: Me }) {
  const updateMyName = useUpdateMyName();
  const toast = useToast();
  const [name, setName] = useState(me.name ?? '');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await updateMyName.mutateAsync(name.trim() || null);
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

export const AVATAR_TYPES = ['image/jpeg', 'image/png', 'image/gif', 'image/webp'];
export const AVATAR_MAX = 2 * 1024 * 1024;
export const CROP_VIEW = 224;

export function AvatarSection({ me }: { me: Me }) {
  const removeMyAvatar = useRemoveMyAvatar();
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
      await removeMyAvatar.mutateAsync();
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
          onSaved={() => toast.show('Avatar updated', 'success')}
        />
      )}
    </Section>
  );
}

/** Square crop with zoom and drag; the crop is drawn to a 256x256 PNG and uploaded. */
export function CropDialog({
  file,
  onClose,
  onSaved,
}: {
  file: File;
  onClose: () => void;
  onSaved: () => void;
}) {
  const uploadAvatar = useUploadAvatar();
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
      await uploadAvatar.mutateAsync({ image: cropped, onProgress: setProgress });
      onSaved();
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
