/** A ticket's due date on a card or a row, marked when it has passed and the ticket is not done. */
import { dayOf, shortDate } from '../lib/dates';

/** Overdue: due before today (the viewer's calendar day) and not in a done column (`doneColumnIds`). */
export function isOverdue(dueDate: string | null | undefined, done: boolean, today = localToday()) {
  return !!dueDate && !done && dayOf(dueDate) < today;
}

/** Today as YYYY-MM-DD in the viewer's time zone (a due date is a calendar day, not an instant). */
export function localToday(now = new Date()) {
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${now.getFullYear()}-${pad(now.getMonth() + 1)}-${pad(now.getDate())}`;
}

export function DueDate({ dueDate, done }: { dueDate: string | null | undefined; done: boolean }) {
  if (!dueDate) return null;
  const overdue = isOverdue(dueDate, done);
  const label = `${overdue ? 'Overdue, was due' : 'Due'} ${shortDate(dueDate)}`;
  return (
    <span
      title={label}
      data-testid="due-date"
      data-overdue={overdue ? 'true' : undefined}
      className={`inline-flex shrink-0 items-center gap-0.5 whitespace-nowrap rounded px-1 text-[11px] ${
        overdue ? 'bg-danger-soft font-medium text-danger' : 'text-muted'
      }`}
    >
      <span aria-hidden="true">{overdue ? '⚠' : '◷'}</span>
      <span aria-hidden="true">{shortDate(dueDate)}</span>
      <span className="sr-only">{label}</span>
    </span>
  );
}
