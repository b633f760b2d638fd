import { ERR } from '../shared/errors.js';

/** An error with a status and a stable text; the error handler sends `{error, ...extra}`. */
export class AppError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly extra: Record<string, unknown> = {},
  ) {
    super(message);
  }
}

export const badRequest = (message: string, extra?: Record<string, unknown>) =>
  new AppError(400, message, extra);
export const unauthorized = (message: string = ERR.authRequired) => new AppError(401, message);
export const forbidden = (message: string = ERR.forbidden) => new AppError(403, message);
export const notFound = (message: string = ERR.notFound) => new AppError(404, message);
export const conflict = (message: string) => new AppError(409, message);

/** A 400 in the shape of a validation failure, naming the field. */
export const invalidField = (path: string, message: string) =>
  new AppError(400, ERR.validation, { details: [{ path, message }] });

function codeOf(err: unknown): string | undefined {
  const e = err as { code?: unknown } | null;
  return typeof e?.code === 'string' ? e.code : undefined;
}

/** True for a unique-constraint violation on either database. */
export function isUniqueViolation(err: unknown): boolean {
  const code = codeOf(err);
  return code === '23505' || code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}

/** PostgreSQL chose this transaction as a deadlock's victim (it was rolled back). */
export function isDeadlock(err: unknown): boolean {
  return codeOf(err) === '40P01';
}

/** Two rows took the same rank in one column (PostgreSQL's concurrent creates: rankForNewTicket). */
export function isRankCollision(err: unknown): boolean {
  return codeOf(err) === '23505' && (err as { constraint?: string }).constraint === 'tickets_column_rank_uq';
}

/** True for a foreign-key violation on either database. */
export function isForeignKeyViolation(err: unknown): boolean {
  const code = codeOf(err);
  return code === '23503' || code === 'SQLITE_CONSTRAINT_FOREIGNKEY';
}
