import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { createComment, deleteComment, listComments, updateComment } from '../../domain/comments.js';
import { createLink, deleteLink } from '../../domain/links.js';
import { listHistory } from '../../domain/ticket-history.js';
import { getTicketJson, listTicketsJson } from '../../domain/ticket-reads.js';
import {
  bulkDeleteTickets,
  bulkUpdateTickets,
  createTicket,
  deleteTicket,
  updateTicket,
} from '../../domain/tickets.js';
import { successResponse } from '../../shared/common.js';
import { listQuery, projectParams } from '../../shared/projects.js';
import {
  bulkDeleteBody,
  bulkDeleteOut,
  bulkUpdateBody,
  bulkUpdateOut,
  commentBody,
  commentOut,
  commentParams,
  createLinkBody,
  createTicketBody,
  historyEntryOut,
  linkOut,
  linkParams,
  ticketFullOut,
  ticketListItemOut,
  ticketListQuery,
  ticketParams,
  updateTicketBody,
} from '../../shared/tickets.js';
import { ticketDeleteOut } from '../../shared/trash.js';
import { sendJsonText } from '../plugins/contracts.js';

const P = '/api/projects/:projectId/tickets';
const T = `${P}/:ticketId`;

/** Tickets and their links, comments and history. `:ticketId` is the id or the key (PROJ-12). */
export const ticketsRoutes: FastifyPluginAsyncZod = async (app) => {
  const tags = ['Tickets'];
  app.get(
    P,
    {
      schema: {
        tags,
        summary: 'Tickets in board order (column, order, number); filters; sprintId=none is the backlog',
        response: { 200: ticketListItemOut.array() },
        params: projectParams,
        querystring: ticketListQuery,
      },
    },
    async (req, reply) => {
      const { json, total } = await listTicketsJson(req.ctx, req.params.projectId, req.query);
      reply.header('X-Total-Count', String(total));
      return sendJsonText(reply, json);
    },
  );
  app.post(
    P,
    {
      schema: {
        tags,
        summary: 'Create a ticket at the end of its column',
        response: { 201: ticketFullOut },
        params: projectParams,
        body: createTicketBody,
      },
    },
    async (req, reply) => reply.status(201).send(await createTicket(req.ctx, req.params.projectId, req.body)),
  );
  app.patch(
    P,
    {
      schema: {
        tags,
        summary: 'Bulk update (all or nothing)',
        response: { 200: bulkUpdateOut },
        params: projectParams,
        body: bulkUpdateBody,
      },
    },
    async (req) => bulkUpdateTickets(req.ctx, req.params.projectId, req.body),
  );
  app.delete(
    P,
    {
      schema: {
        tags,
        summary: 'Bulk delete (all or nothing)',
        response: { 200: bulkDeleteOut },
        params: projectParams,
        body: bulkDeleteBody,
      },
    },
    async (req) => bulkDeleteTickets(req.ctx, req.params.projectId, req.body.ticketIds),
  );
  app.get(
    T,
    { schema: { tags, summary: 'Full ticket read', response: { 200: ticketFullOut }, params: ticketParams } },
    async (req, reply) =>
      sendJsonText(reply, await getTicketJson(req.ctx, req.params.projectId, req.params.ticketId)),
  );
  app.patch(
    T,
    {
      schema: {
        tags,
        summary: 'Change fields; move with columnId and order',
        response: { 200: ticketFullOut },
        params: ticketParams,
        body: updateTicketBody,
      },
    },
    async (req) => updateTicket(req.ctx, req.params.projectId, req.params.ticketId, req.body),
  );
  app.delete(
    T,
    {
      schema: {
        tags,
        summary: 'Delete a ticket: it goes to the trash for 30 days (subtasks are detached)',
        response: { 200: ticketDeleteOut },
        params: ticketParams,
      },
    },
    async (req) => deleteTicket(req.ctx, req.params.projectId, req.params.ticketId),
  );

  app.get(
    `${T}/history`,
    {
      schema: {
        tags,
        summary: 'Change history, newest first',
        response: { 200: historyEntryOut.array() },
        params: ticketParams,
        querystring: listQuery,
      },
    },
    async (req, reply) => {
      const { items, total } = await listHistory(
        req.ctx,
        req.params.projectId,
        req.params.ticketId,
        req.query,
      );
      reply.header('X-Total-Count', String(total));
      return items;
    },
  );

  const links = ['Links'];
  app.post(
    `${T}/links`,
    {
      schema: {
        tags: links,
        summary: 'Link to another ticket (any project I am a member of)',
        response: { 201: linkOut },
        params: ticketParams,
        body: createLinkBody,
      },
    },
    async (req, reply) =>
      reply.status(201).send(await createLink(req.ctx, req.params.projectId, req.params.ticketId, req.body)),
  );
  app.delete(
    `${T}/links/:linkId`,
    {
      schema: {
        tags: links,
        summary: 'Delete a link, from either ticket',
        response: { 200: successResponse },
        params: linkParams,
      },
    },
    async (req) => deleteLink(req.ctx, req.params.projectId, req.params.ticketId, req.params.linkId),
  );

  const comments = ['Comments'];
  app.get(
    `${T}/comments`,
    {
      schema: {
        tags: comments,
        summary: 'Comments, oldest first',
        response: { 200: commentOut.array() },
        params: ticketParams,
        querystring: listQuery,
      },
    },
    async (req, reply) => {
      const { items, total } = await listComments(
        req.ctx,
        req.params.projectId,
        req.params.ticketId,
        req.query,
      );
      reply.header('X-Total-Count', String(total));
      return items;
    },
  );
  app.post(
    `${T}/comments`,
    {
      schema: {
        tags: comments,
        summary: 'Add a comment (Markdown, stored as written)',
        response: { 201: commentOut },
        params: ticketParams,
        body: commentBody,
      },
    },
    async (req, reply) =>
      reply
        .status(201)
        .send(await createComment(req.ctx, req.params.projectId, req.params.ticketId, req.body.content)),
  );
  app.patch(
    `${T}/comments/:commentId`,
    {
      schema: {
        tags: comments,
        summary: 'Edit my comment',
        response: { 200: commentOut },
        params: commentParams,
        body: commentBody,
      },
    },
    async (req) =>
      updateComment(
        req.ctx,
        req.params.projectId,
        req.params.ticketId,
        req.params.commentId,
        req.body.content,
      ),
  );
  app.delete(
    `${T}/comments/:commentId`,
    {
      schema: {
        tags: comments,
        summary: 'Delete a comment (author, or project admin or owner)',
        response: { 200: successResponse },
        params: commentParams,
      },
    },
    async (req) => deleteComment(req.ctx, req.params.projectId, req.params.ticketId, req.params.commentId),
  );
};
