import { type ReactNode, useEffect, useId, useRef } from 'react';
import { createRoot } from 'react-dom/client';

/**
 * A message that outlives the page that shows it. Wiping or importing the database ends every
 * session, this one too: the app then clears its state and goes to the sign-in page, which would
 * unmount an ordinary dialog holding, say, the new administrator's temporary password. This one
 * lives in its own root on <body> until the person dismisses it.
 */
export function showLastingNotice(title: string, body: (close: () => void) => ReactNode) {
  const host = document.createElement('div');
  host.dataset.testid = 'lasting-notice';
  document.body.appendChild(host);
  const root = createRoot(host);
  const close = () => {
    root.unmount();
    host.remove();
  };
  root.render(
    <LastingNotice title={title} onClose={close}>
      {body(close)}
    </LastingNotice>,
  );
  return close;
}

function LastingNotice({
  title,
  onClose,
  children,
}: {
  title: string;
  onClose: () => void;
  children: ReactNode;
}) {
  const ref = useRef<HTMLDivElement>(null);
  const titleId = useId();
  useEffect(() => {
    (
      ref.current?.querySelector<HTMLElement>('[data-autofocus]') ??
      ref.current?.querySelector<HTMLElement>('button')
    )?.focus();
    const onKey = (e: KeyboardEvent) => {
      if (e.key === 'Escape') onClose();
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, [onClose]);
  return (
    <div className="fixed inset-0 z-[70] flex items-start justify-center overflow-y-auto bg-[var(--overlay)] p-4 pt-[12vh]">
      <div
        ref={ref}
        role="alertdialog"
        aria-modal="true"
        aria-labelledby={titleId}
        className="relative w-full max-w-md rounded-lg border border-line bg-surface text-[13px] text-fg shadow-pop"
      >
        <div className="border-b border-line px-4 py-3">
          <h2 id={titleId} className="text-[14px] font-semibold">
            {title}
          </h2>
        </div>
        <div className="flex flex-col gap-3 p-4">{children}</div>
      </div>
    </div>
  );
}
