import type { FastifyPluginAsyncZod, ZodTypeProvider } from 'fastify-type-provider-zod';
import {
  getNotificationSettings,
  listNotifications,
  markNotificationsRead,
  unsubscribeByToken,
  updateNotificationSettings,
} from '../../domain/notifications/index.js';
import {
  markReadBody,
  markReadOut,
  notificationListOut,
  notificationListQuery,
  notificationSettingsBody,
  notificationSettingsOut,
  unsubscribeOut,
  unsubscribeQuery,
} from '../../shared/notifications.js';
import { acceptForms } from '../plugins/forms.js';

const tags = ['Notifications'];

/** The unsubscribe page may post its one form to itself, and nothing else. */
const PAGE_CSP =
  "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

const page = (body: string) =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>Docket e-mail</title>` +
  `<style>body{font:14px system-ui,sans-serif;max-width:32rem;margin:4rem auto;padding:0 1rem;color:#222}button{font:inherit;padding:.4rem .9rem}</style></head><body>${body}</body></html>`;

/** The inbox and the notification settings of the signed-in user (docs/notifications.md). */
export const notificationsRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/api/me/notifications',
    {
      schema: {
        tags,
        summary: 'My notifications, newest activity first, with the unread count',
        querystring: notificationListQuery,
        response: { 200: notificationListOut },
      },
    },
    async (req) => listNotifications(req.ctx, req.query),
  );

  app.post(
    '/api/me/notifications/read',
    {
      schema: {
        tags,
        summary: 'Mark notifications read: {ids} or {all: true}',
        body: markReadBody,
        response: { 200: markReadOut },
      },
    },
    async (req) => markNotificationsRead(req.ctx, req.body),
  );

  app.get(
    '/api/me/notification-settings',
    { schema: { tags, summary: 'My e-mail preferences', response: { 200: notificationSettingsOut } } },
    async (req) => getNotificationSettings(req.ctx),
  );

  app.patch(
    '/api/me/notification-settings',
    {
      schema: {
        tags,
        summary: 'Change my e-mail preferences',
        body: notificationSettingsBody,
        response: { 200: notificationSettingsOut },
      },
    },
    async (req) => updateNotificationSettings(req.ctx, req.body),
  );

  // One-click unsubscribe (RFC 8058): the link in every e-mail. GET shows a page with one button
  // (mail scanners follow links, so GET changes nothing); POST, from that page or from the mail
  // client's List-Unsubscribe-Post, turns all e-mail off. The signed token is the credential.
  app.get(
    '/api/notifications/unsubscribe',
    {
      schema: {
        tags,
        summary: 'The unsubscribe page (HTML) of an e-mail link',
        querystring: unsubscribeQuery,
      },
      config: { auth: 'public' },
    },
    async (req, reply) => {
      const action = `?token=${encodeURIComponent(req.query.token)}`;
      reply.header('Content-Security-Policy', PAGE_CSP).type('text/html; charset=utf-8');
      return page(
        `<h1>Stop Docket e-mail?</h1><p>You will get no more notification e-mail from this Docket. Your inbox in Docket stays, and you can turn e-mail on again in your profile.</p>` +
          `<form method="post" action="${action.replace(/"/g, '&quot;')}"><input type="hidden" name="List-Unsubscribe" value="One-Click"><button type="submit">Unsubscribe</button></form>`,
      );
    },
  );

  // The e-mail client's one-click POST (RFC 8058) and the page's own button are HTML forms
  // (`List-Unsubscribe=One-Click`): forms are parsed in this scope only (plugins/forms.ts).
  await app.register(async (scope) => {
    acceptForms(scope);
    const forms = scope.withTypeProvider<ZodTypeProvider>();
    forms.post(
      '/api/notifications/unsubscribe',
      {
        schema: {
          tags,
          summary: 'One-click unsubscribe (RFC 8058): all e-mail off for the signed user',
          querystring: unsubscribeQuery,
          response: { 200: unsubscribeOut },
        },
        config: { auth: 'public' },
      },
      async (req, reply) => {
        await unsubscribeByToken(req.ctx, req.query.token);
        if (String(req.headers.accept ?? '').includes('text/html')) {
          reply.header('Content-Security-Policy', PAGE_CSP).type('text/html; charset=utf-8');
          return reply.send(
            page('<h1>Unsubscribed</h1><p>You will get no more e-mail from this Docket.</p>') as never,
          );
        }
        return { success: true as const, email: 'off' as const };
      },
    );
  });
};
