/** Confirms and runs the deletion of many tickets (all or nothing), for the backlog and the board. */
import type { SprintActions } from '../../api/sprints';
import type { Ticket } from '../../api/types';
import { ConfirmDialog } from '../ConfirmDialog';

export function BulkDeleteDialog({
  tickets,
  actions,
  onDeleted,
  onClose,
}: {
  tickets: Ticket[];
  actions: SprintActions;
  onDeleted: () => void;
  onClose: () => void;
}) {
  const n = tickets.length;
  const s = n === 1 ? '' : 's';
  return (
    <ConfirmDialog
      title={`Delete ${n} ticket${s}?`}
      confirmLabel={`Delete ${n} ticket${s}`}
      busyLabel="Deleting…"
      onConfirm={async () => {
        // The answer's toast offers Undo (a restore from the trash).
        await actions.bulkDelete(tickets.map((t) => t.id));
        onDeleted();
      }}
      onClose={onClose}
    >
      <p>
        {tickets
          .slice(0, 8)
          .map((t) => t.key)
          .join(', ')}
        {n > 8 ? ` and ${n - 8} more` : ''} will be deleted with their comments and attachments. Project
        admins can restore them from the trash for 30 days.
      </p>
    </ConfirmDialog>
  );
}
