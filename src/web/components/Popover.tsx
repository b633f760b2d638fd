import * as RadixPopover from '@radix-ui/react-popover';
import { type ReactNode, useState } from 'react';

/**
 * A button that opens a floating panel (Radix Popover): a click outside or Escape closes it (only
 * it: Escape goes no further) and focus returns to the button. `children` gets a close function.
 */
export function Popover({
  button,
  label,
  children,
  align = 'left',
  className = '',
  panelClass = 'w-56',
  up = false,
}: {
  button: ReactNode;
  label: string;
  children: (close: () => void) => ReactNode;
  align?: 'left' | 'right';
  className?: string;
  panelClass?: string;
  up?: boolean;
}) {
  const [open, setOpen] = useState(false);
  return (
    <RadixPopover.Root open={open} onOpenChange={setOpen}>
      <RadixPopover.Trigger type="button" aria-label={label} aria-haspopup="true" className={className}>
        {button}
      </RadixPopover.Trigger>
      <RadixPopover.Content
        side={up ? 'top' : 'bottom'}
        align={align === 'right' ? 'end' : 'start'}
        sideOffset={4}
        onEscapeKeyDown={(e) => e.stopPropagation()}
        className={`z-50 rounded-md border border-line bg-surface p-1 shadow-pop ${panelClass}`}
      >
        {children(() => setOpen(false))}
      </RadixPopover.Content>
    </RadixPopover.Root>
  );
}

export function MenuItem({
  children,
  onSelect,
  active,
  danger,
}: {
  children: ReactNode;
  onSelect: () => void;
  active?: boolean;
  danger?: boolean;
}) {
  return (
    <button
      type="button"
      role="menuitem"
      onClick={onSelect}
      className={`flex w-full items-center gap-2 rounded px-2 py-1.5 text-left text-[13px] hover:bg-hover ${
        danger ? 'text-danger' : 'text-fg'
      } ${active ? 'bg-hover' : ''}`}
    >
      {children}
    </button>
  );
}
