/** The undo of an edit or a move (docs/decisions/048-trash-and-undo.md). */
import { useMutation } from '@tanstack/react-query';
import { useToast } from '../components/toast';
import { api, errorText } from './client';
import { type TicketPatch, ticketPath } from './tickets';
import type { FullTicket, Ticket } from './types';

/**
 * The patch that puts back what `patch` changed, from the ticket as it was before; null when the
 * earlier value is not known here (then no undo is offered). A move goes back to its column and
 * place.
 */
export function reversePatch(before: Ticket | FullTicket, patch: TicketPatch): TicketPatch | null {
  const was = before as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(patch)) {
    if (key === 'ifUpdatedAt') continue;
    if (key === 'columnId' || key === 'order') {
      out.columnId = before.columnId;
      out.order = before.order;
    } else if (key === 'labelIds') {
      if (!before.labels) return null;
      out.labelIds = before.labels.map((l) => l.id);
    } else if (key === 'watcherIds') {
      const watchers = (before as Partial<FullTicket>).watchers;
      if (!watchers) return null;
      out.watcherIds = watchers.map((w) => w.id);
    } else {
      if (was[key] === undefined) return null;
      out[key] = was[key];
    }
  }
  return Object.keys(out).length ? (out as TicketPatch) : null;
}

interface UndoStep {
  saved: FullTicket;
  patch: TicketPatch;
}

/**
 * After a bulk change: a toast with Undo that puts each ticket back (its fields, its column and
 * place), one request per ticket with `ifUpdatedAt`, so a ticket someone changed since is left as
 * it is and counted in the answer.
 */
export function useBulkUndo(projectId: string, merge: (tickets: FullTicket[]) => void) {
  const toast = useToast();
  const putBack = useMutation({
    mutationFn: async (steps: UndoStep[]) => {
      const back: FullTicket[] = [];
      const refused: string[] = [];
      for (const { saved, patch } of steps) {
        try {
          back.push(
            await api<FullTicket>(ticketPath(projectId, saved.id), {
              method: 'PATCH',
              body: { ...patch, ifUpdatedAt: saved.updatedAt },
            }),
          );
        } catch (err) {
          refused.push(`${saved.key} (${errorText(err)})`);
        }
      }
      return { back, refused };
    },
    onSuccess: ({ back, refused }, steps) => {
      merge(back);
      const n = steps.length;
      if (refused.length) toast.error(`Could not undo ${refused.join(', ')}`);
      else toast.show(`Undone: ${n} ticket${n === 1 ? '' : 's'}`);
    },
  });
  return (before: Ticket[], saved: FullTicket[], updates: TicketPatch, text?: string) => {
    const was = new Map(before.map((t) => [t.id, t]));
    const steps = saved
      .map((s) => ({ s, b: was.get(s.id) }))
      .filter((x): x is { s: FullTicket; b: Ticket } => !!x.b)
      .map(({ s, b }) => ({ s, b, patch: reversePatch(b, updates) }))
      .filter((x): x is { s: FullTicket; b: Ticket; patch: TicketPatch } => !!x.patch)
      .sort((x, y) => x.b.order - y.b.order)
      .map(({ s, patch }) => ({ saved: s, patch }));
    if (steps.length === 0) return;
    const n = steps.length;
    toast.undo(text ?? `Updated ${n} ticket${n === 1 ? '' : 's'}`, () => putBack.mutateAsync(steps));
  };
}
