/** The trash of deleted tickets, and the undo of a deletion (docs/decisions/048-trash-and-undo.md). */
import { useQuery, useQueryClient } from '@tanstack/react-query';
import type { RestoreOut, TrashedTicketOut } from '../../shared/trash.js';
import { useToast } from '../components/toast';
import { api, enc, errorText } from './client';
import { qk } from './keys';
import { projectPath } from './projects';

export type TrashedTicket = TrashedTicketOut;

const trashPath = (projectId: string, rest = '') => projectPath(projectId, `/trash${rest}`);
export const trashKey = (projectId: string) => ['trash', projectId] as const;

/** The project's trash, newest first (admins see every entry, others what they deleted). */
export const useTrash = (projectId: string) =>
  useQuery({
    queryKey: trashKey(projectId),
    queryFn: () => api<{ items: TrashedTicket[]; total: number }>(`${trashPath(projectId)}?limit=200`),
  });

export const restoreTrashed = (projectId: string, trashId: string) =>
  api<RestoreOut>(trashPath(projectId, `/${enc(trashId)}/restore`), { method: 'POST' });

export const purgeTrashed = (projectId: string, trashId: string) =>
  api(trashPath(projectId, `/${enc(trashId)}`), { method: 'DELETE' });

/**
 * Restores trash entries and brings the caches up to date; says what could not be put back as it
 * was (a deleted column or label) and what failed, in the API's words.
 */
export function useRestore(projectId: string) {
  const qc = useQueryClient();
  const toast = useToast();
  return async (trashIds: string[]) => {
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
    qc.invalidateQueries({ queryKey: qk.tickets(projectId) });
    qc.invalidateQueries({ queryKey: trashKey(projectId) });
    if (restored > 0)
      toast.show(
        `Restored ${restored === 1 ? 'the ticket' : `${restored} tickets`}${notes.length ? `. ${notes.join('. ')}` : ''}`,
      );
    return restored;
  };
}

/** After a deletion: a toast with Undo that restores the tickets from the trash. */
export function useUndoDelete(projectId: string) {
  const toast = useToast();
  const restore = useRestore(projectId);
  return (text: string, trashIds: string[]) => toast.undo(text, () => restore(trashIds));
}
