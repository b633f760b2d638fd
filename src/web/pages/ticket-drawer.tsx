import { type ComponentProps, lazy, Suspense } from 'react';
import { Skeleton } from '../components/ui';

/**
 * The ticket drawer, loaded when a ticket is first opened: its editors, activity and Markdown are
 * about a fifth of the app's JavaScript, and a board or backlog shows without them (issue 23).
 */
const LazyDrawer = lazy(() => import('./ticket').then((m) => ({ default: m.TicketDrawer })));

export function TicketDrawer(props: ComponentProps<typeof LazyDrawer>) {
  return (
    <Suspense
      fallback={
        <div className="fixed inset-y-0 right-0 z-30 flex w-full max-w-[860px] flex-col gap-3 border-l border-line bg-bg p-5 shadow-pop">
          <Skeleton className="h-7 w-2/3" />
          <Skeleton className="h-24" />
        </div>
      }
    >
      <LazyDrawer {...props} />
    </Suspense>
  );
}
