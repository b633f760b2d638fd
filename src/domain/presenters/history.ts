import type { TicketHistoryTable, UsersTable } from '../../db/types.js';
import type { HistoryEntryOut } from '../../shared/tickets.js';
import { DELETED_USER } from './users.js';

/** A change of a ticket's field with who made it (null columns when that user is gone). */
export type HistoryRow = Pick<
  TicketHistoryTable,
  'id' | 'field' | 'old_value' | 'new_value' | 'changed_at'
> & {
  u_id: string | null;
  username: UsersTable['username'] | null;
  name: UsersTable['name'];
};

/** One entry of a ticket's history; who changed it by name (the username when they have none). */
export const presentHistoryEntry = (r: HistoryRow): HistoryEntryOut => ({
  id: r.id,
  field: r.field,
  oldValue: r.old_value,
  newValue: r.new_value,
  changedBy:
    r.u_id && r.username
      ? { id: r.u_id, name: r.name ?? r.username }
      : { id: DELETED_USER.id, name: DELETED_USER.name },
  changedAt: r.changed_at,
});
