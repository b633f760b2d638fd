import { type ReactNode, useEffect, useId, useRef, useState } from 'react';
import { useEscape } from '../hooks/shortcuts';

/**
 * A button that opens a floating panel; a click outside or Escape closes it and focus returns to the
 * button. `children` gets a close function.
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
  const wrap = useRef<HTMLDivElement>(null);
  const btn = useRef<HTMLButtonElement>(null);
  const id = useId();
  const close = () => {
    setOpen(false);
    btn.current?.focus();
  };
  useEscape(close, open);
  useEffect(() => {
    if (!open) return;
    const onDown = (e: MouseEvent) => {
      if (!wrap.current?.contains(e.target as Node)) setOpen(false);
    };
    document.addEventListener('mousedown', onDown);
    return () => document.removeEventListener('mousedown', onDown);
  }, [open]);
  return (
    <div ref={wrap} className="relative">
      <button
        ref={btn}
        type="button"
        aria-label={label}
        aria-haspopup="true"
        aria-expanded={open}
        aria-controls={open ? id : undefined}
        className={className}
        onClick={() => setOpen((o) => !o)}
      >
        {button}
      </button>
      {open && (
        <div
          id={id}
          className={`absolute z-40 ${up ? 'bottom-full mb-1' : 'top-full mt-1'} ${align === 'right' ? 'right-0' : 'left-0'} rounded-md border border-line bg-surface p-1 shadow-pop ${panelClass}`}
        >
          {children(close)}
        </div>
      )}
    </div>
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
