import { z } from 'zod';
import type { AttachmentOut, CommentOut, HistoryEntryOut, LinkOut } from '../../shared/tickets.js';
import { LINK_TYPES } from '../../shared/tickets.js';
import { type DocketClient, seg } from '../client.js';
import {
  CREATE,
  DELETE,
  defineTool,
  getMembers,
  getTicket,
  type MemberRaw,
  personOf,
  personText,
  READ,
  ToolError,
  ticketKeyParam,
  UPDATE,
} from './common.js';
import { cursorParam, pageInfo, pageShape, pageStart, pageText } from './paging.js';

/**
 * The parts of a ticket beyond its fields (issue 20): comments, links, attachments and history.
 * Each acts through the HTTP API's own routes for them.
 */

const limitParam = (def: number) => z.number().int().min(1).max(200).default(def);
const subjectOf = (t: { projectKey: string; ticketKey: string }) => ({
  subject: { project: t.projectKey, ticket: t.ticketKey },
});

const person = (p: { id: string | null; name: string } | null | undefined, members: MemberRaw[]) => {
  const who = personOf(p, members);
  return { by: who.username ?? who.name, byName: who.name };
};

// --- Comments ----------------------------------------------------------------------------------

const commentOut = z.object({
  id: z.string(),
  by: z.string().nullable(),
  byName: z.string().nullable(),
  content: z.string(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
const presentComment = (c: CommentOut, members: MemberRaw[]) => ({
  id: c.id,
  ...person(c.author, members),
  content: c.content,
  createdAt: c.createdAt,
  updatedAt: c.updatedAt,
});
const commentText = (c: z.infer<typeof commentOut>) =>
  `[${c.id}] ${personText({ username: c.by, name: c.byName })}, ${c.createdAt}${
    c.updatedAt !== c.createdAt ? ' (edited)' : ''
  }:\n${c.content}`;

async function commentsPage(api: DocketClient, ticketKey: string, offset: number, limit: number) {
  const t = await getTicket(api, ticketKey);
  const [page, members] = await Promise.all([
    api.request<CommentOut[]>('GET', `${t.path}/comments`, { query: { offset, limit }, ...subjectOf(t) }),
    getMembers(api, t.projectKey),
  ]);
  return { t, page, members };
}

const listComments = defineTool({
  name: 'list_comments',
  description: "A ticket's comments (Markdown), oldest first.",
  input: { ticketKey: ticketKeyParam, limit: limitParam(20), cursor: cursorParam },
  output: { comments: z.array(commentOut), ...pageShape },
  annotations: READ,
  async run(a, api) {
    const offset = pageStart('list_comments', a);
    const { page, members } = await commentsPage(api, a.ticketKey, offset, a.limit);
    const comments = page.data.map((c) => presentComment(c, members));
    const info = pageInfo('list_comments', a, offset, comments.length, page.total ?? comments.length);
    return {
      text: pageText('list_comments', 'comments', comments.map(commentText), offset, info, 'oldest first'),
      data: { comments, ...info },
    };
  },
});

const addComment = defineTool({
  name: 'add_comment',
  description: 'Comment on a ticket (Markdown).',
  input: { ticketKey: ticketKeyParam, content: z.string().describe('Markdown') },
  output: commentOut.shape,
  annotations: CREATE,
  async run(a, api) {
    const t = await getTicket(api, a.ticketKey);
    const [c, members] = await Promise.all([
      api.post<CommentOut>(`${t.path}/comments`, { content: a.content }, subjectOf(t)),
      getMembers(api, t.projectKey),
    ]);
    const data = presentComment(c, members);
    return { text: `Commented on ${t.ticket.key} [${data.id}]`, data };
  },
});

const commentId = z.string().min(1).describe('Comment id (list_comments)');

const updateComment = defineTool({
  name: 'update_comment',
  description: 'Replace the text of my comment.',
  input: { ticketKey: ticketKeyParam, commentId, content: z.string().describe('Markdown') },
  output: commentOut.shape,
  annotations: UPDATE,
  async run(a, api) {
    const t = await getTicket(api, a.ticketKey);
    const [c, members] = await Promise.all([
      api.patch<CommentOut>(`${t.path}/comments/${seg(a.commentId)}`, { content: a.content }, subjectOf(t)),
      getMembers(api, t.projectKey),
    ]);
    return { text: `Updated comment ${c.id} on ${t.ticket.key}`, data: presentComment(c, members) };
  },
});

const deleteComment = defineTool({
  name: 'delete_comment',
  description: 'Delete a comment.',
  input: { ticketKey: ticketKeyParam, commentId },
  output: { id: z.string(), deleted: z.boolean() },
  annotations: DELETE,
  async run(a, api) {
    const t = await getTicket(api, a.ticketKey);
    await api.del(`${t.path}/comments/${seg(a.commentId)}`, undefined, subjectOf(t));
    return {
      text: `Deleted comment ${a.commentId} on ${t.ticket.key}`,
      data: { id: a.commentId, deleted: true },
    };
  },
});

// --- Links -------------------------------------------------------------------------------------

export const linkItemOut = z.object({
  id: z.string(),
  linkType: z.string(),
  key: z.string(),
  title: z.string(),
});
export const presentLink = (l: LinkOut) => ({
  id: l.id,
  linkType: l.linkType,
  key: l.ticket.key,
  title: l.ticket.title,
});
export const linkText = (l: z.infer<typeof linkItemOut>) =>
  `${l.linkType.replaceAll('_', ' ')} ${l.key} ${l.title}`;

const linkType = z.enum(LINK_TYPES);

const linkTickets = defineTool({
  name: 'link_tickets',
  description: 'Link two tickets: ticketKey <linkType> targetKey.',
  input: { ticketKey: ticketKeyParam, linkType, targetKey: ticketKeyParam },
  output: { ticketKey: z.string(), ...linkItemOut.shape },
  annotations: CREATE,
  async run(a, api) {
    const t = await getTicket(api, a.ticketKey);
    const target = await getTicket(api, a.targetKey);
    const l = await api.post<LinkOut>(
      `${t.path}/links`,
      { targetTicketId: target.ticket.id, linkType: a.linkType },
      subjectOf(t),
    );
    const data = { ticketKey: t.ticket.key, ...presentLink(l) };
    return { text: `Linked ${t.ticket.key} ${linkText(data)}`, data };
  },
});

const unlinkTickets = defineTool({
  name: 'unlink_tickets',
  description: 'Remove the link between two tickets.',
  input: {
    ticketKey: ticketKeyParam,
    targetKey: ticketKeyParam,
    linkType: linkType.optional().describe('If they have several'),
  },
  output: { ticketKey: z.string(), ...linkItemOut.shape, deleted: z.boolean() },
  annotations: DELETE,
  async run(a, api) {
    const t = await getTicket(api, a.ticketKey);
    const want = a.targetKey.trim().toUpperCase();
    const links = (t.ticket.links ?? [])
      .map(presentLink)
      .filter((l) => l.key === want && (!a.linkType || l.linkType === a.linkType));
    if (links.length === 0) {
      const all = (t.ticket.links ?? []).map((l) => linkText(presentLink(l)));
      throw new ToolError(
        `Link not found: ${t.ticket.key} has no ${a.linkType ? `${a.linkType} ` : ''}link to ${want}${
          all.length ? ` (links: ${all.join('; ')})` : ''
        }`,
      );
    }
    if (links.length > 1) {
      throw new ToolError(
        `Several links join ${t.ticket.key} and ${want}: ${links.map((l) => l.linkType).join(', ')}. Give linkType.`,
      );
    }
    await api.del(`${t.path}/links/${seg(links[0].id)}`, undefined, subjectOf(t));
    const data = { ticketKey: t.ticket.key, ...links[0], deleted: true };
    return { text: `Unlinked ${t.ticket.key} ${linkText(links[0])}`, data };
  },
});

// --- Attachments -------------------------------------------------------------------------------

const attachmentOut = z.object({
  id: z.string(),
  filename: z.string(),
  mimeType: z.string(),
  size: z.number(),
  url: z.string(),
  by: z.string().nullable(),
  createdAt: z.string(),
});

const listAttachments = defineTool({
  name: 'list_attachments',
  description: "A ticket's files: names, sizes, download links.",
  input: { ticketKey: ticketKeyParam, limit: limitParam(20), cursor: cursorParam },
  output: { attachments: z.array(attachmentOut), ...pageShape },
  annotations: READ,
  async run(a, api) {
    const offset = pageStart('list_attachments', a);
    const t = await getTicket(api, a.ticketKey);
    const [page, members] = await Promise.all([
      api.request<AttachmentOut[]>('GET', `${t.path}/attachments`, {
        query: { offset, limit: a.limit },
        ...subjectOf(t),
      }),
      getMembers(api, t.projectKey),
    ]);
    const attachments = page.data.map((f) => ({
      id: f.id,
      filename: f.filename,
      mimeType: f.mimeType,
      size: f.size,
      url: api.publicLink(f.url),
      by: person(f.uploader, members).by,
      createdAt: f.createdAt,
    }));
    const info = pageInfo(
      'list_attachments',
      a,
      offset,
      attachments.length,
      page.total ?? attachments.length,
    );
    const lines = attachments.map((f) => `${f.filename} (${f.mimeType}, ${sizeText(f.size)}) ${f.url}`);
    return {
      text: pageText('list_attachments', 'attachments', lines, offset, info, 'oldest first'),
      data: { attachments, ...info },
    };
  },
});

export function sizeText(bytes: number) {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

// --- History -----------------------------------------------------------------------------------

const historyOut = z.object({
  field: z.string(),
  from: z.string().nullable(),
  to: z.string().nullable(),
  by: z.string().nullable(),
  at: z.string(),
});

const getTicketHistory = defineTool({
  name: 'get_ticket_history',
  description: 'What changed on a ticket, who changed it and when; newest first.',
  input: { ticketKey: ticketKeyParam, limit: limitParam(50), cursor: cursorParam },
  output: { history: z.array(historyOut), ...pageShape },
  annotations: READ,
  async run(a, api) {
    const offset = pageStart('get_ticket_history', a);
    const t = await getTicket(api, a.ticketKey);
    const [page, members] = await Promise.all([
      api.request<HistoryEntryOut[]>('GET', `${t.path}/history`, {
        query: { offset, limit: a.limit },
        ...subjectOf(t),
      }),
      getMembers(api, t.projectKey),
    ]);
    const history = page.data.map((h) => ({
      field: h.field,
      from: h.oldValue,
      to: h.newValue,
      by: person(h.changedBy, members).by,
      at: h.changedAt,
    }));
    const info = pageInfo('get_ticket_history', a, offset, history.length, page.total ?? history.length);
    const lines = history.map(
      (h) => `${h.at} ${h.by ?? 'someone'}: ${h.field} ${h.from ?? '(none)'} → ${h.to ?? '(none)'}`,
    );
    return {
      text: pageText('get_ticket_history', 'changes', lines, offset, info, 'newest first'),
      data: { history, ...info },
    };
  },
});

export const ticketPartTools = [
  listComments,
  addComment,
  updateComment,
  deleteComment,
  linkTickets,
  unlinkTickets,
  listAttachments,
  getTicketHistory,
];
