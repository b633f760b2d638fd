/** The `limit` used when a list is read without one (every row; both databases accept it). */
export const NO_LIMIT = 2_000_000_000;

/** Limit and offset of an optional `{limit, offset}` query. */
export const pageOf = (q: { limit?: number; offset?: number }) => ({
  limit: q.limit ?? NO_LIMIT,
  offset: q.offset ?? 0,
});
