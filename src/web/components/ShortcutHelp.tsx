import { MOD_KEY } from '../lib/platform';
import { Dialog, Kbd } from './ui';

export const SHORTCUTS: { keys: string[]; what: string }[] = [
  { keys: [MOD_KEY, 'K'], what: 'Open the command palette' },
  { keys: ['C'], what: 'Create a ticket' },
  { keys: ['/'], what: 'Search the board' },
  { keys: ['?'], what: 'Show these shortcuts' },
  { keys: ['Esc'], what: 'Close the open panel or dialog' },
  { keys: ['Space'], what: 'On a focused card: pick it up or drop it' },
  { keys: ['←', '↑', '↓', '→'], what: 'While a card is picked up: move it' },
  { keys: ['Enter'], what: 'On a focused card: open the ticket' },
  { keys: ['J', 'K'], what: 'On the board: next or previous card' },
  { keys: ['A'], what: 'On a focused card: set the assignee' },
  { keys: ['S'], what: 'On a focused card: set the status (column)' },
  { keys: ['P'], what: 'On a focused card: set the priority' },
  { keys: ['L'], what: 'On a focused card: set the labels' },
  { keys: ['←', '→'], what: 'On a timeline bar: move it a day' },
  { keys: ['Shift', '←', '→'], what: 'On a timeline bar: change the due date' },
  { keys: ['Alt', '←', '→'], what: 'On a timeline bar: change the start date' },
];

export function ShortcutHelp({ onClose }: { onClose: () => void }) {
  return (
    <Dialog title="Keyboard shortcuts" onClose={onClose} width="max-w-md">
      <dl className="flex flex-col gap-2">
        {SHORTCUTS.map((s) => (
          <div key={s.what} className="flex items-center justify-between gap-4">
            <dt className="text-muted">{s.what}</dt>
            <dd className="flex gap-1">
              {s.keys.map((k) => (
                <Kbd key={k}>{k}</Kbd>
              ))}
            </dd>
          </div>
        ))}
      </dl>
    </Dialog>
  );
}
