import { useState } from 'react';
import { NOTIFICATION_TYPES } from '../../shared/mentions';
import { errorText } from '../api/client';
import {
  type NotificationSettings,
  type NotificationType,
  useNotificationSettings,
  useUpdateNotificationSettings,
} from '../api/notifications';
import { FormError, Section } from '../components/ProjectNav';
import { Select, Skeleton } from '../components/ui';

const TYPE_TEXT: Record<NotificationType, string> = {
  mentioned: 'Someone mentions me',
  assigned: 'A ticket is assigned to me',
  commented: 'A comment on a ticket I report, am assigned or watch',
  updated: 'Status, priority or due date of a ticket I watch changes',
  added_to_project: 'I am added to a project',
  sprint_started: 'A sprint with my tickets starts',
  sprint_completed: 'A sprint with my tickets completes',
  webhook_disabled: 'A webhook I made is turned off after failing for a day',
};

const DIGEST_CHOICES = [15, 60, 240, 1440];

/** E-mail preferences (docs/notifications.md); every change is saved at once. */
export function NotificationsSection() {
  const settings = useNotificationSettings();
  const update = useUpdateNotificationSettings();
  const [error, setError] = useState<string | null>(null);
  const save = (patch: Partial<Pick<NotificationSettings, 'email' | 'digestMinutes' | 'types'>>) => {
    setError(null);
    update.mutateAsync(patch).catch((err) => setError(errorText(err)));
  };
  const s = settings.data;
  return (
    <Section
      title="Notifications"
      description="Your inbox always shows everything. Choose what also comes by e-mail."
      id="notifications"
    >
      {!s && <Skeleton className="h-24" />}
      {s && (
        <div className="flex flex-col gap-3" data-testid="notification-settings">
          {!s.emailAvailable && (
            <p className="rounded-md bg-subtle px-3 py-2 text-muted">
              This Docket does not send e-mail (the administrator has not configured it); your choices are
              kept.
            </p>
          )}
          <fieldset className="flex flex-col gap-1">
            <legend className="mb-1 font-medium">E-mail</legend>
            {(
              [
                ['digest', 'Assignments and mentions at once, the rest in a digest'],
                ['instant', 'Everything at once'],
                ['off', 'No e-mail'],
              ] as const
            ).map(([value, label]) => (
              <label key={value} className="flex items-center gap-2">
                <input
                  type="radio"
                  name="email-mode"
                  value={value}
                  checked={s.email === value}
                  onChange={() => save({ email: value })}
                />
                {label}
              </label>
            ))}
          </fieldset>
          <div className="flex items-center gap-2">
            <span aria-hidden="true">Digest every</span>
            <Select
              aria-label="Digest every"
              value={String(s.digestMinutes)}
              disabled={s.email !== 'digest'}
              onChange={(e) => save({ digestMinutes: Number(e.target.value) })}
              className="w-40"
            >
              {[...new Set([...DIGEST_CHOICES, s.digestMinutes])]
                .sort((a, b) => a - b)
                .map((m) => (
                  <option key={m} value={m}>
                    {m < 60
                      ? `${m} minutes`
                      : m === 60
                        ? 'hour'
                        : m % 1440 === 0
                          ? `${m / 1440} day(s)`
                          : `${m / 60} hours`}
                  </option>
                ))}
            </Select>
          </div>
          <fieldset className="flex flex-col gap-1" disabled={s.email === 'off'}>
            <legend className="mb-1 font-medium">E-mail me when</legend>
            {NOTIFICATION_TYPES.map((t) => (
              <label key={t} className="flex items-center gap-2">
                <input
                  type="checkbox"
                  checked={s.types[t] ?? true}
                  onChange={(e) =>
                    save({ types: { [t]: e.target.checked } as NotificationSettings['types'] })
                  }
                />
                {TYPE_TEXT[t]}
              </label>
            ))}
          </fieldset>
          <FormError error={error} />
        </div>
      )}
    </Section>
  );
}
