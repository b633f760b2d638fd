import type { TrashedTicketsTable, UsersTable } from '../../db/types.js';
import type { TrashedTicketOut } from '../../shared/trash.js';
import { presentUserSummary } from './users.js';

/** A trash entry with the public fields of who deleted it (null when that user is gone). */
export type TrashedRow = Pick<
  TrashedTicketsTable,
  'id' | 'ticket_id' | 'number' | 'title' | 'type' | 'deleted_at'
> & {
  user_id: string | null;
  username: UsersTable['username'] | null;
  name: UsersTable['name'];
  avatar: UsersTable['avatar'];
};

/** A trash entry of the project `projectKey`; `purgeAt` is when the periodic job removes it for good. */
export const presentTrashed = (r: TrashedRow, projectKey: string, purgeAt: string): TrashedTicketOut => ({
  id: r.id,
  ticketId: r.ticket_id,
  key: `${projectKey}-${r.number}`,
  title: r.title,
  type: r.type,
  deletedBy:
    r.user_id && r.username
      ? presentUserSummary({ id: r.user_id, username: r.username, name: r.name, avatar: r.avatar })
      : null,
  deletedAt: r.deleted_at,
  purgeAt,
});
