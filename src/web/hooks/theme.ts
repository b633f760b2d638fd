import { useSyncExternalStore } from 'react';

export type ThemeChoice = 'system' | 'light' | 'dark';
const KEY = 'docket-theme';
const listeners = new Set<() => void>();

function read(): ThemeChoice {
  try {
    const v = localStorage.getItem(KEY);
    return v === 'light' || v === 'dark' ? v : 'system';
  } catch {
    return 'system';
  }
}

/** Pins data-theme on <html> for light or dark; without it the CSS follows the system. */
export function applyTheme(choice: ThemeChoice = read()) {
  const root = document.documentElement;
  if (choice === 'system') root.removeAttribute('data-theme');
  else root.setAttribute('data-theme', choice);
}

export function setTheme(choice: ThemeChoice) {
  try {
    if (choice === 'system') localStorage.removeItem(KEY);
    else localStorage.setItem(KEY, choice);
  } catch {
    // Storage can be unavailable (private mode): the choice still applies to this page.
  }
  applyTheme(choice);
  for (const fn of listeners) fn();
}

/** The effective theme: the pinned one, or the system's. */
export function effectiveTheme(choice: ThemeChoice = read()): 'light' | 'dark' {
  if (choice !== 'system') return choice;
  return window.matchMedia?.('(prefers-color-scheme: dark)').matches ? 'dark' : 'light';
}

export function useTheme(): ThemeChoice {
  return useSyncExternalStore((fn) => {
    listeners.add(fn);
    const mq = window.matchMedia?.('(prefers-color-scheme: dark)');
    mq?.addEventListener('change', fn);
    return () => {
      listeners.delete(fn);
      mq?.removeEventListener('change', fn);
    };
  }, read);
}
