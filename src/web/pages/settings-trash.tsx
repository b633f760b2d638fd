import { useState } from 'react';
import { TRASH_DAYS } from '../../shared/trash';
import { errorText } from '../api/client';
import { type TrashedTicket, usePurgeTrashed, useRestore, useTrash } from '../api/trash';
import type { Project } from '../api/types';
import { ConfirmDialog } from '../components/ConfirmDialog';
import { FormError, Section } from '../components/ProjectNav';
import { fullTime, relativeTime } from '../components/time';
import { useToast } from '../components/toast';
import { Button, Skeleton } from '../components/ui';

/**
 * The project's trash (docs/decisions/048-trash-and-undo.md): deleted tickets, kept 30 days. Admins
 * and owners see all of them and may delete one for good; a member sees what they deleted.
 */
export function TrashSection({ project, manage }: { project: Project; manage: boolean }) {
  const trash = useTrash(project.id);
  const restore = useRestore(project.id);
  const purge = usePurgeTrashed(project.id);
  const [busy, setBusy] = useState<string | null>(null);
  const [purging, setPurging] = useState<TrashedTicket | null>(null);
  const toast = useToast();
  return (
    <Section
      id="trash"
      title="Trash"
      description={
        manage
          ? `Deleted tickets stay here for ${TRASH_DAYS} days, then they and their files are removed for good.`
          : `Tickets you deleted stay here for ${TRASH_DAYS} days; you can restore them.`
      }
    >
      {trash.isPending && <Skeleton className="h-16" />}
      {trash.isError && <FormError error={errorText(trash.error)} />}
      {trash.data?.items.length === 0 && <p className="text-faint">The trash is empty.</p>}
      <ul
        className="flex flex-col divide-y divide-line rounded-md border border-line"
        data-testid="trash-list"
      >
        {trash.data?.items.map((t) => (
          <li key={t.id} className="flex items-center gap-3 px-3 py-2" data-testid="trash-row">
            <span className="w-20 shrink-0 font-mono text-[12px] text-muted">{t.key}</span>
            <div className="min-w-0 flex-1">
              <div className="truncate">{t.title}</div>
              <div className="text-[12px] text-faint">
                {t.type} · deleted{' '}
                <time dateTime={t.deletedAt} title={fullTime(t.deletedAt)}>
                  {relativeTime(t.deletedAt)}
                </time>
                {t.deletedBy ? ` by ${t.deletedBy.name ?? t.deletedBy.username}` : ''} · removed for good{' '}
                <time dateTime={t.purgeAt} title={fullTime(t.purgeAt)}>
                  {new Date(t.purgeAt).toLocaleDateString()}
                </time>
              </div>
            </div>
            <Button
              size="sm"
              disabled={busy === t.id}
              aria-label={`Restore ${t.key}`}
              onClick={async () => {
                setBusy(t.id);
                await restore.mutateAsync([t.id]);
                setBusy(null);
              }}
            >
              Restore
            </Button>
            {manage && (
              <Button
                size="sm"
                variant="ghost"
                aria-label={`Delete ${t.key} forever`}
                onClick={() => setPurging(t)}
              >
                Delete forever
              </Button>
            )}
          </li>
        ))}
      </ul>
      {purging && (
        <ConfirmDialog
          title={`Delete ${purging.key} forever?`}
          confirmLabel="Delete forever"
          busyLabel="Deleting…"
          onConfirm={async () => {
            await purge.mutateAsync(purging.id);
            toast.show(`${purging.key} deleted for good`);
            setPurging(null);
          }}
          onClose={() => setPurging(null)}
        >
          <p>
            {purging.key} “{purging.title}”, its comments and its files are removed for good. This cannot be
            undone.
          </p>
        </ConfirmDialog>
      )}
    </Section>
  );
}
