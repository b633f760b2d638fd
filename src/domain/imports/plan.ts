/**
 * The mapping step of one record (docs/import.md "The mapping"): a SourceRecord in Docket's terms
 * (column, type, priority, people, labels, sprint, description with its footer, comments with their
 * authors), before it has ids. The same for a dry run and a real one.
 */
import type { Priority, TicketType } from '../../shared/enums.js';
import type { ImportProblem } from '../../shared/imports.js';
import { LIMITS } from '../../shared/limits.js';
import { nowIso } from '../ids.js';
import { cut, type Mapper, type UserRow } from './mapper.js';
import type { SourceRecord } from './source.js';

/** A record turned into Docket's terms, before it has ids. */
export interface Planned {
  rec: SourceRecord;
  column: string;
  type: TicketType;
  priority: Priority;
  assignee: UserRow | null;
  reporter: UserRow | null;
  labels: string[];
  sprint: string | null;
  description: string | null;
  /** `authorName`: the source's name of an author no user matched (shown as the comment's author). */
  comments: { author: UserRow | null; authorName: string | null; createdAt: string; content: string }[];
}

/** The lines the description ends with: where the ticket came from, unmatched people, attachments. */
function footerOf(mapper: Mapper, label: string, rec: SourceRecord, assignable: UserRow | null) {
  const notes: string[] = [];
  const origin = [rec.key, rec.url].filter(Boolean).join(' — ');
  if (origin) notes.push(`Imported from ${label}: ${origin}`);
  if (rec.reporter && !mapper.person(rec.reporter)) notes.push(`Reporter in ${label}: ${rec.reporter.name}`);
  if (rec.assignee && !assignable)
    notes.push(
      `Assignee in ${label}: ${rec.assignee.name}${mapper.person(rec.assignee) ? ' (not a member of this project)' : ''}`,
    );
  // Attachments stay in the source (fetching them would need the source's credentials): a link each.
  for (const a of rec.attachments.slice(0, 50))
    notes.push(
      `Attachment in ${label}: [${a.name.replace(/[[\]\\]/g, '\\$&')}](<${a.url.replace(/[<>\s]/g, encodeURIComponent)}>)`,
    );
  return notes.length ? `\n\n---\n${notes.join('\n')}` : '';
}

/** The description with its footer, cut to the limit (a problem says so). */
function descriptionOf(rec: SourceRecord, footer: string, problem: (p: ImportProblem) => void) {
  let description = rec.description ?? '';
  const room = LIMITS.ticketDescriptionMax - (footer.length + (description ? 0 : -5));
  if (description.length > room) {
    problem({
      row: rec.row,
      ...(rec.line ? { line: rec.line } : {}),
      message: `Description shortened to ${LIMITS.ticketDescriptionMax} characters`,
    });
    description = description.slice(0, Math.max(0, room));
  }
  const full = description ? `${description}${footer}` : footer.replace(/^\n\n/, '');
  return full === '' ? null : full;
}

/**
 * A record in Docket's terms, or null when it is left out (an archived record, with
 * `mapping.archived: skip`). An archived record otherwise goes to the done column, whatever its
 * status: an archived list becomes no column.
 */
export function planRecord(
  mapper: Mapper,
  label: string,
  rec: SourceRecord,
  problem: (p: ImportProblem) => void,
): Planned | null {
  if (rec.archived && mapper.archived(rec)) return null;
  const assignee = mapper.person(rec.assignee);
  const assignable = assignee && mapper.members.has(assignee.id) ? assignee : null;
  const createdAt = rec.createdAt ?? nowIso();
  return {
    rec,
    column: rec.archived ? mapper.doneColumn() : mapper.column(rec.status),
    type: mapper.type(rec.type, rec.parent !== null),
    priority: mapper.priority(rec.priority),
    assignee: assignable,
    reporter: mapper.person(rec.reporter),
    labels: [...new Set(rec.labels.map((l) => mapper.label(l)).filter((l): l is string => l !== null))],
    sprint: mapper.sprint(rec.sprint),
    description: descriptionOf(rec, footerOf(mapper, label, rec, assignable), problem),
    comments: rec.comments
      .filter((c) => c.body.trim() !== '')
      .map((c) => {
        const author = mapper.person(c.author);
        return {
          author,
          authorName: author || !c.author ? null : cut(c.author.name, 200),
          createdAt: c.createdAt ?? createdAt,
          content: cut(c.body, LIMITS.commentMax),
        };
      }),
  };
}
