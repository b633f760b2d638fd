import { sql } from 'kysely';
import type { ProjectsTable, SprintsTable, TicketsTable } from '../../db/types.js';
import { mentionedUsernames } from '../../shared/mentions.js';
import type { TicketFullOut } from '../../shared/tickets.js';
import type { Ctx, Emit, Tx } from '../context.js';
import { excerptOf, type Intent, notify } from './notify.js';

/**
 * The changes that notify (issue 18), one function per place in the domain that makes them. Each
 * runs inside the change's transaction; src/domain/notifications/notify.ts applies the rules
 * (not the actor, visible project, folding, e-mail).
 */

async function usersNamed(tx: Tx, usernames: string[]): Promise<{ id: string; username: string }[]> {
  if (usernames.length === 0) return [];
  return tx
    .selectFrom('users')
    .select(['id', 'username'])
    .where(sql`lower(username)`, 'in', usernames)
    .execute();
}

/** The excerpt of a mention: the text from a little before the first `@username`. */
function aroundMention(text: string, username: string): string {
  const at = text.toLowerCase().indexOf(`@${username.toLowerCase()}`);
  if (at < 60) return excerptOf(text);
  const from = text.lastIndexOf(' ', at - 40);
  return excerptOf(`…${text.slice(from < 0 ? at - 40 : from + 1)}`);
}

/** People mentioned in `text` but not in `before` (an edit mentions only the newly added names). */
async function mentionIntents(tx: Tx, text: string | null, before: string | null, ticketId: string) {
  const old = new Set(mentionedUsernames(before));
  const names = mentionedUsernames(text).filter((n) => !old.has(n));
  return (await usersNamed(tx, names)).map<Intent>((u) => ({
    userId: u.id,
    type: 'mentioned',
    excerpt: aroundMention(text ?? '', u.username),
    ticketId,
  }));
}

export async function notifyTicketCreated(
  ctx: Ctx,
  tx: Tx,
  emit: Emit,
  project: ProjectsTable,
  row: TicketsTable,
) {
  const intents = await mentionIntents(tx, row.description, null, row.id);
  if (row.assignee_id)
    intents.push({
      userId: row.assignee_id,
      type: 'assigned',
      excerpt: excerptOf(row.title),
      ticketId: row.id,
    });
  await notify(ctx, tx, emit, project.id, intents);
}

/**
 * After an update of tickets (`befores`: the rows as they were): the new assignee, the newly
 * mentioned, and the watchers when a ticket's column, priority or due date changed. A constant
 * number of queries for any number of tickets (bulk updates), but for mentions, which only a
 * single ticket's description edit brings.
 */
/** What the change notifications read of a ticket after a change. */
export type TicketAfter = Pick<
  TicketFullOut,
  'id' | 'columnId' | 'description' | 'assigneeId' | 'title' | 'priority' | 'dueDate' | 'watchers'
>;

export async function notifyTicketsChanged(
  ctx: Ctx,
  tx: Tx,
  emit: Emit,
  project: ProjectsTable,
  befores: TicketsTable[],
  /** The tickets after the change, as the write presented them (its full reads). */
  views: readonly TicketAfter[],
) {
  if (befores.length === 0) return;
  const afters = new Map(
    views.map((v) => [
      v.id,
      {
        id: v.id,
        column_id: v.columnId,
        description: v.description,
        assignee_id: v.assigneeId,
        title: v.title,
        priority: v.priority,
        due_date: v.dueDate,
      },
    ]),
  );
  const moved = befores.filter((b) => {
    const a = afters.get(b.id);
    return a && a.column_id !== b.column_id;
  });
  const columnIds = [...new Set(moved.flatMap((b) => [b.column_id, afters.get(b.id)?.column_id ?? '']))];
  const cols = columnIds.length
    ? await tx.selectFrom('columns').select(['id', 'name']).where('id', 'in', columnIds).execute()
    : [];
  const name = (id: string) => cols.find((c) => c.id === id)?.name ?? '?';
  const intents: Intent[] = [];
  const parts = new Map<string, string[]>();
  for (const before of befores) {
    const after = afters.get(before.id);
    if (!after) continue;
    if (after.description !== before.description)
      intents.push(...(await mentionIntents(tx, after.description, before.description, after.id)));
    if (after.assignee_id && after.assignee_id !== before.assignee_id)
      intents.push({
        userId: after.assignee_id,
        type: 'assigned',
        excerpt: excerptOf(after.title),
        ticketId: after.id,
      });
    const p: string[] = [];
    if (after.column_id !== before.column_id)
      p.push(`Status: ${name(before.column_id)} → ${name(after.column_id)}`);
    if (after.priority !== before.priority) p.push(`Priority: ${before.priority} → ${after.priority}`);
    if (after.due_date !== before.due_date)
      p.push(`Due date: ${before.due_date ?? 'none'} → ${after.due_date ?? 'none'}`);
    if (p.length > 0) parts.set(after.id, p);
  }
  // The watchers as the write's own full read shows them (no second look at the table).
  for (const v of views) {
    const p = parts.get(v.id);
    if (!p) continue;
    for (const w of v.watchers)
      intents.push({ userId: w.id, type: 'updated', excerpt: excerptOf(p.join('; ')), ticketId: v.id });
  }
  await notify(ctx, tx, emit, project.id, intents);
}

/** A new comment: the mentioned, and the ticket's reporter, assignee and watchers. */
export async function notifyCommentCreated(
  ctx: Ctx,
  tx: Tx,
  emit: Emit,
  project: ProjectsTable,
  ticket: TicketsTable,
  content: string,
) {
  const intents = await mentionIntents(tx, content, null, ticket.id);
  const excerpt = excerptOf(content);
  const watchers = await tx
    .selectFrom('ticket_watchers')
    .select('user_id')
    .where('ticket_id', '=', ticket.id)
    .execute();
  const people = [ticket.reporter_id, ticket.assignee_id, ...watchers.map((w) => w.user_id)];
  for (const userId of people)
    if (userId) intents.push({ userId, type: 'commented', excerpt, ticketId: ticket.id });
  await notify(ctx, tx, emit, project.id, intents);
}

/** An edited comment: only the people it newly mentions. */
export async function notifyCommentEdited(
  ctx: Ctx,
  tx: Tx,
  emit: Emit,
  project: ProjectsTable,
  ticketId: string,
  before: string,
  after: string,
) {
  await notify(ctx, tx, emit, project.id, await mentionIntents(tx, after, before, ticketId));
}

export async function notifyMemberAdded(
  ctx: Ctx,
  tx: Tx,
  emit: Emit,
  project: ProjectsTable,
  userId: string,
) {
  await notify(ctx, tx, emit, project.id, [
    { userId, type: 'added_to_project', excerpt: excerptOf(project.name) },
  ]);
}

/**
 * A webhook failed for a day and was turned off: its maker, or the project's owner when the maker
 * is gone (src/webhooks/sender.ts).
 */
export async function notifyWebhookDisabled(
  ctx: Ctx,
  tx: Tx,
  emit: Emit,
  projectId: string,
  createdBy: string | null,
  excerpt: string,
) {
  const owners = createdBy
    ? [{ user_id: createdBy }]
    : await tx
        .selectFrom('project_members')
        .select('user_id')
        .where('project_id', '=', projectId)
        .where('role', '=', 'owner')
        .execute();
  await notify(
    ctx,
    tx,
    emit,
    projectId,
    owners.map((o) => ({
      userId: o.user_id,
      type: 'webhook_disabled' as const,
      excerpt: excerptOf(excerpt),
    })),
  );
}

/** A sprint started or completed: the assignees of its tickets (read before any ticket leaves it). */
export async function notifySprint(
  ctx: Ctx,
  tx: Tx,
  emit: Emit,
  project: ProjectsTable,
  sprint: SprintsTable,
  type: 'sprint_started' | 'sprint_completed',
) {
  const rows = await tx
    .selectFrom('tickets')
    .select('assignee_id')
    .distinct()
    .where('sprint_id', '=', sprint.id)
    .where('assignee_id', 'is not', null)
    .execute();
  const excerpt = excerptOf(sprint.goal ? `${sprint.name}: ${sprint.goal}` : sprint.name);
  const intents = rows.flatMap((r) => (r.assignee_id ? [{ userId: r.assignee_id, type, excerpt }] : []));
  await notify(ctx, tx, emit, project.id, intents);
}
