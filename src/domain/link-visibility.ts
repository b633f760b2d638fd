import type { LinkOut } from '../shared/tickets.js';
import type { Tx } from './context.js';

/**
 * Who reads a ticket's links. A link to a ticket of another project shows that ticket only to
 * readers of that project (members, or system administrators acting by session); anyone else sees
 * nothing of it: the link is left out (issue 19, finding 1).
 */
export interface LinkReader {
  userId: string;
  /** True only when the reader may read every project (a system administrator's session). */
  readsAll: boolean;
}

/** The project key of a ticket key (`ABC-12` → `ABC`); project keys hold no dash. */
function projectKeyOf(ticketKey: string): string {
  return ticketKey.slice(0, ticketKey.lastIndexOf('-'));
}

/** The keys of the other projects that these links reach. */
export function foreignProjectKeys(links: readonly LinkOut[], projectKey: string): string[] {
  const out = new Set<string>();
  for (const l of links) {
    const k = projectKeyOf(l.ticket.key);
    if (k !== projectKey) out.add(k);
  }
  return [...out];
}

/** Of these project keys, the ones the reader may read. */
export async function readableProjectKeys(
  tx: Tx,
  reader: LinkReader,
  keys: readonly string[],
): Promise<Set<string>> {
  if (keys.length === 0) return new Set();
  if (reader.readsAll) return new Set(keys);
  const rows = await tx
    .selectFrom('projects')
    .innerJoin('project_members', 'project_members.project_id', 'projects.id')
    .select('projects.key')
    .where('project_members.user_id', '=', reader.userId)
    .where('projects.key', 'in', [...keys])
    .execute();
  return new Set(rows.map((r) => r.key));
}

/** A view's links with the ones to projects outside `readable` left out. */
function keepReadable<T extends { links: LinkOut[] }>(view: T, projectKey: string, readable: Set<string>): T {
  const links = view.links.filter((l) => {
    const k = projectKeyOf(l.ticket.key);
    return k === projectKey || readable.has(k);
  });
  return links.length === view.links.length ? view : { ...view, links };
}

/**
 * The views as the reader may see them; with no reader (event payloads, seen by every member of
 * the project) every link to another project is left out. Clients refetch the full read on link
 * events, and that read is filtered for its reader.
 */
export async function linksForReader<T extends { links: LinkOut[] }>(
  tx: Tx,
  projectKey: string,
  views: T[],
  reader: LinkReader | null,
): Promise<T[]> {
  const foreign = new Set<string>();
  for (const v of views) for (const k of foreignProjectKeys(v.links, projectKey)) foreign.add(k);
  if (foreign.size === 0) return views;
  const readable = reader ? await readableProjectKeys(tx, reader, [...foreign]) : new Set<string>();
  return views.map((v) => keepReadable(v, projectKey, readable));
}

/** The event form of a view: no link to another project. */
export function withoutForeignLinks<T extends { links: LinkOut[] }>(view: T, projectKey: string): T {
  return keepReadable(view, projectKey, new Set());
}

/** The acting user as a reader of links. */
export function linkReader(actor: { userId: string; isSystemAdmin: boolean }): LinkReader {
  return { userId: actor.userId, readsAll: actor.isSystemAdmin };
}
