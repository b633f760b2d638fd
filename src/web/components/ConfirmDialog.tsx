import { type FormEvent, type ReactNode, useState } from 'react';
import { errorText } from '../api/client';
import { FormError } from './ProjectNav';
import { Button, Dialog, Field, Input } from './ui';

/**
 * Confirmation proportional to the reach of an action: a plain question, or the user's password, or a
 * text to type (a project key, 'wipe all data'), or both. `onConfirm` gets the password; its error is
 * shown in the API's words and the dialog stays open.
 */
export function ConfirmDialog({
  title,
  children,
  confirmLabel,
  busyLabel,
  onConfirm,
  onClose,
  password = false,
  typeText,
  danger = true,
}: {
  title: string;
  children: ReactNode;
  confirmLabel: string;
  busyLabel?: string;
  onConfirm: (password: string) => Promise<unknown> | unknown;
  onClose: () => void;
  password?: boolean;
  typeText?: string;
  danger?: boolean;
}) {
  const [pw, setPw] = useState('');
  const [typed, setTyped] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const ready = (!password || pw.length > 0) && (!typeText || typed === typeText);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (!ready) return;
    setBusy(true);
    setError(null);
    try {
      await onConfirm(pw);
      onClose();
    } catch (err) {
      setError(errorText(err));
      setBusy(false);
    }
  };
  return (
    <Dialog title={title} onClose={onClose}>
      <form onSubmit={submit} className="flex flex-col gap-3">
        <div className="text-muted">{children}</div>
        {typeText && (
          <Field label={`Type ${typeText} to confirm`}>
            {(id) => (
              <Input
                id={id}
                value={typed}
                autoComplete="off"
                spellCheck={false}
                onChange={(e) => setTyped(e.target.value)}
                placeholder={typeText}
              />
            )}
          </Field>
        )}
        {password && (
          <Field label="Your password">
            {(id) => (
              <Input
                id={id}
                type="password"
                autoComplete="current-password"
                value={pw}
                onChange={(e) => setPw(e.target.value)}
              />
            )}
          </Field>
        )}
        <FormError error={error} />
        <div className="flex justify-end gap-2">
          <Button onClick={onClose}>Cancel</Button>
          <Button type="submit" variant={danger ? 'danger' : 'primary'} disabled={!ready || busy}>
            {busy ? (busyLabel ?? 'Working…') : confirmLabel}
          </Button>
        </div>
      </form>
    </Dialog>
  );
}
