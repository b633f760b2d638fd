/**
 * Keyboard quick-set on the focused board card: a (assignee), s (status = column), p (priority),
 * l (labels) open a small menu at the card; arrows move, Enter picks, Escape goes back to the card.
 */
import * as RadixPopover from '@radix-ui/react-popover';
import { type KeyboardEvent, useMemo } from 'react';
import { PRIORITIES } from '../../shared/enums';
import type { TicketPatch } from '../api/tickets';
import type { Column, Label, Member, Ticket } from '../api/types';
import { PriorityIcon } from '../components/icons';
import { MenuItem } from '../components/Popover';
import { ColorDot } from '../components/ui';

export type QuickSetKind = 'assignee' | 'status' | 'priority' | 'labels';
const TITLES: Record<QuickSetKind, string> = {
  assignee: 'Set assignee',
  status: 'Set status',
  priority: 'Set priority',
  labels: 'Set labels',
};

/** Arrow keys move between the menu's items (wrapping), Home/End to the ends. */
function onMenuKeys(e: KeyboardEvent<HTMLDivElement>) {
  const items = [...e.currentTarget.querySelectorAll<HTMLElement>('[role^="menuitem"]')];
  const at = items.indexOf(document.activeElement as HTMLElement);
  const go = (i: number) => {
    e.preventDefault();
    items[(i + items.length) % items.length]?.focus();
  };
  if (e.key === 'ArrowDown') go(at + 1);
  else if (e.key === 'ArrowUp') go(at - 1);
  else if (e.key === 'Home') go(0);
  else if (e.key === 'End') go(items.length - 1);
}

export function QuickSetMenu({
  kind,
  ticket,
  anchor,
  columns,
  members,
  labels,
  onSet,
  onClose,
}: {
  kind: QuickSetKind;
  ticket: Ticket;
  anchor: HTMLElement;
  columns: Column[];
  members: Member[];
  labels: Label[];
  onSet: (patch: TicketPatch) => void;
  onClose: () => void;
}) {
  const anchorRef = useMemo(() => ({ current: anchor }), [anchor]);
  const pick = (patch: TicketPatch) => {
    onSet(patch);
    onClose();
  };
  const labelIds = ticket.labelIds ?? ticket.labels?.map((l) => l.id) ?? [];
  return (
    <RadixPopover.Root open onOpenChange={(open) => !open && onClose()}>
      <RadixPopover.Anchor virtualRef={anchorRef} />
      <RadixPopover.Portal>
        <RadixPopover.Content
          side="bottom"
          align="start"
          sideOffset={4}
          onEscapeKeyDown={(e) => e.stopPropagation()}
          onOpenAutoFocus={(e) => {
            // Focus the current value, or the first item.
            e.preventDefault();
            const panel = e.currentTarget as HTMLElement;
            const current = panel.querySelector<HTMLElement>('[data-current="true"] [role="menuitem"]');
            (current ?? panel.querySelector<HTMLElement>('[role^="menuitem"]'))?.focus();
          }}
          onCloseAutoFocus={(e) => {
            e.preventDefault();
            anchor.focus();
          }}
          aria-label={`${TITLES[kind]} of ${ticket.key}`}
          className="z-50 max-h-80 w-56 overflow-y-auto rounded-md border border-line bg-surface p-1 shadow-pop"
        >
          <div role="menu" aria-label={`${TITLES[kind]} of ${ticket.key}`} onKeyDown={onMenuKeys}>
            <div className="px-2 pt-1 pb-1.5 text-[11px] font-medium text-faint">{TITLES[kind]}</div>
            {kind === 'assignee' && (
              <>
                <Item current={!ticket.assigneeId} onSelect={() => pick({ assigneeId: null })}>
                  Unassigned
                </Item>
                {members.map((m) => (
                  <Item
                    key={m.userId}
                    current={ticket.assigneeId === m.userId}
                    onSelect={() => pick({ assigneeId: m.userId })}
                  >
                    {m.user.name ?? m.user.username}
                  </Item>
                ))}
              </>
            )}
            {kind === 'status' &&
              columns.map((c) => (
                <Item key={c.id} current={ticket.columnId === c.id} onSelect={() => pick({ columnId: c.id })}>
                  {c.name}
                </Item>
              ))}
            {kind === 'priority' &&
              [...PRIORITIES].reverse().map((p) => (
                <Item key={p} current={ticket.priority === p} onSelect={() => pick({ priority: p })}>
                  <PriorityIcon priority={p} /> {p}
                </Item>
              ))}
            {kind === 'labels' &&
              (labels.length === 0 ? (
                <p className="px-2 py-1.5 text-[12px] text-muted">No labels in this project yet.</p>
              ) : (
                labels.map((l) => {
                  const on = labelIds.includes(l.id);
                  return (
                    <button
                      key={l.id}
                      type="button"
                      role="menuitemcheckbox"
                      aria-checked={on}
                      onClick={() =>
                        onSet({ labelIds: on ? labelIds.filter((x) => x !== l.id) : [...labelIds, l.id] })
                      }
                      className="flex w-full items-center gap-2 rounded px-2 py-1.5 text-left text-[13px] hover:bg-hover focus:bg-hover"
                    >
                      <span aria-hidden="true" className="w-3">
                        {on ? '✓' : ''}
                      </span>
                      <ColorDot color={l.color} /> {l.name}
                    </button>
                  );
                })
              ))}
          </div>
        </RadixPopover.Content>
      </RadixPopover.Portal>
    </RadixPopover.Root>
  );
}

function Item({
  current,
  onSelect,
  children,
}: {
  current: boolean;
  onSelect: () => void;
  children: React.ReactNode;
}) {
  return (
    <span data-current={current ? 'true' : undefined} className="contents">
      <MenuItem active={current} onSelect={onSelect}>
        {children}
        {current && <span className="sr-only"> (current)</span>}
      </MenuItem>
    </span>
  );
}
