import { type Ctx, type Emit, type Tx, transact } from './context.js';
import { conflict, isDeadlock, isForeignKeyViolation, isRankCollision } from './errors.js';

/** Text of the 409 when a referenced record (label, user, sprint, column, ticket) vanished mid-change. */
export const REFERENCE_RACE = 'A referenced record was removed at the same moment; try again';

/**
 * `transact`, where a foreign-key violation (a record checked by this request and removed by a
 * concurrent one before this one wrote) is a 409 instead of a 500, and a PostgreSQL deadlock (two
 * rare writers that take the same row locks in opposite orders, e.g. a column deletion and a move
 * out of it) runs the whole transaction again, up to three times: the loser was rolled back whole.
 * So does the rare collision of two concurrent creates' random rank digits (rankForNewTicket).
 */
export async function transactWrite<T>(ctx: Ctx, fn: (tx: Tx, emit: Emit) => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await transact(ctx, fn);
    } catch (err) {
      if (isForeignKeyViolation(err)) throw conflict(REFERENCE_RACE);
      if ((isDeadlock(err) || isRankCollision(err)) && attempt < 3) continue;
      throw err;
    }
  }
}
