import { type FormEvent, useEffect, useState } from 'react';
import { DEFAULT_SETTINGS } from '../../../shared/limits';
import { useAdminSettings, useUpdateSettings } from '../../api/admin';
import { ApiError, errorText } from '../../api/client';
import type { SystemSettings } from '../../api/types';
import { FormError, Section } from '../ProjectNav';
import { useToast } from '../toast';
import { Button, ErrorState, Field, Input, Skeleton } from '../ui';

const MB = 1024 * 1024;
const SIZE_FIELDS = [
  { key: 'maxImageSize', label: 'Largest image (MB)' },
  { key: 'maxVideoSize', label: 'Largest video (MB)' },
  { key: 'maxDocumentSize', label: 'Largest document (MB)' },
] as const;
const TYPE_FIELDS = [
  { key: 'allowedImageTypes', label: 'Image types', example: 'image/avif' },
  { key: 'allowedVideoTypes', label: 'Video types', example: 'video/x-matroska' },
  { key: 'allowedDocumentTypes', label: 'Document types', example: 'application/rtf' },
] as const;
type SizeKey = (typeof SIZE_FIELDS)[number]['key'];
type TypeKey = (typeof TYPE_FIELDS)[number]['key'];
type FieldKey = SizeKey | TypeKey | 'maxAttachmentsPerTicket';

interface Form {
  maxImageSize: string;
  maxVideoSize: string;
  maxDocumentSize: string;
  maxAttachmentsPerTicket: string;
  allowedImageTypes: string[];
  allowedVideoTypes: string[];
  allowedDocumentTypes: string[];
}

/** Megabytes as typed: whole numbers plainly, anything else with up to three decimals. */
const toMb = (bytes: number) => String(Number((bytes / MB).toFixed(3)));

function toForm(s: Omit<SystemSettings, 'id'>): Form {
  return {
    maxImageSize: toMb(s.maxImageSize),
    maxVideoSize: toMb(s.maxVideoSize),
    maxDocumentSize: toMb(s.maxDocumentSize),
    maxAttachmentsPerTicket: String(s.maxAttachmentsPerTicket),
    allowedImageTypes: [...s.allowedImageTypes],
    allowedVideoTypes: [...s.allowedVideoTypes],
    allowedDocumentTypes: [...s.allowedDocumentTypes],
  };
}

const sameList = (a: string[], b: string[]) => a.length === b.length && a.every((x, i) => x === b[i]);

/**
 * The changed fields only, as the API takes them; sizes typed in megabytes go out in bytes. A size
 * whose text is unchanged is not sent, so rounding never alters a stored byte count.
 */
function changes(form: Form, saved: SystemSettings) {
  const start = toForm(saved);
  const body: Record<string, unknown> = {};
  const local: Partial<Record<FieldKey, string>> = {};
  for (const { key } of SIZE_FIELDS) {
    if (form[key].trim() === start[key]) continue;
    const mb = Number(form[key]);
    if (form[key].trim() === '' || !Number.isFinite(mb)) local[key] = 'Enter a size in megabytes';
    else body[key] = Math.round(mb * MB);
  }
  if (form.maxAttachmentsPerTicket.trim() !== start.maxAttachmentsPerTicket) {
    const n = Number(form.maxAttachmentsPerTicket);
    if (form.maxAttachmentsPerTicket.trim() === '' || !Number.isFinite(n))
      local.maxAttachmentsPerTicket = 'Enter a number';
    else body.maxAttachmentsPerTicket = n;
  }
  for (const { key } of TYPE_FIELDS) if (!sameList(form[key], saved[key])) body[key] = form[key];
  return { body, local };
}

export function AdminSettings() {
  const settings = useAdminSettings();
  return (
    <div className="flex max-w-3xl flex-col gap-4 p-4">
      {settings.isError && (
        <ErrorState message={errorText(settings.error)} onRetry={() => settings.refetch()} />
      )}
      {settings.isPending && (
        <div className="flex flex-col gap-4" role="status" aria-busy="true" aria-label="Loading settings">
          <Skeleton className="h-40" />
          <Skeleton className="h-56" />
        </div>
      )}
      {settings.data && <SettingsForm saved={settings.data} />}
    </div>
  );
}

function SettingsForm({ saved }: { saved: SystemSettings }) {
  const updateSettings = useUpdateSettings();
  const toast = useToast();
  const [form, setForm] = useState<Form>(() => toForm(saved));
  const [errors, setErrors] = useState<Partial<Record<FieldKey, string>>>({});
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  // Another administrator's save arrives on refetch: show it unless this form has edits.
  const [base, setBase] = useState(saved);
  useEffect(() => {
    if (saved === base) return;
    setBase(saved);
    setForm((f) => {
      const c = changes(f, base);
      return Object.keys(c.body).length || Object.keys(c.local).length ? f : toForm(saved);
    });
  }, [saved, base]);

  const { body, local } = changes(form, saved);
  const dirty = Object.keys(body).length > 0 || Object.keys(local).length > 0;
  const set = <K extends keyof Form>(key: K, value: Form[K]) => {
    setForm((f) => ({ ...f, [key]: value }));
    setErrors((e) => ({ ...e, [key]: undefined }));
  };

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setError(null);
    if (Object.keys(local).length) {
      setErrors(local);
      return;
    }
    setErrors({});
    setBusy(true);
    try {
      const next = await updateSettings.mutateAsync(body);
      setBase(next);
      setForm(toForm(next));
      toast.show('Settings saved', 'success');
    } catch (err) {
      // Validation details name the field (allowedImageTypes, allowedImageTypes.2, maxVideoSize):
      // each message goes under its field; anything else goes in the box below the form.
      const byField: Partial<Record<FieldKey, string>> = {};
      const rest: string[] = [];
      if (err instanceof ApiError && err.details.length) {
        for (const d of err.details) {
          const key = d.path.split('.')[0] as FieldKey;
          if (key in form) {
            const index = d.path.split('.')[1];
            const list = form[key as TypeKey];
            const which = index !== undefined && Array.isArray(list) ? `${list[Number(index)]}: ` : '';
            byField[key] = `${byField[key] ? `${byField[key]}; ` : ''}${which}${d.message}`;
          } else rest.push(d.path ? `${d.path}: ${d.message}` : d.message);
        }
        setErrors(byField);
        setError(rest.length ? `${err.message}: ${rest.join('; ')}` : err.message);
      } else setError(errorText(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <form onSubmit={submit} className="flex flex-col gap-4" noValidate aria-label="System settings">
      <Section
        title="Upload limits"
        description="The largest file of each kind that people can attach, and how many files one ticket can hold."
      >
        <div className="grid gap-3 sm:grid-cols-2">
          {SIZE_FIELDS.map(({ key, label }) => {
            const mb = Number(form[key]);
            return (
              <Field
                key={key}
                label={label}
                error={errors[key]}
                hint={
                  form[key].trim() !== '' && Number.isFinite(mb)
                    ? `${Math.round(mb * MB).toLocaleString()} bytes`
                    : undefined
                }
              >
                {(id) => (
                  <Input
                    id={id}
                    type="number"
                    inputMode="decimal"
                    step="any"
                    value={form[key]}
                    aria-invalid={!!errors[key]}
                    onChange={(e) => set(key, e.target.value)}
                  />
                )}
              </Field>
            );
          })}
          <Field label="Attachments per ticket" error={errors.maxAttachmentsPerTicket}>
            {(id) => (
              <Input
                id={id}
                type="number"
                inputMode="numeric"
                step={1}
                value={form.maxAttachmentsPerTicket}
                aria-invalid={!!errors.maxAttachmentsPerTicket}
                onChange={(e) => set('maxAttachmentsPerTicket', e.target.value)}
              />
            )}
          </Field>
        </div>
      </Section>

      <Section
        title="Allowed file types"
        description="MIME types people can upload in each category. SVG, HTML, JavaScript and executables are never allowed."
      >
        <div className="flex flex-col gap-4">
          {TYPE_FIELDS.map(({ key, label, example }) => (
            <TypeList
              key={key}
              label={label}
              example={example}
              types={form[key]}
              error={errors[key]}
              onChange={(list) => set(key, list)}
            />
          ))}
        </div>
      </Section>

      <FormError error={error} />
      <div className="flex flex-wrap items-center gap-2">
        <Button type="submit" variant="primary" disabled={busy || !dirty}>
          {busy ? 'Saving…' : 'Save settings'}
        </Button>
        <Button
          disabled={busy || !dirty}
          onClick={() => {
            setForm(toForm(saved));
            setErrors({});
            setError(null);
          }}
        >
          Discard changes
        </Button>
        <span className="flex-1" />
        <Button
          variant="ghost"
          disabled={busy}
          onClick={() => {
            setForm(toForm({ ...DEFAULT_SETTINGS } as unknown as SystemSettings));
            setErrors({});
          }}
        >
          Fill in the defaults
        </Button>
      </div>
    </form>
  );
}

const MIME = /^[a-z0-9.+-]+\/[a-z0-9.+-]+$/;

/** A list of MIME types as removable chips, with a field to add one (Enter or the Add button). */
function TypeList({
  label,
  example,
  types,
  error,
  onChange,
}: {
  label: string;
  example: string;
  types: string[];
  error?: string;
  onChange: (types: string[]) => void;
}) {
  const [text, setText] = useState('');
  const [note, setNote] = useState<string | null>(null);
  const add = () => {
    const t = text.trim().toLowerCase();
    if (!t) return;
    if (!MIME.test(t)) return setNote(`“${t}” is not a MIME type; write it like ${example}.`);
    if (types.includes(t)) return setNote(`${t} is in the list already.`);
    onChange([...types, t]);
    setText('');
    setNote(null);
  };
  const slug = label.toLowerCase().replace(/\s+/g, '-');
  return (
    <fieldset className="flex flex-col gap-1.5" data-testid={`types-${slug}`}>
      <legend className="mb-1.5 text-[12px] font-medium text-muted">{label}</legend>
      <ul className="flex flex-wrap gap-1.5" aria-label={label}>
        {types.length === 0 && <li className="text-faint">None: this kind of file cannot be uploaded.</li>}
        {types.map((t) => (
          <li
            key={t}
            className="inline-flex h-6 items-center gap-1 rounded-full border border-line bg-surface-2 pr-1 pl-2 font-mono text-[12px] text-fg"
          >
            {t}
            <button
              type="button"
              aria-label={`Remove ${t}`}
              className="rounded-full px-1 text-faint hover:bg-hover hover:text-fg"
              onClick={() => onChange(types.filter((x) => x !== t))}
            >
              ×
            </button>
          </li>
        ))}
      </ul>
      <div className="flex max-w-md gap-2">
        <Input
          aria-label={`Add to ${label.toLowerCase()}`}
          placeholder={example}
          spellCheck={false}
          value={text}
          onChange={(e) => {
            setText(e.target.value);
            setNote(null);
          }}
          onKeyDown={(e) => {
            if (e.key === 'Enter') {
              e.preventDefault();
              add();
            }
          }}
        />
        <Button onClick={add} disabled={!text.trim()} aria-label={`Add type to ${label.toLowerCase()}`}>
          Add
        </Button>
      </div>
      {note && <p className="text-[12px] text-warn">{note}</p>}
      {error && (
        <p role="alert" className="text-[12px] text-danger">
          {error}
        </p>
      )}
    </fieldset>
  );
}
