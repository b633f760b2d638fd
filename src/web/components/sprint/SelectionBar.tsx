/** The bar over a selection of tickets (backlog and board): move to a sprint, bulk edit, delete. */
import type { SprintFull, Ticket } from '../../api/types';
import { sumPoints } from '../../lib/dates';
import { smallSelect } from '../TicketFilters';
import { Button } from '../ui';

const TO_BACKLOG = 'backlog';

export function SelectionBar({
  tickets,
  open,
  moveTo,
  clear,
  onEdit,
  onDelete,
  extra,
}: {
  tickets: Ticket[];
  open: SprintFull[];
  moveTo: (list: Ticket[], target: string | null) => void;
  clear: () => void;
  onEdit: () => void;
  onDelete: () => void;
  /** More actions of the page showing the bar (the board's column move). */
  extra?: React.ReactNode;
}) {
  return (
    <section
      aria-label="Selected tickets"
      className="sticky top-[45px] z-10 flex flex-wrap items-center gap-2 border-b border-line bg-accent-soft px-3 py-1.5 sm:px-4"
    >
      <span className="font-medium text-fg" data-testid="selection-count">
        {tickets.length} selected
      </span>
      <span className="text-muted">· {sumPoints(tickets)} pts</span>
      <span className="flex-1" />
      <select
        aria-label="Move selected tickets to"
        className={smallSelect}
        value=""
        onChange={(e) => {
          const v = e.target.value;
          if (!v) return;
          moveTo(tickets, v === TO_BACKLOG ? null : v);
        }}
      >
        <option value="">Move to…</option>
        <option value={TO_BACKLOG}>Backlog</option>
        {open.map((s) => (
          <option key={s.id} value={s.id}>
            {s.name}
          </option>
        ))}
      </select>
      {extra}
      <Button size="sm" onClick={onEdit}>
        Edit…
      </Button>
      <Button size="sm" variant="danger" onClick={onDelete}>
        Delete…
      </Button>
      <Button size="sm" variant="ghost" onClick={clear}>
        Clear selection
      </Button>
    </section>
  );
}
