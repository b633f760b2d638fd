/**
 * A filter that takes several values (any of them matches): a button showing the chosen values as
 * chips, opening a list of checkboxes. Used by the board's and the backlog's filters.
 */
import type { ReactNode } from 'react';
import { Popover } from './Popover';

export interface PickerOption {
  value: string;
  label: string;
  /** A mark before the label (a colour dot, an avatar, an icon). */
  icon?: ReactNode;
}

export function MultiPicker({
  label,
  anyText,
  options,
  value,
  onChange,
}: {
  /** The control's name ("Type"). */
  label: string;
  /** Shown when nothing is chosen ("Any type"). */
  anyText: string;
  options: PickerOption[];
  value: string[];
  onChange: (next: string[]) => void;
}) {
  const chosen = value
    .map((v) => options.find((o) => o.value === v) ?? { value: v, label: v })
    .filter((o) => o.label);
  // Chosen values keep the options' order, so the same choice always reads (and links) the same.
  const toggle = (v: string) => {
    const next = new Set(value);
    if (!next.delete(v)) next.add(v);
    const known = options.map((o) => o.value).filter((x) => next.has(x));
    onChange([...known, ...[...next].filter((x) => !known.includes(x))]);
  };
  const shown = chosen.slice(0, 2);
  return (
    <Popover
      label={label}
      panelClass="w-56 max-h-80 overflow-y-auto"
      className={`flex h-7 max-w-[16rem] shrink-0 items-center gap-1 rounded-md border px-1.5 text-[12px] focus:border-accent focus:outline-none ${
        chosen.length ? 'border-accent text-fg' : 'border-line text-fg'
      } bg-surface`}
      button={
        <>
          {chosen.length === 0 ? (
            <span className="truncate">{anyText}</span>
          ) : (
            <>
              <span className="text-muted">{label}:</span>
              {shown.map((o) => (
                <span
                  key={o.value}
                  data-testid="filter-chip"
                  className="inline-flex h-5 min-w-0 max-w-[7rem] items-center rounded-full bg-accent-soft px-1.5 text-[11px]"
                >
                  <span className="truncate">{o.label}</span>
                </span>
              ))}
              {chosen.length > shown.length && (
                <span className="text-[11px] text-muted">+{chosen.length - shown.length}</span>
              )}
            </>
          )}
          <span aria-hidden="true" className="text-faint">
            ▾
          </span>
        </>
      }
    >
      {() => (
        <fieldset className="flex flex-col">
          <legend className="sr-only">{label}</legend>
          {options.map((o) => (
            <label
              key={o.value}
              className="flex cursor-pointer items-center gap-2 rounded px-2 py-1.5 text-[13px] hover:bg-hover"
            >
              <input
                type="checkbox"
                aria-label={o.label}
                checked={value.includes(o.value)}
                onChange={() => toggle(o.value)}
              />
              {o.icon}
              <span className="min-w-0 flex-1 truncate">{o.label}</span>
            </label>
          ))}
          {value.length > 0 && (
            <button
              type="button"
              className="mt-1 rounded px-2 py-1.5 text-left text-[12px] text-muted hover:bg-hover hover:text-fg"
              onClick={() => onChange([])}
            >
              Clear {label.toLowerCase()}
            </button>
          )}
        </fieldset>
      )}
    </Popover>
  );
}
