import { type Ctx, type Emit, type Tx, transact } from './context.js';
import { conflict, isForeignKeyViolation } from './errors.js';

/** Text of the 409 when a referenced record (label, user, sprint, column, ticket) vanished mid-change. */
export const REFERENCE_RACE = 'A referenced record was removed at the same moment; try again';

/**
 * `transact`, where a foreign-key violation (a record checked by this request and removed by a
 * concurrent one before this one wrote) is a 409 instead of a 500.
 */
export async function transactWrite<T>(ctx: Ctx, fn: (tx: Tx, emit: Emit) => Promise<T>): Promise<T> {
  try {
    return await transact(ctx, fn);
  } catch (err) {
    if (isForeignKeyViolation(err)) throw conflict(REFERENCE_RACE);
    throw err;
  }
}
