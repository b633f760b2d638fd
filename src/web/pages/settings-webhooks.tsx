import { type FormEvent, useState } from 'react';
import { WEBHOOK_EVENTS, type WebhookEvent } from '../../shared/webhooks';
import { errorText } from '../api/client';
import type { Project } from '../api/types';
import {
  type Delivery,
  useCreateWebhook,
  useDeleteWebhook,
  useDeliveries,
  useRedeliver,
  useSetWebhookActive,
  useWebhooks,
  type Webhook,
} from '../api/webhooks';
import { ConfirmDialog } from '../components/ConfirmDialog';
import { FormError, Section } from '../components/ProjectNav';
import { fullTime, relativeTime } from '../components/time';
import { useToast } from '../components/toast';
import { Button, Field, Input, Skeleton } from '../components/ui';

/** The events a new hook starts with: every change of tickets and their comments. */
const DEFAULT_EVENTS: WebhookEvent[] = WEBHOOK_EVENTS.filter(
  (e) => e.startsWith('ticket.') || e.startsWith('comment.'),
);
const GROUPS = [...new Set(WEBHOOK_EVENTS.map((e) => e.split('.')[0]))];

/** Webhooks of the project, for its admins and owners (docs/webhooks.md). */
export function WebhooksSection({ project }: { project: Project }) {
  const hooks = useWebhooks(project.id);
  const [shownSecret, setShownSecret] = useState<{ url: string; secret: string } | null>(null);
  return (
    <Section
      id="webhooks"
      title="Webhooks"
      description="Send this project's changes to other tools: a signed JSON POST per event, in order per ticket, retried for a day."
    >
      {hooks.isPending && <Skeleton className="h-16" />}
      {hooks.isError && <FormError error={errorText(hooks.error)} />}
      {hooks.data?.length === 0 && <p className="text-faint">No webhooks yet.</p>}
      <ul className="flex flex-col gap-2" data-testid="webhook-list">
        {hooks.data?.map((h) => (
          <WebhookRow key={h.id} project={project} hook={h} />
        ))}
      </ul>
      {shownSecret && (
        <div
          role="status"
          className="mt-3 rounded-md border border-line bg-surface-2 px-3 py-2"
          data-testid="webhook-secret"
        >
          <div className="font-medium">Signing secret for {shownSecret.url}</div>
          <div className="text-[12px] text-muted">Copy it now: it is not shown again.</div>
          <code className="mt-1 block break-all select-all">{shownSecret.secret}</code>
          <Button size="sm" variant="ghost" className="mt-1" onClick={() => setShownSecret(null)}>
            Done
          </Button>
        </div>
      )}
      <AddWebhookForm project={project} onCreated={setShownSecret} />
    </Section>
  );
}

function AddWebhookForm({
  project,
  onCreated,
}: {
  project: Project;
  onCreated: (s: { url: string; secret: string }) => void;
}) {
  const createWebhook = useCreateWebhook(project.id);
  const [url, setUrl] = useState('');
  const [secret, setSecret] = useState('');
  const [events, setEvents] = useState<WebhookEvent[]>(DEFAULT_EVENTS);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setError(null);
    setBusy(true);
    try {
      const made = await createWebhook.mutateAsync({
        url: url.trim(),
        events,
        ...(secret ? { secret } : {}),
      });
      onCreated({ url: made.url, secret: made.secret });
      setUrl('');
      setSecret('');
    } catch (err) {
      setError(errorText(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <form
      onSubmit={submit}
      className="mt-3 flex flex-col gap-3 border-t border-line pt-3"
      aria-label="Add a webhook"
    >
      <Field label="Payload URL">
        {(id) => (
          <Input
            id={id}
            type="url"
            placeholder="https://example.com/docket-hook"
            value={url}
            maxLength={2000}
            onChange={(e) => setUrl(e.target.value)}
          />
        )}
      </Field>
      <Field
        label="Secret (optional)"
        hint="At least 16 characters; left empty, Docket makes one and shows it once."
      >
        {(id) => (
          <Input
            id={id}
            value={secret}
            maxLength={200}
            autoComplete="off"
            onChange={(e) => setSecret(e.target.value)}
          />
        )}
      </Field>
      <EventPicker value={events} onChange={setEvents} />
      <FormError error={error} />
      <div>
        <Button type="submit" variant="primary" disabled={!url.trim() || events.length === 0 || busy}>
          Add webhook
        </Button>
      </div>
    </form>
  );
}

function EventPicker({ value, onChange }: { value: WebhookEvent[]; onChange: (v: WebhookEvent[]) => void }) {
  const toggle = (e: WebhookEvent, on: boolean) =>
    onChange(on ? WEBHOOK_EVENTS.filter((x) => x === e || value.includes(x)) : value.filter((x) => x !== e));
  return (
    <fieldset className="flex flex-col gap-1.5">
      <legend className="mb-1 text-[12px] font-medium text-muted">Events</legend>
      {GROUPS.map((g) => (
        <div key={g} className="flex flex-wrap items-center gap-x-3 gap-y-1">
          {WEBHOOK_EVENTS.filter((e) => e.startsWith(`${g}.`)).map((e) => (
            <label key={e} className="flex items-center gap-1.5 text-[12px]">
              <input
                type="checkbox"
                checked={value.includes(e)}
                onChange={(ev) => toggle(e, ev.target.checked)}
              />
              {e}
            </label>
          ))}
        </div>
      ))}
    </fieldset>
  );
}

function statusOf(h: Webhook): { text: string; tone: string } {
  if (!h.active && h.disabledReason) return { text: 'Turned off by Docket', tone: 'text-danger' };
  if (!h.active) return { text: 'Off', tone: 'text-faint' };
  if (h.failingSince) return { text: `Failing since ${relativeTime(h.failingSince)}`, tone: 'text-danger' };
  return { text: 'Active', tone: 'text-success' };
}

function WebhookRow({ project, hook }: { project: Project; hook: Webhook }) {
  const setHookActive = useSetWebhookActive(project.id);
  const deleteWebhook = useDeleteWebhook(project.id);
  const [open, setOpen] = useState(false);
  const [deleting, setDeleting] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const setActive = (active: boolean) => {
    setError(null);
    setHookActive.mutateAsync({ webhookId: hook.id, active }).catch((err) => setError(errorText(err)));
  };
  const status = statusOf(hook);
  return (
    <li className="rounded-md border border-line px-3 py-2" data-testid="webhook-row">
      <div className="flex items-center gap-2">
        <div className="min-w-0 flex-1">
          <div className="truncate font-medium" title={hook.url}>
            {hook.url}
          </div>
          <div className="text-[12px] text-faint">
            <span className={status.tone} data-testid="webhook-status">
              {status.text}
            </span>
            {' · '}
            {hook.events.length} event{hook.events.length === 1 ? '' : 's'}
          </div>
        </div>
        <Button size="sm" onClick={() => setActive(!hook.active)}>
          {hook.active ? 'Turn off' : 'Turn on'}
        </Button>
        <Button size="sm" variant="ghost" aria-expanded={open} onClick={() => setOpen(!open)}>
          Deliveries
        </Button>
        <Button
          size="sm"
          variant="ghost"
          aria-label={`Delete webhook ${hook.url}`}
          onClick={() => setDeleting(true)}
        >
          Delete
        </Button>
      </div>
      {hook.disabledReason && <p className="mt-1 text-[12px] text-danger">{hook.disabledReason}</p>}
      <FormError error={error} />
      {open && <DeliveryList project={project} hook={hook} />}
      {deleting && (
        <ConfirmDialog
          title="Delete this webhook?"
          confirmLabel="Delete webhook"
          onClose={() => setDeleting(false)}
          onConfirm={() => deleteWebhook.mutateAsync(hook.id)}
        >
          {hook.url} receives nothing more; its deliveries are deleted with it.
        </ConfirmDialog>
      )}
    </li>
  );
}

const STATUS_TONE: Record<Delivery['status'], string> = {
  pending: 'text-muted',
  delivered: 'text-success',
  failed: 'text-danger',
};

function DeliveryList({ project, hook }: { project: Project; hook: Webhook }) {
  const toast = useToast();
  const list = useDeliveries(project.id, hook.id);
  const redeliver = useRedeliver(project.id, hook.id);
  const [shown, setShown] = useState<string | null>(null);
  const again = async (d: Delivery) => {
    try {
      await redeliver.mutateAsync(d.id);
      toast.show('Delivery queued again', 'success');
    } catch (err) {
      toast.show(errorText(err), 'error');
    }
  };
  if (list.isPending) return <Skeleton className="mt-2 h-12" />;
  if (list.isError) return <FormError error={errorText(list.error)} />;
  if (list.data.items.length === 0) return <p className="mt-2 text-faint">No deliveries yet.</p>;
  return (
    <table className="mt-2 w-full text-[12px]" data-testid="delivery-list">
      <thead className="text-left text-faint">
        <tr>
          <th className="font-medium">Event</th>
          <th className="font-medium">Status</th>
          <th className="font-medium">Answer</th>
          <th className="font-medium">Time</th>
          <th className="font-medium">Attempts</th>
          <th className="font-medium">When</th>
          <th />
        </tr>
      </thead>
      <tbody>
        {list.data.items.map((d) => (
          <DeliveryRow
            key={d.id}
            d={d}
            open={shown === d.id}
            onToggle={() => setShown(shown === d.id ? null : d.id)}
            onRedeliver={() => again(d)}
          />
        ))}
      </tbody>
    </table>
  );
}

function DeliveryRow({
  d,
  open,
  onToggle,
  onRedeliver,
}: {
  d: Delivery;
  open: boolean;
  onToggle: () => void;
  onRedeliver: () => void;
}) {
  return (
    <>
      <tr className="border-t border-line" data-testid="delivery-row">
        <td>
          <button type="button" className="text-left hover:underline" aria-expanded={open} onClick={onToggle}>
            {d.event}
          </button>
        </td>
        <td className={STATUS_TONE[d.status]}>{d.status}</td>
        <td title={d.error ?? undefined}>{d.responseStatus ?? (d.error ? 'no answer' : '—')}</td>
        <td>{d.durationMs === null ? '—' : `${d.durationMs} ms`}</td>
        <td>{d.attempts}</td>
        <td title={fullTime(d.createdAt)}>{relativeTime(d.createdAt)}</td>
        <td className="text-right">
          <Button size="sm" variant="ghost" onClick={onRedeliver}>
            Redeliver
          </Button>
        </td>
      </tr>
      {open && (
        <tr>
          <td colSpan={7}>
            {d.error && <p className="text-danger">{d.error}</p>}
            <pre className="max-h-64 overflow-auto rounded bg-surface-2 p-2 text-[11px]">
              {JSON.stringify(d.payload, null, 2)}
            </pre>
          </td>
        </tr>
      )}
    </>
  );
}
