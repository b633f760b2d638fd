/**
 * The board's keys: j/k walk the cards (lane by lane, column by column, top to bottom), a/s/p/l open
 * the quick-set menu at the focused card, x selects it (docs/decisions/046-board-drive.md).
 */
import { useCallback, useState } from 'react';
import type { Ticket } from '../api/types';
import { useEscape, useShortcut } from '../hooks/shortcuts';
import { CARD_ESTIMATE, GAP } from './board-column';
import type { Containers } from './board-drive';
import type { QuickSetKind } from './board-quick-set';

export function useBoardKeys({
  boardRef,
  byId,
  cellOrder,
  containers,
  dragging,
  tickets,
  cellOfTicket,
}: {
  boardRef: React.RefObject<HTMLDivElement | null>;
  byId: Map<string, Ticket>;
  /** The cells (columns, or lane × column) in reading order. */
  cellOrder: string[];
  containers: Containers;
  dragging: boolean;
  tickets: Ticket[];
  cellOfTicket: (t: Ticket) => string;
}) {
  const [quickSet, setQuickSet] = useState<{ kind: QuickSetKind; id: string; anchor: HTMLElement } | null>(
    null,
  );
  const focusedCard = () => {
    const el = (document.activeElement as HTMLElement | null)?.closest<HTMLElement>('[data-testid="card"]');
    const id = el ? byId.get(String(el.dataset.id)) : undefined;
    return el && id ? { el, ticket: id } : null;
  };
  const focusCard = (id: string) => {
    const t = byId.get(id);
    if (!t) return;
    const find = () =>
      boardRef.current?.querySelector<HTMLElement>(`[data-testid="card"][data-key="${CSS.escape(t.key)}"]`);
    const el = find();
    if (el) {
      el.focus();
      el.scrollIntoView({ block: 'nearest', inline: 'nearest' });
      return;
    }
    // Not drawn yet (the column draws only what is near its view): scroll its column there first.
    const cell = cellOfTicket(t);
    const scroller = boardRef.current
      ?.querySelector(`[data-testid="column"][data-cell-id="${CSS.escape(cell)}"]`)
      ?.querySelector<HTMLElement>('[data-testid="column-scroll"]');
    const at = (containers[cell] ?? []).indexOf(id);
    if (scroller && at >= 0) scroller.scrollTop = at * (CARD_ESTIMATE + GAP);
    requestAnimationFrame(() => requestAnimationFrame(() => find()?.focus()));
  };
  const step = (by: 1 | -1) => {
    if (dragging) return false;
    const order = cellOrder.flatMap((c) => containers[c] ?? []);
    if (!order.length) return false;
    const current = focusedCard();
    const at = current ? order.indexOf(current.ticket.id) : -1;
    const next =
      at < 0 ? (by === 1 ? 0 : order.length - 1) : Math.min(order.length - 1, Math.max(0, at + by));
    focusCard(order[next]);
    return true;
  };
  useShortcut('j', () => step(1));
  useShortcut('k', () => step(-1));
  const openQuickSet = (kind: QuickSetKind) => {
    const current = focusedCard();
    if (dragging || !current) return false;
    setQuickSet({ kind, id: current.ticket.id, anchor: current.el });
    return true;
  };
  useShortcut('a', () => openQuickSet('assignee'));
  useShortcut('s', () => openQuickSet('status'));
  useShortcut('p', () => openQuickSet('priority'));
  useShortcut('l', () => openQuickSet('labels'));

  // Several cards selected (Shift-, Ctrl- or ⌘-click, or x on a focused card): the backlog's bulk actions.
  const [selected, setSelected] = useState<Set<string>>(() => new Set());
  const [bulkDialog, setBulkDialog] = useState<'edit' | 'delete' | null>(null);
  const toggleSelected = useCallback(
    (id: string) =>
      setSelected((s) => {
        const next = new Set(s);
        if (!next.delete(id)) next.add(id);
        return next;
      }),
    [],
  );
  const selectedTickets = tickets.filter((t) => selected.has(t.id));
  useShortcut('x', () => {
    const current = focusedCard();
    if (dragging || !current) return false;
    toggleSelected(current.ticket.id);
    return true;
  });
  useEscape(() => setSelected(new Set()), selectedTickets.length > 0 && !bulkDialog);

  return {
    quickSet,
    closeQuickSet: () => setQuickSet(null),
    selected,
    selectedTickets,
    toggleSelected,
    clearSelection: () => setSelected(new Set()),
    bulkDialog,
    setBulkDialog,
  };
}
