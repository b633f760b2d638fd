import { useEffect, useRef } from 'react';

/** True when the key event comes from a place where typing goes (inputs, editors, selects). */
export function isTyping(e: KeyboardEvent): boolean {
  const el = e.target as HTMLElement | null;
  if (!el) return false;
  const tag = el.tagName;
  return tag === 'INPUT' || tag === 'TEXTAREA' || tag === 'SELECT' || el.isContentEditable;
}

/**
 * A global single-key shortcut, ignored while typing or with modifier keys (except Shift for `?`).
 * The handler returns false to let the event through.
 */
export function useShortcut(key: string, handler: (e: KeyboardEvent) => boolean | undefined, enabled = true) {
  const ref = useRef(handler);
  ref.current = handler;
  useEffect(() => {
    if (!enabled) return;
    const onKey = (e: KeyboardEvent) => {
      if (e.defaultPrevented || e.ctrlKey || e.metaKey || e.altKey || isTyping(e)) return;
      if (e.key !== key) return;
      if (ref.current(e) !== false) e.preventDefault();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [key, enabled]);
}

/** Escape closes the innermost layer: the last registered handler wins. */
const escapeStack: Array<{ current: () => void }> = [];
if (typeof window !== 'undefined') {
  window.addEventListener('keydown', (e) => {
    if (e.key !== 'Escape' || escapeStack.length === 0 || e.defaultPrevented) return;
    e.preventDefault();
    escapeStack[escapeStack.length - 1].current();
  });
}

export function useEscape(handler: () => void, enabled = true) {
  const ref = useRef(handler);
  ref.current = handler;
  useEffect(() => {
    if (!enabled) return;
    const entry = { current: () => ref.current() };
    escapeStack.push(entry);
    return () => {
      const i = escapeStack.indexOf(entry);
      if (i >= 0) escapeStack.splice(i, 1);
    };
  }, [enabled]);
}
