import { sql } from 'kysely';
import { migrationState } from '../db/migrate.js';
import type { Ctx } from './context.js';

/** GET /api/health: whether the database answers a statement. */
export async function databaseReachable(ctx: Ctx): Promise<boolean> {
  try {
    await sql`select 1`.execute(ctx.db.kysely);
    return true;
  } catch {
    return false;
  }
}

/**
 * GET /api/ready, as far as the database goes: null when it answers and its schema is this code's,
 * else why not (`Database unreachable`, `Migrations running`, `Migrations pending`).
 */
export async function databaseNotReady(ctx: Ctx): Promise<string | null> {
  let state: Awaited<ReturnType<typeof migrationState>>;
  try {
    state = await migrationState(ctx.db);
  } catch {
    return 'Database unreachable';
  }
  if (state === 'running') return 'Migrations running';
  if (state === 'pending') return 'Migrations pending';
  return null;
}
