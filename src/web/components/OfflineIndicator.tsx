import { useWritesWaiting } from '../api/query-client';

/**
 * Says when the browser is offline and how many changes wait for the connection. Changes made
 * offline apply on the page at once and are kept in the query client's queue (TanStack Query pauses
 * mutations while offline); they are sent, in order, when the connection is back.
 */
export function OfflineIndicator() {
  const { online, waiting } = useWritesWaiting();
  if (online && waiting === 0) return null;
  return (
    <div
      role="status"
      data-testid="offline-indicator"
      className="fixed bottom-3 left-3 z-[60] flex items-center gap-2 rounded-md border border-line bg-surface px-3 py-1.5 text-[12px] text-fg shadow-pop"
    >
      <span aria-hidden="true" className="inline-block h-2 w-2 rounded-full bg-[var(--warning,#d97706)]" />
      {online ? 'Back online: sending' : 'Offline'}
      {waiting > 0
        ? ` · ${waiting} ${waiting === 1 ? 'change' : 'changes'} waiting to be sent`
        : ' · changes you make are sent when the connection is back'}
    </div>
  );
}
