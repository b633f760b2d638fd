import { sql } from 'kysely';
import { ERR } from '../shared/errors.js';
import type { Tx } from './context.js';
import { conflict, isUniqueViolation } from './errors.js';

/**
 * Sprint names: the generated `Sprint N`, and uniqueness in a project ignoring case (issue 20; the
 * index `sprints_project_name_uq` guarantees it, these give the clear 409 first).
 */

const NUMBERED = /^sprint\s+(\d{1,9})$/i;
const sprintNumber = (name: string): number | null => {
  const m = NUMBERED.exec(name.trim());
  return m ? Number(m[1]) : null;
};

/**
 * The next generated name, `Sprint N` with N one more than the highest number used in the project:
 * the project's `sprint_counter` remembers numbers used before (also by deleted or renamed sprints),
 * and the names present now cover numbers typed by hand. Incrementing the counter first locks the
 * project row, so two sprints created at the same moment get different numbers.
 */
export async function nextSprintName(tx: Tx, projectId: string): Promise<string> {
  const bumped = await tx
    .updateTable('projects')
    .set((eb) => ({ sprint_counter: eb('sprint_counter', '+', 1) }))
    .where('id', '=', projectId)
    .returning('sprint_counter')
    .executeTakeFirstOrThrow();
  let n = Number(bumped.sprint_counter);
  const names = await tx.selectFrom('sprints').select('name').where('project_id', '=', projectId).execute();
  const highest = Math.max(0, ...names.map((r) => sprintNumber(r.name) ?? 0));
  if (highest >= n) {
    n = highest + 1;
    await tx.updateTable('projects').set({ sprint_counter: n }).where('id', '=', projectId).execute();
  }
  return `Sprint ${n}`;
}

/** A hand-typed `Sprint N` counts as used, so a later generated name never repeats it. */
export async function noteSprintName(tx: Tx, projectId: string, name: string): Promise<void> {
  const n = sprintNumber(name);
  if (n === null) return;
  await tx
    .updateTable('projects')
    .set({ sprint_counter: n })
    .where('id', '=', projectId)
    .where('sprint_counter', '<', n)
    .execute();
}

/** Sprint names are unique in a project ignoring case (the index `sprints_project_name_uq` too). */
export async function assertSprintNameFree(tx: Tx, projectId: string, name: string, exceptId?: string) {
  let q = tx
    .selectFrom('sprints')
    .select('id')
    .where('project_id', '=', projectId)
    .where(sql`lower(name)`, '=', name.toLowerCase());
  if (exceptId) q = q.where('id', '<>', exceptId);
  if (await q.executeTakeFirst()) throw conflict(ERR.sprintExists);
}

export const sprintNameConflict = (err: unknown): never => {
  if (isUniqueViolation(err)) throw conflict(ERR.sprintExists);
  throw err;
};
