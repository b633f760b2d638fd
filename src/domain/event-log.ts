import { type Kysely, sql } from 'kysely';
import { type Dialect, WITH_COMMIT_MARK } from '../db/connect.js';
import type { Database, EventsTable } from '../db/types.js';
import type { NewEvent, StoredEvent } from '../events/types.js';
import { nowIso } from './ids.js';

/** Writing the event log, in the transaction of the change that emits (src/events reads and delivers it). */

const EVENT_ORDER_LOCK = 727_070_002;

/**
 * The LISTEN/NOTIFY channel of this database schema, computed in SQL so the notifying transaction and
 * the listening connection agree whatever way the schema was chosen (test schema, `search_path` in the
 * URL, or the default `public`). Long schema names are hashed to stay within PostgreSQL's 63 bytes.
 */
export const PG_CHANNEL_SQL =
  "(case when length(current_schema()) <= 48 then 'docket_events_' || current_schema() " +
  "else 'docket_events_' || left(md5(current_schema()), 32) end)";

/**
 * Appends events to the log inside the caller's transaction. On PostgreSQL a transaction-level
 * advisory lock makes ids commit in the order they were given, so a reader that follows the log
 * by id never skips an event that commits late; the same statement queues a NOTIFY that PostgreSQL
 * delivers to the other instances only if the transaction commits.
 */
export async function appendEvents(
  tx: Kysely<Database>,
  dialect: Dialect,
  events: NewEvent[],
  tabId: string | null,
  origin: string | null,
  /**
   * PostgreSQL: send the rows with the transaction's COMMIT, in its message (WITH_COMMIT_MARK in
   * src/db/connect.ts), so the ordering lock is held for no round trip. The answer then comes only
   * once the caller has committed: it must not wait for it inside the transaction.
   */
  opts: { withCommit?: boolean } = {},
): Promise<StoredEvent[]> {
  if (events.length === 0) return [];
  const timestamp = nowIso();
  const out: StoredEvent[] = [];
  // One statement per 500 events. Ids are assigned in the order of the rows (under the ordering
  // lock on PostgreSQL; SQLite has one writer), so the sorted returned ids match the events in order.
  for (let i = 0; i < events.length; i += 500) {
    const chunk = events.slice(i, i + 500);
    const values = chunk.map((e) => ({
      scope: e.scope,
      project_id: e.projectId ?? null,
      user_id: e.userId ?? null,
      type: e.type,
      data: JSON.stringify(e.data ?? {}),
      tab_id: tabId,
      audience: e.audience ? JSON.stringify(e.audience) : null,
      created_at: timestamp,
    }));
    const rows =
      dialect === 'postgres'
        ? (
            await appendStatement(values, origin, opts.withCommit === true && events.length <= 500).execute(
              tx,
            )
          ).rows
        : await tx.insertInto('events').values(values).returning('id').execute();
    const ids = rows.map((r) => Number(r.id)).sort((x, y) => x - y);
    chunk.forEach((e, k) => {
      out.push({
        id: ids[k],
        scope: e.scope,
        type: e.type,
        data: e.data ?? {},
        projectId: e.projectId ?? null,
        userId: e.userId ?? null,
        audience: e.audience ?? null,
        tabId,
        timestamp,
      });
    });
  }
  return out;
}

type EventRow = Omit<EventsTable, 'id'>;

/**
 * PostgreSQL's append: the lock, the NOTIFY and the rows in one statement. Every row joins the
 * one-row lock subquery, so the lock is held before the first id is drawn, and until the COMMIT.
 * The statement starts with its INSERT, as the database seam classifies writes by it; marked, it
 * goes with the COMMIT (one statement only, hence at most 500 events).
 */
function appendStatement(rows: EventRow[], origin: string | null, withCommit: boolean) {
  return sql<{
    id: string;
  }>`insert into events (scope, project_id, user_id, type, data, tab_id, audience, created_at)
    select v.* from (select pg_advisory_xact_lock(${EVENT_ORDER_LOCK}), pg_notify(${sql.raw(PG_CHANNEL_SQL)}, ${origin ?? ''})) as l,
    (values ${sql.join(
      rows.map(
        (r) =>
          sql`(${r.scope}, ${r.project_id}, ${r.user_id}, ${r.type}, ${r.data}, ${r.tab_id}, ${r.audience}, ${r.created_at})`,
      ),
    )}) as v(scope, project_id, user_id, type, data, tab_id, audience, created_at)
    returning id ${sql.raw(withCommit ? WITH_COMMIT_MARK : '')}`;
}
