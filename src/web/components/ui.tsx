import * as RadixDialog from '@radix-ui/react-dialog';
import {
  type ButtonHTMLAttributes,
  forwardRef,
  type InputHTMLAttributes,
  type ReactNode,
  type SelectHTMLAttributes,
  type TextareaHTMLAttributes,
  useId,
  useRef,
} from 'react';
import { url } from '../api/client';

type Variant = 'primary' | 'secondary' | 'ghost' | 'danger';
const variants: Record<Variant, string> = {
  primary: 'bg-accent text-accent-fg hover:opacity-90 border border-transparent',
  secondary: 'bg-surface text-fg border border-line hover:bg-hover',
  ghost: 'text-muted hover:bg-hover hover:text-fg border border-transparent',
  danger: 'bg-surface text-danger border border-line hover:bg-danger-soft',
};

export const Button = forwardRef<
  HTMLButtonElement,
  ButtonHTMLAttributes<HTMLButtonElement> & { variant?: Variant; size?: 'sm' | 'md' }
>(function Button({ variant = 'secondary', size = 'md', className = '', type = 'button', ...rest }, ref) {
  const sz = size === 'sm' ? 'h-7 px-2 text-[12px]' : 'h-8 px-3 text-[13px]';
  return (
    <button
      ref={ref}
      type={type}
      className={`inline-flex items-center justify-center gap-1.5 rounded-md font-medium whitespace-nowrap transition-colors disabled:cursor-not-allowed disabled:opacity-50 ${sz} ${variants[variant]} ${className}`}
      {...rest}
    />
  );
});

export const inputClass =
  'h-8 w-full rounded-md border border-line bg-surface px-2.5 text-[13px] text-fg placeholder:text-faint focus:border-accent focus:outline-none';

/** The control's classes with the caller's; a width the caller gives replaces the full width. */
const withWidth = (base: string, className: string) =>
  /(^|\s)w-/.test(className) ? `${base.replace(' w-full', '')} ${className}` : `${base} ${className}`;

export const Input = forwardRef<HTMLInputElement, InputHTMLAttributes<HTMLInputElement>>(function Input(
  { className = '', ...rest },
  ref,
) {
  return <input ref={ref} className={withWidth(inputClass, className)} {...rest} />;
});

export const Textarea = forwardRef<HTMLTextAreaElement, TextareaHTMLAttributes<HTMLTextAreaElement>>(
  function Textarea({ className = '', ...rest }, ref) {
    return (
      <textarea
        ref={ref}
        className={`w-full rounded-md border border-line bg-surface px-2.5 py-2 text-[13px] text-fg placeholder:text-faint focus:border-accent focus:outline-none ${className}`}
        {...rest}
      />
    );
  },
);

export function Select({ className = '', ...rest }: SelectHTMLAttributes<HTMLSelectElement>) {
  return <select className={withWidth(`${inputClass} pr-6`, className)} {...rest} />;
}

/** A labelled form field; the label is tied to the control by id. */
export function Field({
  label,
  children,
  hint,
  error,
}: {
  label: string;
  children: (id: string) => ReactNode;
  hint?: ReactNode;
  error?: string | null;
}) {
  const id = useId();
  return (
    <div className="flex flex-col gap-1">
      <label htmlFor={id} className="text-[12px] font-medium text-muted">
        {label}
      </label>
      {children(id)}
      {hint && <div className="text-[12px] text-faint">{hint}</div>}
      {error && (
        <div role="alert" className="text-[12px] text-danger">
          {error}
        </div>
      )}
    </div>
  );
}

export function Kbd({ children }: { children: ReactNode }) {
  return (
    <kbd className="inline-flex h-5 min-w-5 items-center justify-center rounded border border-line bg-surface-2 px-1 font-mono text-[11px] text-muted">
      {children}
    </kbd>
  );
}

export function Skeleton({ className = '' }: { className?: string }) {
  return <div aria-hidden="true" className={`skeleton ${className}`} />;
}

export function EmptyState({
  title,
  children,
  action,
}: {
  title: string;
  children?: ReactNode;
  action?: ReactNode;
}) {
  return (
    <div className="mx-auto flex max-w-sm flex-col items-center gap-2 px-4 py-12 text-center">
      <div className="text-[14px] font-medium text-fg">{title}</div>
      {children && <div className="text-muted">{children}</div>}
      {action && <div className="mt-2">{action}</div>}
    </div>
  );
}

export function ErrorState({ message, onRetry }: { message: string; onRetry?: () => void }) {
  return (
    <div role="alert" className="mx-auto flex max-w-md flex-col items-center gap-2 px-4 py-12 text-center">
      <div className="text-[14px] font-medium text-danger">{message}</div>
      {onRetry && (
        <Button size="sm" onClick={onRetry}>
          Try again
        </Button>
      )}
    </div>
  );
}

/** A person's picture, or their initials on a colour derived from the name. */
export function Avatar({
  name,
  src,
  size = 20,
}: {
  name: string | null | undefined;
  src?: string | null;
  size?: number;
}) {
  const label = name ?? '?';
  const initials =
    label
      .split(/\s+/)
      .filter(Boolean)
      .slice(0, 2)
      .map((w) => w[0]?.toUpperCase())
      .join('') || '?';
  let hash = 0;
  for (const ch of label) hash = (hash * 31 + ch.charCodeAt(0)) >>> 0;
  const hue = hash % 360;
  const style = { width: size, height: size, fontSize: Math.max(9, size * 0.42) };
  if (src)
    return (
      <img
        src={url(src)}
        alt={label}
        title={label}
        className="shrink-0 rounded-full object-cover"
        style={style}
      />
    );
  return (
    <span
      title={label}
      role="img"
      aria-label={label}
      className="inline-flex shrink-0 items-center justify-center rounded-full font-semibold text-white"
      style={{ ...style, background: `hsl(${hue} 45% 42%)` }}
    >
      {initials}
    </span>
  );
}

/**
 * A modal dialog (Radix Dialog): focus moves to its first field and stays inside (Tab cycles), the
 * rest of the page is inert (hidden from screen readers, no pointer events), Escape or the close
 * button closes it, and focus returns to where it was. Escape closes only the innermost layer: the
 * dialog stops it before the page's own Escape handlers (the ticket drawer) see it.
 */
export function Dialog({
  title,
  onClose,
  children,
  width = 'max-w-lg',
}: {
  title: string;
  onClose: () => void;
  children: ReactNode;
  width?: string;
}) {
  // Where focus was when the dialog opened (read at the first render, before the dialog takes it).
  const opener = useRef<HTMLElement | null>(null);
  opener.current ??= document.activeElement as HTMLElement | null;
  return (
    <RadixDialog.Root open onOpenChange={(open) => !open && onClose()}>
      <RadixDialog.Portal>
        <RadixDialog.Overlay className="fixed inset-0 z-50 bg-[var(--overlay)]" />
        <div className="pointer-events-none fixed inset-0 z-50 flex items-start justify-center overflow-y-auto p-4 pt-[10vh]">
          <RadixDialog.Content
            aria-describedby={undefined}
            onOpenAutoFocus={(e) => {
              const first = (e.currentTarget as HTMLElement | null)?.querySelector<HTMLElement>(
                'input, textarea, select, button:not([data-close])',
              );
              if (first) {
                e.preventDefault();
                first.focus();
              }
            }}
            onEscapeKeyDown={(e) => {
              e.stopPropagation();
              // An open suggestion list (the @-mention combobox) takes Escape for itself.
              const target = e.target as Element | null;
              if (target?.closest?.('[aria-autocomplete="list"][aria-activedescendant]')) e.preventDefault();
            }}
            onCloseAutoFocus={(e) => {
              e.preventDefault();
              opener.current?.focus();
            }}
            className={`pointer-events-auto relative w-full ${width} rounded-lg border border-line bg-surface shadow-pop`}
          >
            <div className="flex items-center justify-between border-b border-line px-4 py-3">
              <RadixDialog.Title className="text-[14px] font-semibold">{title}</RadixDialog.Title>
              <RadixDialog.Close
                data-close
                aria-label="Close"
                className="rounded px-1 text-faint hover:bg-hover hover:text-fg"
              >
                ×
              </RadixDialog.Close>
            </div>
            <div className="p-4">{children}</div>
          </RadixDialog.Content>
        </div>
      </RadixDialog.Portal>
    </RadixDialog.Root>
  );
}

/** A small coloured square: the project's or label's colour as a mark, never a flood. */
export function ColorDot({ color, size = 10 }: { color: string; size?: number }) {
  return (
    <span
      aria-hidden="true"
      className="inline-block shrink-0 rounded-[3px]"
      style={{ width: size, height: size, background: color }}
    />
  );
}

export function LabelChip({ name, color }: { name: string; color: string }) {
  return (
    <span className="inline-flex h-5 min-w-0 max-w-[10rem] shrink items-center gap-1 rounded-full border border-line px-1.5 text-[11px] text-muted">
      <span
        aria-hidden="true"
        className="inline-block h-2 w-2 shrink-0 rounded-full"
        style={{ background: color }}
      />
      <span className="truncate">{name}</span>
    </span>
  );
}
