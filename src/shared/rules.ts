/**
 * Rules every front door shares (the API, the MCP tools, the web app), as plain functions: no zod
 * here, so the web app's first load does not carry the schema library for them.
 */

/**
 * A ticket key: the project key (2-10 letters or digits, any case) and the ticket number (`WEB-12`).
 * The one rule of what a key looks like, for the API, the MCP tools and the web app.
 */
export function parseTicketKey(ref: string): { projectKey: string; number: number; key: string } | null {
  const m = /^([A-Za-z0-9]{2,10})-(\d{1,9})$/.exec(ref.trim());
  if (!m) return null;
  const projectKey = m[1].toUpperCase();
  const number = Number(m[2]);
  return { projectKey, number, key: `${projectKey}-${number}` };
}

/**
 * A ticket key written in running text (Markdown), linked by the web app: upper-case project key,
 * not inside a word, a path or another key. Group 1 is what precedes it, 2 the key, 3 the number.
 */
export const TICKET_KEY_IN_TEXT = /(^|[^A-Za-z0-9_./#-])([A-Z][A-Z0-9]{1,9})-(\d{1,9})(?![A-Za-z0-9_-])/g;

/**
 * The columns whose tickets count as done: the chosen ones that still exist (sprint settings'
 * `doneColumnIds`), or the last column when none is chosen. `columnIds` are in board order. The
 * one rule for sprint completion, the reports, the backlog and subtask progress.
 */
export function doneColumnIds(columnIds: readonly string[], chosen: readonly string[]): string[] {
  const existing = chosen.filter((id) => columnIds.includes(id));
  if (existing.length > 0) return existing;
  return columnIds.length > 0 ? [columnIds[columnIds.length - 1]] : [];
}

/**
 * A real calendar day written `YYYY-MM-DD`: 2026-02-30 and 2026-13-01 are not, though
 * `Date.parse` rolls the first over into March. The one date rule of the API, the tools and the web app.
 */
export function isCalendarDate(value: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  if (!m) return false;
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (year < 1 || month < 1 || month > 12 || day < 1) return false;
  const days = new Date(Date.UTC(year, month, 0)).getUTCDate();
  return day <= days;
}

/**
 * Who may delete a ticket: its reporter, a project admin or owner (system administrators act as
 * owners), or any member when the project allows it (docs/decisions/046-board-drive-and-deletion.md).
 * The one rule for the API (each ticket of a bulk deletion too) and the web app's Delete buttons.
 */
export function mayDeleteTicket(who: {
  role: 'owner' | 'admin' | 'member';
  membersMayDeleteTickets: boolean;
  isReporter: boolean;
}): boolean {
  return who.role === 'owner' || who.role === 'admin' || who.membersMayDeleteTickets || who.isReporter;
}
