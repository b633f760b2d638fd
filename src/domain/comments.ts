import { ERR } from '../shared/errors.js';
import { projectAccess, roleAtLeast, ticketInProject } from './access.js';
import { actorOf, type Ctx, type Tx, transact } from './context.js';
import { forbidden, notFound } from './errors.js';
import { newId, nowIso } from './ids.js';
import { notifyCommentCreated, notifyCommentEdited } from './notifications/index.js';
import { pageOf } from './paging.js';
import { type CommentRow, presentComment } from './presenters/comments.js';
import { transactWrite } from './races.js';

/** Comments: Markdown stored as written; oldest first; authors edit, authors and admins delete. */
const withAuthor = (tx: Tx) =>
  tx
    .selectFrom('comments as c')
    .leftJoin('users as u', 'u.id', 'c.author_id')
    .selectAll('c')
    .select(['u.username', 'u.name', 'u.avatar']);

async function commentOf(tx: Tx, ticketId: string, commentId: string): Promise<CommentRow> {
  const row = await withAuthor(tx)
    .where('c.ticket_id', '=', ticketId)
    .where('c.id', '=', commentId.toLowerCase())
    .executeTakeFirst();
  if (!row) throw notFound(ERR.commentNotFound);
  return row;
}

export async function listComments(
  ctx: Ctx,
  projectRef: string,
  ticketRef: string,
  page: { limit?: number; offset?: number },
) {
  const db = ctx.db.kysely;
  const { project } = await projectAccess(ctx, db, projectRef);
  const ticket = await ticketInProject(db, project, ticketRef);
  const total = await db
    .selectFrom('comments')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('ticket_id', '=', ticket.id)
    .executeTakeFirstOrThrow();
  const { limit, offset } = pageOf(page);
  const rows = await withAuthor(db)
    .where('c.ticket_id', '=', ticket.id)
    .orderBy('c.created_at')
    .orderBy('c.id')
    .limit(limit)
    .offset(offset)
    .execute();
  return { items: rows.map(presentComment), total: Number(total.n) };
}

export async function createComment(ctx: Ctx, projectRef: string, ticketRef: string, content: string) {
  const actor = actorOf(ctx);
  return transactWrite(ctx, async (tx, emit) => {
    const { project } = await projectAccess(ctx, tx, projectRef);
    const ticket = await ticketInProject(tx, project, ticketRef);
    const now = nowIso();
    const id = newId();
    await tx
      .insertInto('comments')
      .values({
        id,
        ticket_id: ticket.id,
        author_id: actor.userId,
        content,
        created_at: now,
        updated_at: now,
      })
      .execute();
    await notifyCommentCreated(ctx, tx, emit, project, ticket, content);
    const out = presentComment(await commentOf(tx, ticket.id, id));
    emit({ scope: 'project', type: 'comment.created', projectId: project.id, data: out });
    return out;
  });
}

export async function updateComment(
  ctx: Ctx,
  projectRef: string,
  ticketRef: string,
  commentId: string,
  content: string,
) {
  const actor = actorOf(ctx);
  return transact(ctx, async (tx, emit) => {
    const { project } = await projectAccess(ctx, tx, projectRef);
    const ticket = await ticketInProject(tx, project, ticketRef);
    const row = await commentOf(tx, ticket.id, commentId);
    if (row.author_id !== actor.userId) throw forbidden();
    const now = nowIso();
    await tx.updateTable('comments').set({ content, updated_at: now }).where('id', '=', row.id).execute();
    await notifyCommentEdited(ctx, tx, emit, project, ticket.id, row.content, content);
    const out = presentComment({ ...row, content, updated_at: now });
    emit({ scope: 'project', type: 'comment.updated', projectId: project.id, data: out });
    return out;
  });
}

export async function deleteComment(ctx: Ctx, projectRef: string, ticketRef: string, commentId: string) {
  const actor = actorOf(ctx);
  return transact(ctx, async (tx, emit) => {
    const { project, role } = await projectAccess(ctx, tx, projectRef);
    const ticket = await ticketInProject(tx, project, ticketRef);
    const row = await commentOf(tx, ticket.id, commentId);
    if (row.author_id !== actor.userId && !roleAtLeast(role, 'admin')) throw forbidden();
    await tx.deleteFrom('comments').where('id', '=', row.id).execute();
    emit({
      scope: 'project',
      type: 'comment.deleted',
      projectId: project.id,
      data: { id: row.id, ticketId: ticket.id },
    });
    return { success: true as const };
  });
}
