import {
  createContext,
  type ReactNode,
  useCallback,
  useContext,
  useEffect,
  useMemo,
  useRef,
  useState,
} from 'react';
import { modShortcut } from '../lib/platform';

type Tone = 'info' | 'error' | 'success';
/** A button on a toast (Undo): runs once, then the toast goes. */
export interface ToastAction {
  label: string;
  run: () => unknown;
}
interface Toast {
  id: number;
  text: string;
  tone: Tone;
  action?: ToastAction;
}
interface ToastApi {
  show: (text: string, tone?: Tone) => void;
  error: (text: string) => void;
  /** A message with Undo (and Ctrl/⌘+Z while it is up): `run` reverses what was done. */
  undo: (text: string, run: () => unknown) => void;
}

const Ctx = createContext<ToastApi>({ show: () => {}, error: () => {}, undo: () => {} });
export const useToast = () => useContext(Ctx);

let nextId = 1;

/** Where Ctrl/⌘+Z belongs to the field (its own text undo), not to the toast. */
const isTextField = (el: EventTarget | null) =>
  el instanceof HTMLElement &&
  (el.isContentEditable ||
    el instanceof HTMLTextAreaElement ||
    (el instanceof HTMLInputElement && el.type !== 'checkbox'));

/**
 * Short messages at the bottom of the screen; errors stay a little longer, and a toast with Undo
 * longest (decision 048). Announced to screen readers.
 */
export function ToastProvider({ children }: { children: ReactNode }) {
  const [toasts, setToasts] = useState<Toast[]>([]);
  const dismiss = useCallback((id: number) => setToasts((t) => t.filter((x) => x.id !== id)), []);
  const push = useCallback(
    (text: string, tone: Tone, action?: ToastAction) => {
      const id = nextId++;
      setToasts((t) => [...t.slice(-3), { id, text, tone, action }]);
      setTimeout(() => dismiss(id), action ? 8000 : tone === 'error' ? 7000 : 3500);
    },
    [dismiss],
  );
  const runAction = useCallback(
    (t: Toast) => {
      dismiss(t.id);
      t.action?.run();
    },
    [dismiss],
  );
  const value = useMemo(
    () => ({
      show: (text: string, tone: Tone = 'info') => push(text, tone),
      error: (text: string) => push(text, 'error'),
      undo: (text: string, run: () => unknown) => push(text, 'info', { label: 'Undo', run }),
    }),
    [push],
  );
  // Ctrl/⌘+Z undoes the newest undoable change while its toast is up.
  const latest = useRef<Toast | undefined>(undefined);
  latest.current = [...toasts].reverse().find((t) => t.action);
  const undoable = !!latest.current;
  useEffect(() => {
    if (!undoable) return;
    const onKey = (e: KeyboardEvent) => {
      if (e.key.toLowerCase() !== 'z' || !(e.ctrlKey || e.metaKey) || e.shiftKey || e.altKey) return;
      if (isTextField(e.target)) return;
      const t = latest.current;
      if (!t) return;
      e.preventDefault();
      runAction(t);
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [undoable, runAction]);
  return (
    <Ctx.Provider value={value}>
      {children}
      <div
        aria-live="polite"
        className="pointer-events-none fixed inset-x-0 bottom-4 z-[60] flex flex-col items-center gap-2 px-4"
      >
        {toasts.map((t) => (
          <div
            key={t.id}
            role={t.tone === 'error' ? 'alert' : 'status'}
            data-testid="toast"
            className={`pointer-events-auto flex max-w-md items-start gap-3 rounded-md border bg-surface px-3 py-2 text-[13px] shadow-pop ${
              t.tone === 'error' ? 'border-danger text-danger' : 'border-line text-fg'
            }`}
          >
            <span className="flex-1">{t.text}</span>
            {t.action && (
              <button
                type="button"
                className="font-medium text-accent hover:underline"
                title={`${t.action.label} (${modShortcut('Z')})`}
                onClick={() => runAction(t)}
              >
                {t.action.label}
              </button>
            )}
            <button
              type="button"
              className="text-faint hover:text-fg"
              aria-label="Dismiss"
              onClick={() => dismiss(t.id)}
            >
              ×
            </button>
          </div>
        ))}
      </div>
    </Ctx.Provider>
  );
}
