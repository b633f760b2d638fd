import type { Ticket } from './types.js';

/** Tickets of one column in board order. */
export const columnTickets = (list: Ticket[], columnId: string) =>
  list.filter((t) => t.columnId === columnId).sort((a, b) => a.order - b.order || a.number - b.number);

/** Gives the tickets of a column the orders 0..n-1 in the given sequence. */
function renumber(byId: Map<string, Ticket>, seq: Ticket[]) {
  seq.forEach((t, i) => {
    if (t.order !== i) byId.set(t.id, { ...byId.get(t.id)!, order: i });
  });
}

/**
 * Moves a ticket to `order` in `columnId` the way the server does (insert there, shift the others,
 * orders 0..n-1 in both columns), so optimistic updates and remote events agree with the server.
 */
export function applyMove(
  list: Ticket[],
  ticketId: string,
  columnId: string,
  order: number,
  patch?: Partial<Ticket>,
): Ticket[] {
  const moving = list.find((t) => t.id === ticketId);
  if (!moving) return list;
  const byId = new Map(list.map((t) => [t.id, t]));
  const from = moving.columnId;
  const sourceRest = columnTickets(list, from).filter((t) => t.id !== ticketId);
  const target = from === columnId ? sourceRest : columnTickets(list, columnId);
  const at = Math.max(0, Math.min(order, target.length));
  const moved = { ...moving, ...patch, columnId, order: at };
  const seq = [...target.slice(0, at), moved, ...target.slice(at)];
  byId.set(ticketId, moved);
  if (from !== columnId) renumber(byId, sourceRest);
  renumber(byId, seq);
  return list.map((t) => byId.get(t.id)!);
}

/** Adds or merges a ticket; a changed column or order is applied as a move. */
export function upsertTicket(list: Ticket[], incoming: Partial<Ticket> & { id: string }): Ticket[] {
  const current = list.find((t) => t.id === incoming.id);
  if (!current) {
    if (!incoming.columnId || incoming.order === undefined) return list;
    const added = [...list, incoming as Ticket];
    return applyMove(added, incoming.id, incoming.columnId, incoming.order);
  }
  const columnId = incoming.columnId ?? current.columnId;
  const order = incoming.order ?? current.order;
  if (columnId !== current.columnId || order !== current.order)
    return applyMove(list, incoming.id, columnId, order, incoming);
  return list.map((t) => (t.id === incoming.id ? { ...t, ...incoming } : t));
}

/** Removes a ticket and closes the gap in its column; its subtasks lose their parent, as on the server. */
export function removeTicket(list: Ticket[], ticketId: string): Ticket[] {
  const gone = list.find((t) => t.id === ticketId);
  if (!gone) return list;
  const byId = new Map(
    list
      .filter((t) => t.id !== ticketId)
      .map((t) => [t.id, t.parentId === ticketId ? { ...t, parentId: null } : t]),
  );
  renumber(
    byId,
    columnTickets(list, gone.columnId).filter((t) => t.id !== ticketId),
  );
  return list.filter((t) => t.id !== ticketId).map((t) => byId.get(t.id)!);
}
