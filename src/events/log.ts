import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../db/connect.js';
import type { Database } from '../db/types.js';
import { nowIso } from '../domain/ids.js';
import type { EventScope, EventType } from '../shared/events.js';
import type { NewEvent, StoredEvent } from './types.js';

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
): Promise<StoredEvent[]> {
  if (events.length === 0) return [];
  if (dialect === 'postgres') {
    await sql`select pg_advisory_xact_lock(${EVENT_ORDER_LOCK}), pg_notify(${sql.raw(PG_CHANNEL_SQL)}, '')`.execute(
      tx,
    );
  }
  const timestamp = nowIso();
  const out: StoredEvent[] = [];
  for (const e of events) {
    const row = await tx
      .insertInto('events')
      .values({
        scope: e.scope,
        project_id: e.projectId ?? null,
        user_id: e.userId ?? null,
        type: e.type,
        data: JSON.stringify(e.data ?? {}),
        tab_id: tabId,
        audience: e.audience ? JSON.stringify(e.audience) : null,
        created_at: timestamp,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    out.push({
      id: Number(row.id),
      scope: e.scope,
      type: e.type,
      data: e.data ?? {},
      projectId: e.projectId ?? null,
      userId: e.userId ?? null,
      audience: e.audience ?? null,
      tabId,
      timestamp,
    });
  }
  return out;
}

interface EventRow {
  id: number | string;
  scope: string;
  project_id: string | null;
  user_id: string | null;
  type: string;
  data: string;
  tab_id: string | null;
  audience: string | null;
  created_at: string;
}

function parseJson(text: string | null): unknown {
  if (text === null) return null;
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

export function rowToEvent(r: EventRow): StoredEvent {
  const audience = parseJson(r.audience);
  return {
    id: Number(r.id),
    scope: r.scope as EventScope,
    type: r.type as EventType,
    data: parseJson(r.data) ?? {},
    projectId: r.project_id,
    userId: r.user_id,
    audience: Array.isArray(audience) ? audience.map(String) : null,
    tabId: r.tab_id,
    timestamp: r.created_at,
  };
}

/** Events with an id above `afterId`, oldest first, at most `limit`, optionally only these scopes. */
export async function readEventsAfter(
  db: Kysely<Database>,
  afterId: number,
  limit: number,
  scopes?: EventScope[],
  projectId?: string,
): Promise<StoredEvent[]> {
  let q = db.selectFrom('events').selectAll().where('id', '>', afterId);
  if (scopes) q = q.where('scope', 'in', scopes);
  if (projectId !== undefined) {
    q = q.where((eb) => eb.or([eb('scope', '=', 'all'), eb('project_id', '=', projectId)]));
  }
  const rows = await q.orderBy('id').limit(limit).execute();
  return rows.map(rowToEvent);
}

/** The highest event id in the log (0 when empty). */
export async function headEventId(db: Kysely<Database>): Promise<number> {
  const row = await db
    .selectFrom('events')
    .select((eb) => eb.fn.max('id').as('id'))
    .executeTakeFirst();
  return row?.id == null ? 0 : Number(row.id);
}

/** The oldest event after `afterId` and whether the log still holds any event at or before it. */
export async function replayBoundary(db: Kysely<Database>, afterId: number) {
  const next = await db
    .selectFrom('events')
    .select(['id', 'created_at'])
    .where('id', '>', afterId)
    .orderBy('id')
    .limit(1)
    .executeTakeFirst();
  const before = await db
    .selectFrom('events')
    .select('id')
    .where('id', '<=', afterId)
    .limit(1)
    .executeTakeFirst();
  const count = await db
    .selectFrom('events')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('id', '>', afterId)
    .executeTakeFirstOrThrow();
  return {
    next: next ? { id: Number(next.id), createdAt: next.created_at } : null,
    holdsEarlier: !!before,
    count: Number(count.n),
  };
}

/** Deletes events created before `cutoff` (an ISO timestamp); returns how many. */
export async function pruneEvents(db: Kysely<Database>, cutoff: string): Promise<number> {
  const res = await db.deleteFrom('events').where('created_at', '<', cutoff).executeTakeFirst();
  return Number(res.numDeletedRows ?? 0);
}
