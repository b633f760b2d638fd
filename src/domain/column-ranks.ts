import type { Db } from '../db/connect.js';
import type { ProjectsTable } from '../db/types.js';
import type { Ctx } from './context.js';
import { readTicketJson, withOrder } from './presenters/ticket-json.js';
import { readCache, stringBytes } from './read-cache.js';

/**
 * SQLite: a ticket's `order` in its column (the tickets ranked before it) from the column's ranks
 * kept in memory, sorted, in the read cache (decision 062). SQLite counts an index range entry by
 * entry: the middle of a column of 1,000 cost more than the rest of an uncached full read, of
 * 10,000 ten times that. PostgreSQL counts through the column's blocks instead (migration 090,
 * orderInColumnOf).
 *
 * The first HOT_AFTER uncached full reads of a project since it last changed count in their own
 * statement, as before; from the next one on, a column's ranks are read (one statement, its index
 * alone) at its first full read and kept with the project's scope, so any change to the project
 * drops them as it drops the full reads. A project where writes land between most reads reads no
 * column for nothing; one that is read more than written pays one read per column per change.
 */
const HOT_AFTER = 4;

/** Uncached full reads per project since it last changed. */
const missed = new WeakMap<Db, Map<string, { at: number; n: number }>>();

/** Whether a project's full reads are frequent enough since its last change to read its columns' ranks. */
function hot(ctx: Ctx, projectId: string): boolean {
  const tracker = ctx.db.changes?.tracker;
  if (!tracker) return false;
  let counts = missed.get(ctx.db);
  if (!counts) {
    counts = new Map();
    missed.set(ctx.db, counts);
  }
  const seen = counts.get(projectId);
  if (!seen || tracker.changedSince([`project:${projectId}`], seen.at)) {
    if (counts.size >= 10_000) counts.clear();
    counts.set(projectId, { at: tracker.seq, n: 1 });
    return false;
  }
  seen.n++;
  return seen.n > HOT_AFTER;
}

/** The number of ranks in `ranks` (sorted) below `rank`: binary search, compared as SQLite does (bytes). */
export function ranksBelow(ranks: readonly string[], rank: string): number {
  let lo = 0;
  let hi = ranks.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (ranks[mid] < rank) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

async function orderOf(ctx: Ctx, projectId: string, columnId: string, rank: string): Promise<number> {
  const ranks = await readCache(ctx.db).get(
    ctx,
    `ranks:${columnId}`,
    async () =>
      (
        await ctx.db.kysely
          .selectFrom('tickets')
          .select('rank')
          .where('column_id', '=', columnId)
          .orderBy('rank')
          .execute()
      ).map((r) => r.rank),
    () => [`project:${projectId}`],
    // Each rank a string and a slot of the array.
    (rs) => 32 + rs.reduce((n, r) => n + 8 + stringBytes(r), 0),
  );
  return ranksBelow(ranks, rank);
}

/**
 * The full read of one ticket as its answer's JSON text (presenters/ticket-json.ts), with the keys
 * of the other projects its links show, or null. On SQLite, in a project read often, its order
 * comes from its column's kept ranks (see above): the ticket and the ranks are then read by
 * separate statements, and should the project change in between (another request's write,
 * committed while this one waited), the read is made again, and after three such races by the one
 * statement that counts.
 */
export async function readFullJson(
  ctx: Ctx,
  project: ProjectsTable,
  ref: { id: string } | { number: number },
): Promise<{ json: string; foreign: string[] } | null> {
  const db = ctx.db.kysely;
  const tracker = ctx.db.changes?.tracker;
  const counted = async () => {
    const r = await readTicketJson(db, project.id, ref);
    return r && { json: withOrder(r.json, r.ord), foreign: r.foreign };
  };
  if (ctx.db.dialect !== 'sqlite' || !tracker || readCache(ctx.db).maxSize === 0 || !hot(ctx, project.id))
    return counted();
  const scopes = [`project:${project.id}`];
  for (let attempt = 0; attempt < 3; attempt++) {
    const at = tracker.seq;
    const r = await readTicketJson(db, project.id, ref, true);
    if (!r) return null;
    const order = await orderOf(ctx, project.id, r.columnId, r.rank);
    if (!tracker.changedSince(scopes, at)) return { json: withOrder(r.json, order), foreign: r.foreign };
  }
  return counted();
}
