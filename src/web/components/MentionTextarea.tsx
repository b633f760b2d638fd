import { type KeyboardEvent, type TextareaHTMLAttributes, useId, useMemo, useRef, useState } from 'react';
import { useListNavigation } from '../hooks/list-navigation';
import { Avatar, Textarea } from './ui';

export interface MentionPerson {
  username: string;
  name: string | null;
  avatar?: string | null;
}

/** The `@query` being typed just before the caret, if any (the same boundary rule as src/shared/mentions.ts). */
function typedMention(value: string, caret: number): { start: number; query: string } | null {
  const m = /(^|[^A-Za-z0-9_.@/-])@([A-Za-z0-9_-]{0,30})$/.exec(value.slice(0, caret));
  return m ? { start: caret - m[2].length - 1, query: m[2] } : null;
}

/**
 * A textarea that offers people as you type `@`: arrow keys move through the list, Enter or Tab
 * inserts `@username `, Escape closes the list (and only the list). Other keys go to `onKeyDown`.
 */
export function MentionTextarea({
  value,
  onValue,
  people,
  onKeyDown,
  ...rest
}: Omit<TextareaHTMLAttributes<HTMLTextAreaElement>, 'value' | 'onChange'> & {
  value: string;
  onValue: (v: string) => void;
  people: MentionPerson[];
}) {
  const ref = useRef<HTMLTextAreaElement>(null);
  const listId = useId();
  const [at, setAt] = useState<{ start: number; query: string } | null>(null);
  const [dismissed, setDismissed] = useState<string | null>(null);
  const matches = useMemo(() => {
    if (!at) return [];
    const q = at.query.toLowerCase();
    const starts = people.filter(
      (p) => p.username.toLowerCase().startsWith(q) || (p.name ?? '').toLowerCase().startsWith(q),
    );
    // Matches inside names only once two letters are typed: one letter matches nearly everyone.
    const contains =
      q.length < 2
        ? []
        : people.filter(
            (p) => !starts.includes(p) && `${p.username} ${p.name ?? ''}`.toLowerCase().includes(q),
          );
    return [...starts, ...contains].slice(0, 8);
  }, [at, people]);
  const open = !!at && matches.length > 0 && dismissed !== `${at.start}:${at.query}`;

  const track = (el: HTMLTextAreaElement) => {
    const next = typedMention(el.value, el.selectionStart ?? el.value.length);
    setAt(next);
    if (!next || next.start !== at?.start || next.query !== at?.query) setActive(0);
  };

  const choose = (p: MentionPerson) => {
    const el = ref.current;
    if (!el || !at) return;
    const caret = el.selectionStart ?? value.length;
    const insert = `@${p.username} `;
    const next = value.slice(0, at.start) + insert + value.slice(caret);
    onValue(next);
    setAt(null);
    const pos = at.start + insert.length;
    requestAnimationFrame(() => {
      el.focus();
      el.setSelectionRange(pos, pos);
    });
  };

  const {
    active,
    setActive,
    onKeyDown: listKeys,
  } = useListNavigation(matches.length, (i) => choose(matches[Math.min(i, matches.length - 1)]), {
    wrap: true,
    isPick: (e) => (e.key === 'Enter' && !e.ctrlKey && !e.metaKey) || e.key === 'Tab',
  });

  const keyDown = (e: KeyboardEvent<HTMLTextAreaElement>) => {
    if (open) {
      if (listKeys(e)) return;
      if (e.key === 'Escape') {
        e.preventDefault();
        e.stopPropagation();
        setDismissed(at ? `${at.start}:${at.query}` : null);
        return;
      }
    }
    onKeyDown?.(e);
  };

  return (
    <div className="relative">
      <Textarea
        {...rest}
        ref={ref}
        value={value}
        // A textbox that suggests (aria-autocomplete): it keeps its textbox role, so it reads and is
        // found as the text field it is; the open list is named by aria-controls and the highlighted
        // person by aria-activedescendant.
        aria-autocomplete="list"
        aria-controls={open ? listId : undefined}
        aria-activedescendant={open ? `${listId}-${Math.min(active, matches.length - 1)}` : undefined}
        onChange={(e) => {
          onValue(e.target.value);
          track(e.target);
        }}
        onSelect={(e) => track(e.currentTarget)}
        onBlur={() => setAt(null)}
        onKeyDown={keyDown}
      />
      {open && (
        <div
          id={listId}
          role="listbox"
          aria-label="People to mention"
          data-testid="mention-list"
          className="absolute left-2 z-30 mt-1 max-h-60 w-64 overflow-y-auto rounded-md border border-line bg-surface py-1 shadow-lg"
        >
          {matches.map((p, i) => (
            <div
              key={p.username}
              id={`${listId}-${i}`}
              role="option"
              aria-selected={i === active}
              tabIndex={-1}
              onKeyDown={() => {}}
              onMouseDown={(e) => {
                e.preventDefault();
                choose(p);
              }}
              onMouseEnter={() => setActive(i)}
              className={`flex cursor-pointer items-center gap-2 px-2 py-1 ${i === active ? 'bg-accent-soft text-fg' : 'text-muted'}`}
            >
              <Avatar name={p.name ?? p.username} src={p.avatar} size={18} />
              <span className="truncate text-fg">{p.name ?? p.username}</span>
              <span className="truncate text-[12px] text-faint">@{p.username}</span>
            </div>
          ))}
        </div>
      )}
    </div>
  );
}
