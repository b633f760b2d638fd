import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../db/connect.js';
import type { Database } from '../db/types.js';
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
): Promise<StoredEvent[]> {
  if (events.length === 0) return [];
  if (dialect === 'postgres') {
    await sql`select pg_advisory_xact_lock(${EVENT_ORDER_LOCK}), pg_notify(${sql.raw(PG_CHANNEL_SQL)}, ${origin ?? ''})`.execute(
      tx,
    );
  }
  const timestamp = nowIso();
  const out: StoredEvent[] = [];
  // One statement per 500 events. Ids are assigned in the order of the rows (under the ordering
  // lock on PostgreSQL; SQLite has one writer), so the sorted returned ids match the events in order.
  for (let i = 0; i < events.length; i += 500) {
    const chunk = events.slice(i, i + 500);
    const rows = await tx
      .insertInto('events')
      .values(
        chunk.map((e) => ({
          scope: e.scope,
          project_id: e.projectId ?? null,
          user_id: e.userId ?? null,
          type: e.type,
          data: JSON.stringify(e.data ?? {}),
          tab_id: tabId,
          audience: e.audience ? JSON.stringify(e.audience) : null,
          created_at: timestamp,
        })),
      )
      .returning('id')
      .execute();
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
