import type { CommentsTable, UsersTable } from '../../db/types.js';
import type { CommentOut } from '../../shared/tickets.js';
import { presentAuthor } from './users.js';

/** A comment row with its author's public fields (null when the author was deleted). */
export type CommentRow = CommentsTable & {
  username: UsersTable['username'] | null;
  name: UsersTable['name'];
  avatar: UsersTable['avatar'];
};

/** Markdown as written; a deleted author reads as `Deleted user`. */
export const presentComment = (r: CommentRow): CommentOut => ({
  id: r.id,
  ticketId: r.ticket_id,
  content: r.content,
  author: presentAuthor(r.author_id, r.username, r.name, r.avatar),
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});
