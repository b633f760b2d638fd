/**
 * The last phase of an import: parents and links between tickets, set once every ticket of the run
 * exists (they may name tickets later in the file, or imported by an earlier run), in the file's
 * transaction.
 */
import type { ImportProblem } from '../../shared/imports.js';
import { newId, nowIso } from '../ids.js';
import { IMPORT_CHUNK as CHUNK, type SourceRecord } from './source.js';
import type { Writer } from './write.js';

/** A new ticket that names a parent or other tickets (by source id or key). */
export interface PendingRefs {
  row: number;
  line?: number;
  ticketId: string;
  parent: string | null;
  links: SourceRecord['links'];
}

/** Links between tickets are stored once: `blocks` and `duplicates` one way, `relates_to` between sorted ids. */
function canonicalLink(from: string, type: SourceRecord['links'][number]['type'], to: string) {
  if (type === 'is_blocked_by') return { s: to, t: from, type: 'blocks' as const };
  if (type === 'is_duplicated_by') return { s: to, t: from, type: 'duplicates' as const };
  if (type === 'relates_to') return from < to ? { s: from, t: to, type } : { s: to, t: from, type };
  return { s: from, t: to, type };
}

/**
 * Sets parents and writes links once every ticket of the run exists. A reference that is not in
 * this file is looked up among the project's earlier imports from the same source (by id, then key);
 * one that is nowhere, or that would make a ticket its own ancestor, is a problem. A dry run
 * (`w.tx` null) counts the links it would write; `refs` holds its records' ids and keys.
 */
export async function connect(
  w: Pick<Writer, 'ctx' | 'tx' | 'project' | 'source' | 'counts'>,
  refs: Map<string, string>,
  pending: PendingRefs[],
  problem: (p: ImportProblem) => void,
) {
  const db = w.tx ?? w.ctx.db.kysely;
  const missing = new Set<string>();
  for (const p of pending) {
    if (p.parent && !refs.has(p.parent)) missing.add(p.parent);
    for (const l of p.links) if (!refs.has(l.ref)) missing.add(l.ref);
  }
  const wanted = [...missing];
  for (let i = 0; i < wanted.length; i += CHUNK) {
    const part = wanted.slice(i, i + CHUNK);
    const rows = await db
      .selectFrom('import_sources')
      .select(['source_id', 'source_key', 'ticket_id'])
      .where('project_id', '=', w.project.id)
      .where('source', '=', w.source)
      .where((eb) => eb.or([eb('source_id', 'in', part), eb('source_key', 'in', part)]))
      .execute();
    for (const r of rows) {
      refs.set(r.source_id, r.ticket_id);
      if (r.source_key && !refs.has(r.source_key)) refs.set(r.source_key, r.ticket_id);
    }
  }
  const parentOf = parentsOf(refs, pending, problem);
  const links = linksOf(refs, pending, problem);
  if (!w.tx) {
    w.counts.links = links.length;
    return;
  }
  await writeConnections(w.tx, w, parentOf, links);
}

/** Each new ticket's parent; an assignment that closes a loop is refused (a problem). */
function parentsOf(refs: Map<string, string>, pending: PendingRefs[], problem: (p: ImportProblem) => void) {
  // Parents: a new ticket may be the parent of another; refuse any assignment that closes a loop.
  const parentOf = new Map<string, string>();
  for (const p of pending) {
    if (!p.parent) continue;
    const parentId = refs.get(p.parent);
    if (!parentId) {
      problem({
        row: p.row,
        ...(p.line ? { line: p.line } : {}),
        message: `The parent ${p.parent} is not in this import: imported without a parent`,
      });
      continue;
    }
    let up: string | undefined = parentId;
    let loop = false;
    for (let steps = 0; up && steps < 10_000; steps++) {
      if (up === p.ticketId) {
        loop = true;
        break;
      }
      up = parentOf.get(up);
    }
    if (loop) {
      problem({
        row: p.row,
        ...(p.line ? { line: p.line } : {}),
        message: `The parent ${p.parent} would make the ticket its own ancestor: left out`,
      });
      continue;
    }
    parentOf.set(p.ticketId, parentId);
  }
  return parentOf;
}

type Link = { s: string; t: string; type: 'blocks' | 'duplicates' | 'relates_to' };

/** The links, each once (canonicalLink); one to a ticket that is nowhere is a problem. */
function linksOf(refs: Map<string, string>, pending: PendingRefs[], problem: (p: ImportProblem) => void) {
  const links = new Map<string, Link>();
  for (const p of pending)
    for (const l of p.links) {
      const other = refs.get(l.ref);
      if (!other) {
        problem({
          row: p.row,
          ...(p.line ? { line: p.line } : {}),
          message: `The linked ticket ${l.ref} is not in this import: link left out`,
        });
        continue;
      }
      if (other === p.ticketId) continue;
      const c = canonicalLink(p.ticketId, l.type, other);
      links.set(`${c.s}\u0000${c.t}\u0000${c.type}`, c);
    }
  return [...links.values()];
}

async function writeConnections(
  tx: NonNullable<Writer['tx']>,
  w: Pick<Writer, 'ctx' | 'counts'>,
  parentOf: Map<string, string>,
  linkRows: Link[],
) {
  const byParent = new Map<string, string[]>();
  for (const [child, parent] of parentOf) byParent.set(parent, [...(byParent.get(parent) ?? []), child]);
  for (const [parent, children] of byParent)
    for (let k = 0; k < children.length; k += CHUNK)
      await tx
        .updateTable('tickets')
        .set({ parent_id: parent })
        .where('id', 'in', children.slice(k, k + CHUNK))
        .execute();
  const now = nowIso();
  for (let k = 0; k < linkRows.length; k += CHUNK) {
    const res = await tx
      .insertInto('ticket_links')
      .values(
        linkRows.slice(k, k + CHUNK).map((l) => ({
          id: newId(),
          source_ticket_id: l.s,
          target_ticket_id: l.t,
          link_type: l.type,
          created_by: w.ctx.actor?.userId ?? null,
          created_at: now,
        })),
      )
      .onConflict((oc) => oc.columns(['source_ticket_id', 'target_ticket_id', 'link_type']).doNothing())
      .executeTakeFirst();
    w.counts.links += Number(res.numInsertedOrUpdatedRows ?? 0);
  }
}
