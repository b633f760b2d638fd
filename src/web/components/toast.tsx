import { createContext, type ReactNode, useCallback, useContext, useMemo, useState } from 'react';

type Tone = 'info' | 'error' | 'success';
interface Toast {
  id: number;
  text: string;
  tone: Tone;
}
interface ToastApi {
  show: (text: string, tone?: Tone) => void;
  error: (text: string) => void;
}

const Ctx = createContext<ToastApi>({ show: () => {}, error: () => {} });
export const useToast = () => useContext(Ctx);

let nextId = 1;

/** Short messages at the bottom of the screen; errors stay a little longer. Announced to screen readers. */
export function ToastProvider({ children }: { children: ReactNode }) {
  const [toasts, setToasts] = useState<Toast[]>([]);
  const dismiss = useCallback((id: number) => setToasts((t) => t.filter((x) => x.id !== id)), []);
  const show = useCallback(
    (text: string, tone: Tone = 'info') => {
      const id = nextId++;
      setToasts((t) => [...t.slice(-3), { id, text, tone }]);
      setTimeout(() => dismiss(id), tone === 'error' ? 7000 : 3500);
    },
    [dismiss],
  );
  const value = useMemo(() => ({ show, error: (text: string) => show(text, 'error') }), [show]);
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
