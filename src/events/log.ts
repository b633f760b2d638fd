/** Reading the event log: new events by id, the replay boundary, pruning. Events are written by src/domain/event-log.ts. */
import type { Kysely } from 'kysely';
import type { Database } from '../db/types.js';
import type { EventScope, EventType } from '../shared/events.js';
import type { StoredEvent } from './types.js';

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
