import { z } from 'zod';
import { ToolError } from '../client.js';

/**
 * Paging of every tool list (issue 20): `cursor` in, `total`, `truncated` and `nextCursor` out, and a
 * last line of text that says exactly how to get the next page. A cursor is the offset of the next
 * page plus a fingerprint of the call's other arguments (not `limit`), so a cursor given with other
 * filters is refused instead of paging a different list. Offsets: a ticket created or deleted between
 * two calls can shift the pages by one; the `total` of each page says so.
 */

/** Said once in the server's instructions (pass a result's nextCursor back), not in every tool's schema. */
export const cursorParam = z.string().optional();

export const pageShape = {
  total: z.number(),
  truncated: z.boolean(),
  nextCursor: z.string().nullable(),
};

export interface PageInfo {
  total: number;
  truncated: boolean;
  nextCursor: string | null;
}

/** FNV-1a over the tool name and its arguments other than cursor and limit, in key order. */
function fingerprint(tool: string, args: Record<string, unknown>): string {
  const rest = Object.keys(args)
    .filter((k) => k !== 'cursor' && k !== 'limit' && args[k] !== undefined)
    .sort()
    .map((k) => [k, args[k]]);
  const text = `${tool}\u0001${JSON.stringify(rest)}`;
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h.toString(36);
}

const encode = (offset: number, fp: string) => Buffer.from(`${offset}.${fp}`).toString('base64url');

/** Where the page starts: 0 without a cursor; a cursor of other arguments or a damaged one is an error. */
export function pageStart(tool: string, args: Record<string, unknown> & { cursor?: string }): number {
  if (args.cursor === undefined || args.cursor === '') return 0;
  const m = /^(\d{1,9})\.([0-9a-z]{1,8})$/.exec(Buffer.from(args.cursor, 'base64url').toString());
  if (!m) throw new ToolError(`Invalid cursor for ${tool}: pass nextCursor exactly as a page gave it`);
  if (m[2] !== fingerprint(tool, args)) {
    throw new ToolError(
      `This cursor belongs to other arguments of ${tool}: repeat the first call's arguments with it, or leave cursor out to start again`,
    );
  }
  return Number(m[1]);
}

/** Paging facts of a page of `shown` items from `offset` in a list of `total`. */
export function pageInfo(
  tool: string,
  args: Record<string, unknown>,
  offset: number,
  shown: number,
  total: number,
): PageInfo {
  const end = offset + shown;
  const more = end < total && shown > 0;
  return { total, truncated: more, nextCursor: more ? encode(end, fingerprint(tool, args)) : null };
}

/**
 * The text of a page: a head line (`57 tickets, newest first:` or `Tickets 21-40 of 57, …:`), the
 * lines, and when more follow, how to read them.
 */
export function pageText(
  tool: string,
  noun: string,
  lines: string[],
  offset: number,
  page: PageInfo,
  order?: string,
): string {
  const n = page.total === 1 ? noun.replace(/s$/, '') : noun;
  const how = order ? `, ${order}` : '';
  if (page.total === 0) return `No ${noun}.`;
  if (lines.length === 0) return `No ${noun} from ${offset + 1} on (${page.total} in all).`;
  const whole = offset === 0 && lines.length === page.total;
  const head = whole
    ? `${page.total} ${n}${how}:`
    : `${noun[0].toUpperCase()}${noun.slice(1)} ${offset + 1}-${offset + lines.length} of ${page.total}${how}:`;
  const out = [head, ...lines];
  if (page.nextCursor) {
    const next = offset + lines.length;
    out.push(
      `More: ${page.total - next} not shown. Call ${tool} again with the same arguments and cursor "${page.nextCursor}" for ${noun} ${next + 1}-${Math.min(page.total, next + lines.length)} (or raise limit).`,
    );
  }
  return out.join('\n');
}

/** A page of a list the tool has whole: its slice and paging facts. */
export function pageOfList<T>(
  tool: string,
  args: Record<string, unknown> & { cursor?: string; limit?: number },
  all: T[],
  defaultLimit = 50,
) {
  const offset = pageStart(tool, args);
  const limit = args.limit ?? defaultLimit;
  const items = all.slice(offset, offset + limit);
  return { offset, items, page: pageInfo(tool, args, offset, items.length, all.length) };
}
