/** The trash of deleted tickets, and the undo of a deletion (docs/decisions/048-trash-and-undo.md). */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { RestoreOut, TrashedTicketOut } from '../../shared/trash.js';
import { useToast } from '../components/toast';
import { api, enc, errorText } from './client';
import { qk } from './keys';
import { projectPath } from './projects';
import { invalidate } from './query-client';

export type TrashedTicket = TrashedTicketOut;

const trashPath = (projectId: string, rest = '') => projectPath(projectId, `/trash${rest}`);
export const trashKey = (projectId: string) => ['trash', projectId] as const;

/** The project's trash, newest first (admins see every entry, others what they deleted). */
export const useTrash = (projectId: string) =>
  useQuery({
    queryKey: trashKey(projectId),
    queryFn: () => api<{ items: TrashedTicket[]; total: number }>(`${trashPath(projectId)}?limit=200`),
  });

const restoreTrashed = (projectId: string, trashId: string) =>
  api<RestoreOut>(trashPath(projectId, `/${enc(trashId)}/restore`), { method: 'POST' });

/** Deletes a trash entry (and its files) for good. */
export function usePurgeTrashed(projectId: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (trashId: string) => api(trashPath(projectId, `/${enc(trashId)}`), { method: 'DELETE' }),
    onSuccess: () => {
      qc.invalidateQueries({ queryKey: trashKey(projectId) });
    },
  });
}

/**
 * Restores trash entries and brings the caches up to date; says what could not be put back as it
 * was (a deleted column or label) and what failed, in the API's words. Resolves to how many were
 * restored and those notes (it does not reject: a failure is told in a toast).
 */
export function useRestore(projectId: string) {
  const qc = useQueryClient();
  const toast = useToast();
  return useMutation({
    mutationFn: async (trashIds: string[]) => {
      const notes: string[] = [];
      let restored = 0;
      try {
        for (const id of trashIds) {
          const out = await restoreTrashed(projectId, id);
          notes.push(...out.notes.map((n) => `${out.ticket.key}: ${n}`));
          restored++;
        }
      } catch (err) {
        toast.error(`Could not restore: ${errorText(err)}`);
      }
      return { restored, notes };
    },
    onSuccess: ({ restored, notes }) => {
      invalidate(qc, qk.tickets(projectId), trashKey(projectId));
      if (restored > 0)
        toast.show(
          `Restored ${restored === 1 ? 'the ticket' : `${restored} tickets`}${notes.length ? `. ${notes.join('. ')}` : ''}`,
        );
    },
  });
}

/** After a deletion: a toast with Undo that restores the tickets from the trash. */
export function useUndoDelete(projectId: string) {
  const toast = useToast();
  const restore = useRestore(projectId).mutateAsync;
  return (text: string, trashIds: string[]) => toast.undo(text, () => restore(trashIds));
}
