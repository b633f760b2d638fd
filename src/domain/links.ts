import type { z } from 'zod';
import { nameProjects } from '../db/changes.js';
import type { ProjectsTable, TicketsTable } from '../db/types.js';
import { ERR } from '../shared/errors.js';
import type { LinkOut } from '../shared/tickets.js';
import { type createLinkBody, INVERSE_LINK, type LinkType } from '../shared/tickets.js';
import { findProject, isMember, parseTicketKey, projectAccess, ticketInProject } from './access.js';
import { actorOf, type Ctx, transact } from './context.js';
import { conflict, invalidField, isUniqueViolation, notFound } from './errors.js';
import { newId, nowIso } from './ids.js';
import { linksOf } from './presenters/tickets.js';
import { transactWrite } from './races.js';

/**
 * Links are stored once in a canonical direction (blocks, duplicates, relates_to) and read from the
 * other ticket with the inverse type. The same link again, or its inverse, is a 409.
 */
const CANONICAL: Record<LinkType, { type: 'blocks' | 'duplicates' | 'relates_to'; flip: boolean }> = {
  blocks: { type: 'blocks', flip: false },
  is_blocked_by: { type: 'blocks', flip: true },
  duplicates: { type: 'duplicates', flip: false },
  is_duplicated_by: { type: 'duplicates', flip: true },
  relates_to: { type: 'relates_to', flip: false },
};

/** The target by id or key: in this project, or in another one the caller may read; else 400. */
async function findTarget(ctx: Ctx, tx: Parameters<typeof isMember>[0], here: ProjectsTable, ref: string) {
  const actor = actorOf(ctx);
  const key = parseTicketKey(ref);
  let ticket: TicketsTable | undefined;
  let project: ProjectsTable | undefined = here;
  if (key) {
    project = key.projectKey === here.key ? here : await findProject(tx, key.projectKey);
    if (project) {
      ticket = await tx
        .selectFrom('tickets')
        .selectAll()
        .where('project_id', '=', project.id)
        .where('number', '=', key.number)
        .executeTakeFirst();
    }
  } else {
    ticket = await tx
      .selectFrom('tickets')
      .selectAll()
      .where('id', '=', ref.toLowerCase())
      .executeTakeFirst();
    project = ticket
      ? ticket.project_id === here.id
        ? here
        : await findProject(tx, ticket.project_id)
      : undefined;
  }
  const visible =
    ticket &&
    project &&
    (project.id === here.id || actor.isSystemAdmin || (await isMember(tx, project.id, actor.userId)));
  if (!ticket || !project || !visible)
    throw invalidField('targetTicketId', 'Must be a ticket of a project you are a member of');
  return { ticket, project };
}

export async function createLink(
  ctx: Ctx,
  projectRef: string,
  ticketRef: string,
  body: z.infer<typeof createLinkBody>,
) {
  const actor = actorOf(ctx);
  try {
    return await transactWrite(ctx, async (tx, emit) => {
      const { project } = await projectAccess(ctx, tx, projectRef);
      const ticket = await ticketInProject(tx, project, ticketRef);
      const target = await findTarget(ctx, tx, project, body.targetTicketId);
      // The target's full read shows the link too: its project changes as well.
      await nameProjects(tx, [target.project.id]);
      if (target.ticket.id === ticket.id)
        throw invalidField('targetTicketId', 'A ticket cannot be linked to itself');
      const c = CANONICAL[body.linkType];
      const [source, dest] = c.flip ? [target.ticket.id, ticket.id] : [ticket.id, target.ticket.id];
      const existing = await tx
        .selectFrom('ticket_links')
        .select('id')
        .where('link_type', '=', c.type)
        .where((eb) =>
          c.type === 'relates_to'
            ? eb.or([
                eb.and([eb('source_ticket_id', '=', source), eb('target_ticket_id', '=', dest)]),
                eb.and([eb('source_ticket_id', '=', dest), eb('target_ticket_id', '=', source)]),
              ])
            : eb.and([eb('source_ticket_id', '=', source), eb('target_ticket_id', '=', dest)]),
        )
        .executeTakeFirst();
      if (existing) throw conflict(ERR.linkExists);
      const id = newId();
      await tx
        .insertInto('ticket_links')
        .values({
          id,
          source_ticket_id: source,
          target_ticket_id: dest,
          link_type: c.type,
          created_by: actor.userId,
          created_at: nowIso(),
        })
        .execute();
      const views = await linksOf(tx, [ticket.id, target.ticket.id]);
      const mine = views.get(ticket.id)?.find((l) => l.id === id) as LinkOut;
      const theirs = views.get(target.ticket.id)?.find((l) => l.id === id) as LinkOut;
      // Every member of a project reads its events: a ticket of another project is named there
      // by nothing but the link (issue 19, finding 1); clients refetch the filtered full read.
      const crossProject = target.project.id !== project.id;
      const eventView = ({ ticket: _other, ...rest }: LinkOut) => rest;
      emit({
        scope: 'project',
        type: 'link.created',
        projectId: project.id,
        data: { ticketId: ticket.id, ...(crossProject ? eventView(mine) : mine) },
      });
      if (crossProject) {
        emit({
          scope: 'project',
          type: 'link.created',
          projectId: target.project.id,
          data: { ticketId: target.ticket.id, ...eventView(theirs) },
        });
      }
      return mine;
    });
  } catch (err) {
    if (isUniqueViolation(err)) throw conflict(ERR.linkExists);
    throw err;
  }
}

/** Deletes a link from either of its tickets. */
export async function deleteLink(ctx: Ctx, projectRef: string, ticketRef: string, linkId: string) {
  return transact(ctx, async (tx, emit) => {
    const { project } = await projectAccess(ctx, tx, projectRef);
    const ticket = await ticketInProject(tx, project, ticketRef);
    const link = await tx
      .selectFrom('ticket_links')
      .selectAll()
      .where('id', '=', linkId.toLowerCase())
      .where((eb) => eb.or([eb('source_ticket_id', '=', ticket.id), eb('target_ticket_id', '=', ticket.id)]))
      .executeTakeFirst();
    if (!link) throw notFound(ERR.linkNotFound);
    const otherId = link.source_ticket_id === ticket.id ? link.target_ticket_id : link.source_ticket_id;
    const other = await tx
      .selectFrom('tickets')
      .select(['id', 'project_id'])
      .where('id', '=', otherId)
      .executeTakeFirstOrThrow();
    await tx.deleteFrom('ticket_links').where('id', '=', link.id).execute();
    emit({
      scope: 'project',
      type: 'link.deleted',
      projectId: project.id,
      data: { id: link.id, ticketId: ticket.id },
    });
    if (other.project_id !== project.id) {
      emit({
        scope: 'project',
        type: 'link.deleted',
        projectId: other.project_id,
        data: { id: link.id, ticketId: other.id },
      });
    }
    return { success: true as const };
  });
}

export { INVERSE_LINK };
