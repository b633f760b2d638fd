import { type FormEvent, useState } from 'react';
import { useLocation } from 'wouter';
import { PALETTE } from '../../shared/limits';
import { errorText } from '../api/client';
import { useCreateProject } from '../api/projects';
import { Button, Dialog, Field, Input, Textarea } from './ui';

/** A key suggested from the name: initials of the words, or the first letters of one word. */
export function suggestKey(name: string): string {
  const words = name
    .toUpperCase()
    .replace(/[^A-Z0-9\s]/g, ' ')
    .split(/\s+/)
    .filter(Boolean);
  if (words.length === 0) return '';
  let key = words.length >= 2 ? words.map((w) => w[0]).join('') : words[0].slice(0, 4);
  if (key.length < 2) key = (words[0] + (words[1] ?? '')).slice(0, 3);
  return key.slice(0, 10);
}

export function CreateProjectDialog({ onClose }: { onClose: () => void }) {
  const createProject = useCreateProject();
  const [, navigate] = useLocation();
  const [name, setName] = useState('');
  const [key, setKey] = useState('');
  const [keyEdited, setKeyEdited] = useState(false);
  const [color, setColor] = useState<string>(PALETTE[Math.floor(Math.random() * PALETTE.length)]);
  const [description, setDescription] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const effectiveKey = keyEdited ? key : suggestKey(name);
  const keyValid = /^[A-Z0-9]{2,10}$/.test(effectiveKey);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const project = await createProject.mutateAsync({
        name: name.trim(),
        key: effectiveKey,
        color,
        description: description.trim() || undefined,
      });
      onClose();
      navigate(`/projects/${project.key}`);
    } catch (err) {
      setError(errorText(err));
      setBusy(false);
    }
  };

  return (
    <Dialog title="Create project" onClose={onClose}>
      <form onSubmit={submit} className="flex flex-col gap-3">
        <Field label="Name">
          {(id) => (
            <Input
              id={id}
              name="name"
              value={name}
              maxLength={100}
              onChange={(e) => setName(e.target.value)}
            />
          )}
        </Field>
        <Field
          label="Key"
          hint="2-10 capital letters or digits, used in ticket keys such as KEY-12. It cannot change later."
          error={effectiveKey && !keyValid ? 'The key needs 2-10 capital letters or digits' : null}
        >
          {(id) => (
            <Input
              id={id}
              name="key"
              value={effectiveKey}
              className="font-mono uppercase"
              maxLength={10}
              onChange={(e) => {
                setKeyEdited(true);
                setKey(e.target.value.toUpperCase().replace(/[^A-Z0-9]/g, ''));
              }}
            />
          )}
        </Field>
        <fieldset className="flex flex-col gap-1">
          <legend className="mb-1 text-[12px] font-medium text-muted">Colour</legend>
          <div className="flex flex-wrap items-center gap-1.5">
            {PALETTE.map((c) => (
              <button
                key={c}
                type="button"
                aria-label={`Colour ${c}`}
                aria-pressed={color === c}
                onClick={() => setColor(c)}
                className={`h-6 w-6 rounded-md border-2 ${color === c ? 'border-fg' : 'border-transparent'}`}
                style={{ background: c }}
              />
            ))}
            <label className="ml-1 flex items-center gap-1 text-[12px] text-muted">
              <input
                type="color"
                value={color.toLowerCase()}
                onChange={(e) => setColor(e.target.value.toUpperCase())}
                className="h-6 w-8 cursor-pointer rounded border border-line bg-transparent"
              />
              Custom
            </label>
          </div>
        </fieldset>
        <Field label="Description (optional)">
          {(id) => (
            <Textarea id={id} rows={3} value={description} onChange={(e) => setDescription(e.target.value)} />
          )}
        </Field>
        {error && (
          <p role="alert" className="rounded-md bg-danger-soft px-3 py-2 text-danger">
            {error}
          </p>
        )}
        <div className="flex justify-end gap-2">
          <Button onClick={onClose}>Cancel</Button>
          <Button type="submit" variant="primary" disabled={busy || !name.trim() || !keyValid}>
            {busy ? 'Creating…' : 'Create project'}
          </Button>
        </div>
      </form>
    </Dialog>
  );
}
