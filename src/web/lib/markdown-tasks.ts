/**
 * Ticks or unticks the task-list box of the list item that starts at `offset` in `source` (the
 * item's position as the Markdown parser reports it), and returns the new source; null when no box
 * is there (the source changed meanwhile). Only the one character between the brackets changes.
 */
export function setTaskChecked(source: string, offset: number, checked: boolean): string | null {
  const m = /^[ \t]*(?:[-*+]|\d{1,9}[.)])[ \t]+\[([ xX])\]/.exec(source.slice(offset));
  if (!m) return null;
  const at = offset + m[0].length - 2;
  return `${source.slice(0, at)}${checked ? 'x' : ' '}${source.slice(at + 1)}`;
}
