import { type KeyboardEvent, useState } from 'react';

interface Options {
  /** The arrows go round from the last item to the first (and back); else they stop at the ends. */
  wrap?: boolean;
  /** Which keys pick the highlighted item; Enter by default. */
  isPick?: (e: KeyboardEvent) => boolean;
}

const isEnter = (e: KeyboardEvent) => e.key === 'Enter';

/**
 * The highlighted item of a list driven from a text field (a combobox: the command palette, the
 * search page, the mention list): the up and down arrows move it, Enter picks it. The field keeps
 * the focus; the list shows `active` (aria-activedescendant) and sets it on hover with `setActive`.
 * `onKeyDown` returns whether it handled the key (then it has prevented the default).
 */
export function useListNavigation(count: number, pick: (index: number) => void, options: Options = {}) {
  const { wrap = false, isPick = isEnter } = options;
  const [active, setActive] = useState(0);
  const move = (step: 1 | -1) =>
    setActive((a) =>
      wrap ? (a + step + count) % count : step > 0 ? Math.min(count - 1, a + 1) : Math.max(0, a - 1),
    );
  const onKeyDown = (e: KeyboardEvent): boolean => {
    if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
      e.preventDefault();
      if (count > 0) move(e.key === 'ArrowDown' ? 1 : -1);
      return true;
    }
    if (isPick(e)) {
      e.preventDefault();
      pick(active);
      return true;
    }
    return false;
  };
  return { active, setActive, onKeyDown };
}
